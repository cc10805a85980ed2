"""What a front door asks the turn engine for: `TurnRequest`.

The playground's route, the Python API, a task worker and a workflow step all describe a turn the
same way; what differs between them is said here, not in the engine: where the turn comes from
(`origin`, stored on a new conversation), which ledger module its model requests count under, the
scope, usage limits, capabilities added to the run, and the run that started it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.usage import UsageLimits

from ..scope import Scope
from ..store.ids import is_valid_id
from ..targets.target import TurnTarget
from ..traces.sink import RunPlace
from .attachments import Upload
from .deferred import Decisions

Origin = Literal['playground', 'app', 'task', 'workflow']
"""Where a conversation was opened."""

ORIGINS: tuple[str, ...] = get_args(Origin)
MODULE_LENGTH = 32
"""The longest ledger module name `llm_calls.module` holds."""


@dataclass
class TurnRequest:
    """One turn to run: the agent, the message and its files, and how the turn is run and recorded.

    Raises `ValueError` for an origin, module, scope or parent run id that cannot be stored."""

    target: TurnTarget
    message: str
    uploads: list[Upload] = field(default_factory=list)
    conversation_id: str | None = None
    """Continue this conversation (None: open a new one)."""
    model_id: str | None = None
    """A selector model id (None: the agent's own model, else the demo model)."""
    origin: Origin = 'playground'
    """Stored on a new conversation; a continued conversation keeps its own."""
    module: str = 'chat'
    """The ledger module (`llm_calls.module`) of the turn's model requests."""
    scope: Scope = field(default_factory=Scope)
    """The scope of a new conversation. Empty: a continued conversation's stored scope. A scope
    that differs from a continued conversation's is refused."""
    usage_limits: UsageLimits | None = None
    """Passed to the run: a limit it reaches ends the turn with an error card."""
    capabilities: Sequence[AbstractCapability[Any]] = ()
    """Added to the run beside Synapse's recorder (the agent itself is never changed)."""
    parent_run_id: str | None = None
    """The run that started this turn (a workflow step's, a task's), kept on each ledger row. None:
    the run the caller is inside, when it is a traced run (a tool that opens a conversation)."""
    trace_parent: RunPlace | None = None
    """Where the run that started this turn sits in its trace tree, when that run is in another
    process (a task queued from a tool): the turn's run joins that tree."""
    workflow_run_id: str | None = None
    """The workflow run this turn is a step of (kept on its trace and debug logs)."""
    sub_agents: Sequence[Any] = ()
    """Agents that run on this turn's model when its tools call them, when the turn runs on another
    model than the agent's own (`chat/sub_agents.py`; the playground passes the other discovered
    agents)."""
    decisions: Decisions | None = None
    """Answers to the tool calls the conversation's last run paused on (`chat/deferred.py`): the
    turn resumes that run instead of sending `message` (which may be empty)."""
    deps_values: dict[str, Any] | None = None
    """Values for an agent's deps schema (`targets/deps_values.py`); None: the conversation's stored ones."""

    def __post_init__(self) -> None:
        if self.origin not in ORIGINS:
            raise ValueError(f'origin: {self.origin!r:.80} is not one of {", ".join(ORIGINS)}.')
        if not isinstance(self.module, str) or not 0 < len(self.module) <= MODULE_LENGTH:
            raise ValueError(f'module: expected 1 to {MODULE_LENGTH} characters, got {self.module!r:.80}.')
        if not isinstance(self.scope, Scope):
            raise ValueError(f'scope: expected a Scope, got {type(self.scope).__name__}.')
        if self.parent_run_id is not None and not is_valid_id(self.parent_run_id):
            raise ValueError(f'parent_run_id: {self.parent_run_id!r:.80} is not a run id.')
