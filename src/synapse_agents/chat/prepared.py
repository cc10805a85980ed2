"""`PreparedTurn`: a turn ready to stream, as `ChatEngine.prepare` leaves it for `TurnStream`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models import Model
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import DeferredToolResults
from pydantic_ai.usage import UsageLimits

from ..accounting.pricing import Pricer
from ..events import Compressed
from ..scope import Scope
from ..settings import Settings
from ..targets.target import TurnTarget
from ..traces.sink import RunPlace
from .attachments import SavedAttachment
from .deps import ServerDeps


@dataclass
class PreparedTurn:
    """A turn ready to stream: ids decided, history loaded, files saved, model chosen."""

    target: TurnTarget
    message: str
    conversation_id: str
    new_conversation: bool
    run_id: str
    user_message_id: str
    assistant_message_id: str
    history: list[ModelMessage]
    attachments: list[SavedAttachment]
    model: Model | None
    model_name: str | None
    provider: str | None
    setup_error: BaseException | None = None
    model_settings: ModelSettings | None = None
    """Passed to the run, merged over the agent's own (`TurnRequest.model_settings`)."""
    preset: str | None = None
    """The preset named on the turn's ledger rows (`TurnRequest.preset`, else the target's)."""
    origin: str = 'playground'
    module: str = 'chat'
    scope: Scope = field(default_factory=Scope)
    usage_limits: UsageLimits | None = None
    capabilities: Sequence[AbstractCapability[Any]] = ()
    parent_run_id: str | None = None
    pricer: Pricer | None = None
    """The prices for the ledger and the spending estimates (None: genai-prices' only)."""
    settings: Settings | None = None
    """Currencies, `usage_recorder`, `default_max_output_tokens` (None: their defaults)."""
    price_hint: str | None = None
    """The registry model key the turn chose, when the registry prices it."""
    trace_parent: RunPlace | None = None
    """Where the run that started this one sits in its trace tree (a run in another process)."""
    workflow_run_id: str | None = None
    sub_agents: Sequence[Any] = ()
    """Agents that follow the turn's model when they run inside it (`chat/sub_agents.py`)."""
    resume: DeferredToolResults | None = None
    """The decisions that resume a paused run (`conversations/deferred.py`); the turn then sends no prompt."""
    claimed: tuple[str, ...] = ()
    """The paused rows this turn's decisions were claimed on: they wait again if the turn fails."""
    user_meta: dict[str, Any] = field(default_factory=dict)
    """The user row's `meta` (`{'decisions': ...}` for a turn that resumes a paused run)."""
    deps_values: dict[str, Any] | None = None
    """The checked values for the agent's deps schema (`targets/deps_values.py`), stored on the
    conversation when the run starts; the deps themselves when the agent has no factory."""
    deps_cache: ServerDeps | None = None
    """The engine's `server`-lifetime deps (`chat/deps.py`; None: every turn builds its own)."""
    on_compressed: Callable[[Compressed], None] | None = None
    """Tells the plugins that `Compression` summarised the conversation (the engine's)."""

    def meta(self, **values: Any) -> dict[str, Any]:
        """The assistant row's `meta`: `values`, and the configured agent's version when there is one."""
        version = self.target.agent_version
        return {**values, 'agent_version': version} if version is not None else values
