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
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import UsageLimits

from .._storable import text_flaw
from ..conversations.deferred import Decisions
from ..errors import TurnInvalid
from ..scope import Scope
from ..store.ids import is_valid_id
from ..targets.target import TurnTarget
from ..traces.sink import RunPlace
from .attachments import Upload

Origin = Literal['playground', 'app', 'task', 'workflow', 'eval', 'mcp']
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
    model_settings: ModelSettings | None = None
    """Passed to the run (`run_stream_events(model_settings=...)`): pydantic-ai merges them over the
    agent's own, which are never changed (a registry preset's temperature, max tokens, ...)."""
    preset: str | None = None
    """The registry preset the turn runs with, named on its ledger rows (so that preset's spending
    limits apply). None: the agent's own (a configured agent's preset)."""
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
    """Answers to the tool calls the conversation's last run paused on (`conversations/deferred.py`): the
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


@dataclass(frozen=True)
class InputLimits:
    """How much a turn may carry (the `max_message_chars`, `max_attachments` and
    `attachments_max_bytes` settings)."""

    max_message_chars: int = 100_000
    max_attachments: int = 10
    attachments_max_bytes: int = 20 * 1024 * 1024

    @classmethod
    def of(cls, settings: Any) -> InputLimits:
        return cls(settings.max_message_chars, settings.max_attachments, settings.attachments_max_bytes)


def _invalid(name: str, message: str, problem: str) -> TurnInvalid:
    return TurnInvalid(message, fields=[{'location': f'body.{name}', 'message': problem}])


def check_text(
    message: str,
    *,
    conversation_id: str | None = None,
    model_id: str | None = None,
    file_names: Sequence[str] = (),
    limits: InputLimits,
) -> None:
    """A turn's text and files as every front door sends them, checked before anything is stored:
    `TurnInvalid` names the field (a message too long, a NUL, a lone surrogate, too many files)."""
    if len(message) > limits.max_message_chars:
        raise _invalid(
            'message',
            f'message: {len(message)} characters is more than the {limits.max_message_chars} accepted.',
            'Too long',
        )
    for name, value in (('message', message), ('conversation_id', conversation_id or '')):
        if '\x00' in value:  # never meaningful, and PostgreSQL cannot store or compare it
            raise _invalid(name, f'{name}: NUL characters are not accepted.', 'NUL character')
    # A file name's NUL is sanitised away like any other unsafe character; text is refused.
    texts = [('message', message, True), ('model', model_id or '', True)]
    texts += [('attachments', file_name, False) for file_name in file_names]
    for name, value, nul in texts:
        problem = text_flaw(value, nul=nul)  # a form part in UTF-7 can decode to a lone surrogate
        if problem is not None:
            raise _invalid(name, f'{name}: {problem}.', problem)
    if len(file_names) > limits.max_attachments:
        raise _invalid(
            'attachments',
            f'attachments: {len(file_names)} files is more than the {limits.max_attachments} '
            'a message may carry.',
            'Too many files',
        )


def check_content(message: str, files: int, *, decisions: bool) -> None:
    """What a turn sends: a message or files, or decisions alone (`TurnInvalid` otherwise)."""
    if decisions and (message.strip() or files):
        raise _invalid(
            'decisions',
            'decisions: send them without a message or files; the turn resumes the paused run.',
            'Sent with a message',
        )
    if not decisions and not message.strip() and not files:
        raise _invalid('message', 'message: send a message or at least one attachment.', 'Field required')


def check_input(turn: TurnRequest, limits: InputLimits) -> None:
    """Every check of `check_text` and `check_content`, and each file's size (the engine's, for
    every front door)."""
    if not isinstance(turn.message, str):
        raise TypeError(f'message: expected a string, got {type(turn.message).__name__}.')
    check_text(
        turn.message,
        conversation_id=turn.conversation_id,
        model_id=turn.model_id,
        file_names=[upload.name for upload in turn.uploads],
        limits=limits,
    )
    for upload in turn.uploads:
        if len(upload.data) > limits.attachments_max_bytes:
            raise _invalid(
                'attachments',
                f'{upload.name} is larger than {limits.attachments_max_bytes} bytes.',
                'Too large',
            )
    check_content(turn.message, len(turn.uploads), decisions=turn.decisions is not None)
