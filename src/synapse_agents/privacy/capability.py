"""`Privacy()`: personal data replaced by placeholders in what leaves for the model, put back in the reply.

    from synapse_agents.capabilities import Privacy

    agent = Agent(model, capabilities=[Privacy()])          # or the `privacy_enabled` setting

The order of things is the feature:

1. Before each model request (`before_model_request`: after the capabilities before it added their
   instructions, rules, memories or summary; it orders itself inside `Rules`, `Memory` and
   `Compression` wherever it is listed) a COPY of what is sent is redacted, before the trace records
   the request (its debug view shows what was sent): the instructions, the system and user prompts
   and their text files, tool returns (retrieved documents included), retry prompts, and the earlier
   replies and tool calls of the history. The run's history and the stored conversation keep the
   values in clear; nothing redacted is stored but the debug view of what was sent.
2. The model's response is restored before anything else of the run sees it (`after_model_request`):
   the history, hence the stored answer, holds the values, and a tool call's arguments are the real
   values when the tool runs (restored again in `before_tool_execute`, for a call that reaches the
   tool another way).
3. A streamed reply is restored as it streams (`wrap_run_event_stream`): each text, thought and tool
   argument delta, with the end of a delta that may be the start of a placeholder held back until the
   next one completes it (`vault.StreamRestorer`).

Runs started inside a run with a `Privacy` (a summary call, an agent a tool runs) get one too, with
the same options (`install_nested`); with the `privacy_enabled` setting every run of a turn does
(`turns`).

The same value has the same placeholder across the conversation: the vault is per conversation,
stored encrypted with the `secret_key` setting (`vault_store`). In Synapse's turns it lives in the
turn's database; `Privacy.at(...)`/`Privacy.of(...)` give it one outside them; a run with neither a
store nor a conversation keeps its vault for the run only.

Fail closed: the detector unavailable (`DetectorUnavailable`) or the vault unreadable
(`PrivacyUnavailable`) raises before the request is sent, and the turn ends with an error card.
A conversation that opted out (`anonymize_pii` off: `vault_store.set_anonymize_pii`) is sent as it is.
Each request that carried placeholders shows a notice (`kind='redacted'`) listing them with their
entity, never the value.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterable, AsyncIterator, Sequence
from contextlib import suppress
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any

import anyio.to_thread
from pydantic_ai import Agent, RunContext
from pydantic_ai.capabilities import AbstractCapability, CapabilityOrdering
from pydantic_ai.messages import (
    AgentStreamEvent,
    ModelResponse,
    PartDeltaEvent,
    PartEndEvent,
    PartStartEvent,
    TextPartDelta,
    ThinkingPartDelta,
    ToolCallPart,
    ToolCallPartDelta,
)
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.tools import ToolDefinition

from .._agent_runs import extend
from ..compression.capability import CompressionCapability
from ..encryption import SecretBox
from ..events import Notice
from ..memory.capability import MemoryCapability
from ..rules.capability import RulesCapability
from ..scope import Scope
from ..settings import Settings
from ..store import Store
from ..store.in_turn import in_turn
from ..traces.hooks import RunTrace
from . import vault_store
from .detector import CHUNK, Finding, detector
from .messages import changed_messages, changed_parameters, changed_response, changed_value
from .vault import Replaced, StreamRestorer, Vault

DEFAULT_EXCEPT: tuple[str, ...] = ('PERSON',)
"""What stays in clear when neither the capability nor the settings say (`privacy_except`)."""

NOTICE_KIND = 'redacted'

_RUNNING: ContextVar[PrivacyCapability | None] = ContextVar('synapse_privacy_running', default=None)


def running() -> PrivacyCapability | None:
    """The `Privacy` of the run the caller is inside (its tools, its capabilities' own model calls,
    the runs they start), if that run has one."""
    return _RUNNING.get()


def install_nested() -> None:
    """From now on, a run started inside a run that has a `Privacy` gets one too, with its options (a
    summary call `Compression` makes, an agent a tool runs: they leave redacted like the run they
    serve). Once per process; done by the first run with a `Privacy`."""
    extend(_nested)


def _nested(agent: Agent[Any, Any], options: dict[str, Any]) -> None:
    outer = running()
    if outer is None or has_privacy(agent, options):
        return
    options['capabilities'] = [*(options.get('capabilities') or ()), outer.nested()]


def has_privacy(agent: Agent[Any, Any], options: dict[str, Any]) -> bool:
    """Whether a run of `agent` with these options has a `Privacy` (passed to it, or the agent's own)."""
    if any(isinstance(c, PrivacyCapability) for c in options.get('capabilities') or ()):
        return True
    found: list[AbstractCapability[Any]] = []
    agent.root_capability.apply(lambda c: found.append(c) if isinstance(c, PrivacyCapability) else None)
    return bool(found)


def _findings(text: str, keep: frozenset[str]) -> tuple[Finding, ...]:
    """The detector's findings; a text up to `CHUNK` characters long is remembered (a history is sent
    again at every request of every turn), a longer one is read again."""
    if len(text) > CHUNK:
        return tuple(detector().find(text, keep))
    return _remembered(text, keep)


@functools.lru_cache(maxsize=4096)
def _remembered(text: str, keep: frozenset[str]) -> tuple[Finding, ...]:
    return tuple(detector().find(text, keep))


@dataclass
class _RunState:
    """One run's vault and where it is kept."""

    active: bool
    vault: Vault
    store: Store | None = None
    box: SecretBox | None = None
    conversation_id: str | None = None
    tenant: str | None = None
    notified: set[str] = field(default_factory=set)


@dataclass(eq=False)
class PrivacyCapability(AbstractCapability[Any]):
    """See the module docstring."""

    keep: Sequence[str] | None = field(default=None, kw_only=True)
    """Entities left in clear (Presidio's names: `PERSON`, `LOCATION`, ...); None: the
    `privacy_except` setting (`['PERSON']` by default); `[]` redacts everything."""
    store: Store | None = field(default=None, kw_only=True)
    """Where vaults are kept; unset: the Synapse turn's database (none: the run's own vault)."""
    settings: Settings | None = field(default=None, kw_only=True)
    """The `secret_key` and `privacy_except` settings; unset: the Synapse turn's."""
    _state: _RunState | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.keep is not None and (
            isinstance(self.keep, str) or not all(isinstance(entity, str) for entity in self.keep)
        ):
            raise ValueError(f"Privacy: keep is a list of entity names such as ['PERSON'], not {self.keep!r}")

    def get_ordering(self) -> CapabilityOrdering:
        """Inside Synapse's capabilities that add text to a request (rules, memories, a summary),
        wherever it is listed: what they add is redacted with the rest; and outside the trace's
        recorder, which records the request as it was sent (redacted) and the response as the model
        wrote it."""
        return CapabilityOrdering(
            wrapped_by=(CompressionCapability, MemoryCapability, RulesCapability), wraps=(RunTrace,)
        )

    async def for_run(self, ctx: RunContext[Any]) -> AbstractCapability[Any]:
        run = replace(self)  # each run its own vault
        run._state = None
        return run

    async def wrap_run(self, ctx: RunContext[Any], *, handler: Any) -> Any:
        """The run, with this capability known to the runs started inside it (`running`): an agent a
        tool runs, a capability's summary call, get a `Privacy` of their own (`install_nested`)."""
        install_nested()
        token = _RUNNING.set(self)
        try:
            return await handler()
        finally:
            with suppress(ValueError):  # a stream closed from another task: its context is gone
                _RUNNING.reset(token)

    def nested(self) -> PrivacyCapability:
        """A `Privacy` like this one for a run started inside this one's (its keep, store, settings)."""
        return PrivacyCapability(keep=self.keep, store=self.store, settings=self.settings)

    # -- the request ---------------------------------------------------------------------

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        state = await self._started(ctx)
        if not state.active:
            return request_context
        keep = self._kept()
        sent: list[Replaced] = []

        def redact(text: str) -> str:
            redacted, replaced = state.vault.redact(text, _findings(text, keep))
            sent.extend(replaced)
            return redacted

        def redact_all() -> ModelRequestContext:
            messages = changed_messages(request_context.messages, redact)
            parameters = changed_parameters(request_context.model_request_parameters, redact)
            return replace(request_context, messages=messages, model_request_parameters=parameters)

        redacted = await anyio.to_thread.run_sync(redact_all)  # the detector is CPU work
        store, box, conversation_id = state.store, state.box, state.conversation_id
        if state.vault.changed and store is not None and box is not None and conversation_id is not None:
            await anyio.to_thread.run_sync(
                vault_store.save, store, box, conversation_id, state.tenant, state.vault
            )
        self._notify(state, sent)
        return redacted

    # -- the response --------------------------------------------------------------------

    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, response: ModelResponse
    ) -> ModelResponse:
        state = self._state
        if state is None or not state.active:
            return response
        return changed_response(response, state.vault.restore)

    async def before_tool_execute(
        self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition, args: dict[str, Any]
    ) -> dict[str, Any]:
        state = self._state
        if state is None or not state.active:
            return args
        return changed_value(args, state.vault.restore)

    @property
    def has_wrap_run_event_stream(self) -> bool:
        """False: restoring the stream is for whoever reads it, and a streamed run wraps its events
        in every capability's `wrap_run_event_stream` anyway. Saying True would make pydantic-ai
        stream a plain `run()` (a nested run's) only for this hook, and a model that cannot stream
        would fail there."""
        return False

    async def wrap_run_event_stream(
        self, ctx: RunContext[Any], *, stream: AsyncIterable[AgentStreamEvent]
    ) -> AsyncIterable[AgentStreamEvent]:
        async for event in _restored_stream(self, stream):
            yield event

    # -- helpers -------------------------------------------------------------------------

    def _kept(self) -> frozenset[str]:
        if self.keep is not None:
            return frozenset(self.keep)
        settings = self._settings()
        return frozenset(settings.privacy_except if settings is not None else DEFAULT_EXCEPT)

    def _settings(self) -> Settings | None:
        if self.settings is not None:
            return self.settings
        turn = in_turn()
        return turn.settings if turn is not None else None

    async def _started(self, ctx: RunContext[Any]) -> _RunState:
        """The run's state, made at its first request: the conversation's vault and flag read, and,
        when it redacts, the detector built (`DetectorUnavailable` before anything is sent)."""
        if self._state is None:
            self._state = await self._state_of(ctx)
            if self._state.active:
                await anyio.to_thread.run_sync(detector)
        return self._state

    async def _state_of(self, ctx: RunContext[Any]) -> _RunState:
        turn = in_turn()
        store = self.store or (turn.store if turn is not None else None)
        conversation_id = ctx.conversation_id
        if store is None or not conversation_id:
            return _RunState(active=True, vault=Vault())
        settings = self._settings() or Settings()
        box = vault_store.box_for(settings)
        tenant = Scope.of(ctx).label('tenant')
        stored = await anyio.to_thread.run_sync(vault_store.load, store, box, conversation_id, tenant)
        return _RunState(
            active=stored.anonymize_pii,
            vault=stored.vault,
            store=store,
            box=box,
            conversation_id=conversation_id,
            tenant=tenant,
        )

    def _notify(self, state: _RunState, sent: list[Replaced]) -> None:
        """Show the placeholders a request carried (the first request that carried each)."""
        new = {r.placeholder: r.entity for r in sent if r.placeholder not in state.notified}
        turn = in_turn()
        if not new or turn is None or turn.notify is None:
            return
        state.notified.update(new)
        listed = ', '.join(f'{placeholder} ({entity})' for placeholder, entity in new.items())
        turn.notify(
            Notice(
                kind=NOTICE_KIND,
                message=f'Sent to the model redacted: {listed}.',
                data={'placeholders': [{'placeholder': p, 'entity': e} for p, e in new.items()]},
            )
        )


async def _restored_stream(
    capability: PrivacyCapability, stream: AsyncIterable[AgentStreamEvent]
) -> AsyncIterator[AgentStreamEvent]:
    """`stream` with placeholders restored in each part's text, thought and argument deltas; a
    delta's held-back end is sent with the next delta of the part, or before the part ends."""
    restorers: dict[int, StreamRestorer] = {}
    async for event in stream:
        state = capability._state
        if state is None or not state.active:
            yield event
            continue
        if isinstance(event, PartStartEvent):
            started = restorers[event.index] = StreamRestorer(state.vault)
            yield replace(event, part=_started_part(event.part, started))
        elif isinstance(event, PartDeltaEvent):
            yield _restored_delta(event, restorers, state.vault)
        elif isinstance(event, PartEndEvent):
            ending = restorers.pop(event.index) if event.index in restorers else None
            rest = ending.flush() if ending is not None else ''
            if rest:
                yield PartDeltaEvent(index=event.index, delta=_delta_like(event.part, rest))
            yield replace(event, part=changed_value(event.part, state.vault.restore))
        else:
            yield changed_value(event, state.vault.restore)


def _restored_delta(
    event: PartDeltaEvent, restorers: dict[int, StreamRestorer], vault: Vault
) -> PartDeltaEvent:
    delta = event.delta
    restorer = restorers.setdefault(event.index, StreamRestorer(vault))
    if isinstance(delta, TextPartDelta):
        return replace(event, delta=replace(delta, content_delta=restorer.feed(delta.content_delta)))
    if isinstance(delta, ThinkingPartDelta) and delta.content_delta:
        return replace(event, delta=replace(delta, content_delta=restorer.feed(delta.content_delta)))
    if isinstance(delta, ToolCallPartDelta) and isinstance(delta.args_delta, str):
        return replace(event, delta=replace(delta, args_delta=restorer.feed(delta.args_delta)))
    if isinstance(delta, ToolCallPartDelta) and isinstance(delta.args_delta, dict):
        return replace(event, delta=replace(delta, args_delta=changed_value(delta.args_delta, vault.restore)))
    return event


def _started_part(part: Any, restorer: StreamRestorer) -> Any:
    """A part's first text through its restorer (a placeholder it ends in the middle of is held back)."""
    if isinstance(part, ToolCallPart) and isinstance(part.args, str):
        return replace(part, args=restorer.feed(part.args))
    if isinstance(part, ToolCallPart):
        return changed_value(part, restorer.vault.restore)
    content = getattr(part, 'content', None)
    if isinstance(content, str) and part.part_kind in ('text', 'thinking'):
        return replace(part, content=restorer.feed(content))
    return changed_value(part, restorer.vault.restore)


def _delta_like(part: Any, text: str) -> Any:
    """A delta of `part`'s kind carrying `text`."""
    if isinstance(part, ToolCallPart):
        return ToolCallPartDelta(args_delta=text, tool_call_id=part.tool_call_id)
    if part.part_kind == 'thinking':
        return ThinkingPartDelta(content_delta=text)
    return TextPartDelta(content_delta=text)
