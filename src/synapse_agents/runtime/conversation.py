"""`AppConversation`: an app's conversation with one agent, in one scope; `Reply`: what a turn gave.

A conversation is opened by `Synapse.conversation(...)`. Each `send` or `stream` is one turn of the
turn engine (`chat/engine.py`): the same records as a playground chat, with the conversation's
origin (`app` by default) and scope. Turns of one `AppConversation` object run one at a time (a second
`send` waits for the first), so each sees the one before it as history.

    reply = await conv.send('Hello', attachments=[Path('a.pdf')])
    async for event in conv.stream('And then?'):   # pydantic-ai events, as agent.run_stream_events
        ...
    conv.last_reply                                # the streamed turn's Reply

A run that pauses on tool calls needing a person (approval, or a result from outside the run)
ends with `reply.awaiting` listing them (`conversations/deferred.py`); the conversation then takes only
their answers, until `decide` resumes the run:

    if reply.awaiting:
        reply = await conv.decide({'call_1': True, 'call_2': Decision(approved=False, reason='no')})
"""

from __future__ import annotations

import mimetypes
from collections.abc import AsyncGenerator, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import anyio
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import AgentStreamEvent, BinaryContent, ModelMessage
from pydantic_ai.models import Model
from pydantic_ai.run import AgentRunResult, AgentRunResultEvent
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RunUsage, UsageLimits

from ..chat.attachments import Upload
from ..chat.engine import ChatEngine
from ..chat.reader import TurnReader
from ..chat.request import Origin, TurnRequest
from ..conversations.decisions import awaiting_calls
from ..conversations.deferred import (
    Decision,
    Decisions,
    PausedCall,
    paused_calls,
    read_decisions,
    waiting_call,
)
from ..conversations.repository import ConversationRepository
from ..errors import ConversationNotFound, TurnNotStored
from ..events import Notice, ToolTimed, TurnFinished
from ..scope import Scope
from ..targets.target import TurnTarget, model_id_of
from ..traces.sink import RunPlace

Attachment = Path | str | BinaryContent | tuple[str, bytes] | tuple[str, bytes, str]
"""A file to send: a path, pydantic-ai `BinaryContent`, or `(name, bytes[, media type])`."""


@dataclass(frozen=True)
class TurnSettings:
    """How a conversation's turns run: fixed when it is opened."""

    model: Model | str | None = None
    usage_limits: UsageLimits | None = None
    capabilities: Sequence[AbstractCapability[Any]] = ()
    origin: Origin = 'app'
    model_settings: ModelSettings | None = None
    """Passed to every run, merged over the agent's own (which are never changed)."""
    preset: str | None = None
    """A registry preset key named on the ledger rows (its spending limits apply); it does not
    choose the model or the settings by itself: `model` and `model_settings` do."""
    module: str = 'chat'
    """The ledger module of the turns' model requests (`workflow` for a workflow step)."""
    parent_run_id: str | None = None
    """The run that started these turns (a workflow run's id for its steps)."""
    trace_parent: RunPlace | None = None
    """Where that run sits in its trace tree (a workflow step hangs at depth 1 under its run)."""
    workflow_run_id: str | None = None
    """The workflow run these turns are steps of."""


@dataclass(frozen=True)
class Reply:
    """One stored turn: the agent's output and what it cost."""

    output: Any
    usage: RunUsage
    cost: Decimal | None
    """What the turn cost in the reference currency (the `reference_currency` setting, USD by
    default); None when a price is unknown or its currency has no rate ("unpriced"), never 0 for
    that. Each ledger row also keeps the cost in the currency it was priced in."""
    message_id: str
    """The stored assistant message."""
    user_message_id: str
    conversation_id: str
    run_id: str
    model: str | None
    duration_ms: int | None
    result: AgentRunResult[Any] = field(repr=False)
    """pydantic-ai's own result of the run (`new_messages()`, `all_messages()`, ...)."""
    awaiting: list[PausedCall] = field(default_factory=list)
    """The tool calls the run paused on, waiting for `AppConversation.decide` (then `output` is
    pydantic-ai's `DeferredToolRequests`)."""

    @property
    def messages(self) -> list[ModelMessage]:
        """The model messages this turn added."""
        return self.result.new_messages()


class AppConversation:
    """A conversation with one agent in one scope; see the module docstring."""

    def __init__(
        self,
        engine: ChatEngine,
        target: TurnTarget,
        scope: Scope,
        settings: TurnSettings,
        *,
        conversation_id: str | None = None,
    ) -> None:
        self._engine = engine
        self._target = target
        self._scope = scope
        self._settings = settings
        self._id = conversation_id
        self._lock = anyio.Lock()
        self.last_reply: Reply | None = None
        """The last turn's reply (after `send`, or once a `stream` finished)."""

    @property
    def id(self) -> str | None:
        """The conversation's id (None until the first turn of a new conversation is stored)."""
        return self._id

    @property
    def scope(self) -> Scope:
        """The tenant, actor and subject its turns run with."""
        return self._scope

    @property
    def agent_key(self) -> str:
        """The agent slug the conversation is stored under."""
        return self._target.slug

    async def fork(
        self, message_id: str, *, model: Model | str | None = None, title: str | None = None
    ) -> AppConversation:
        """A new conversation holding copies of this one's turns before its user message `message_id`
        (`reply.user_message_id`), in the same scope, titled `fork of <this one's title>` unless
        `title` is given; this one is not changed. Send the edited message to the fork to re-run
        that turn, optionally on another `model`.

        Raises `ConversationNotFound` before this conversation is stored, `NotAUserMessage` (a
        `ValueError`) when `message_id` is not one of its user messages, `TurnInFlight` (a
        `RuntimeError`) while a turn is in flight."""
        source = self._id
        if source is None:
            raise ConversationNotFound('This conversation has no stored turn to fork yet.')
        store = self._engine.store
        await self._engine.writes.drain()
        row = await anyio.to_thread.run_sync(
            lambda: ConversationRepository(store).fork(
                source, message_id, origin=self._settings.origin, title=title
            )
        )
        settings = replace(self._settings, model=model) if model is not None else self._settings
        return AppConversation(self._engine, self._target, self._scope, settings, conversation_id=row.id)

    async def pending(self) -> list[PausedCall]:
        """The tool calls that wait for a decision, as stored (none before the first turn)."""
        if self._id is None:
            return []
        await self._engine.writes.drain()
        rows = await anyio.to_thread.run_sync(awaiting_calls, self._engine.store, self._id)
        return [waiting_call(row) for row in rows]

    async def decide(self, decisions: Mapping[str, bool | Decision | Mapping[str, Any]]) -> Reply:
        """Answer every waiting tool call and resume the run; its reply once stored.

        A decision is `True` (approve), `False` or `Decision(approved=False, reason=...)` (deny),
        or `Decision(result=..., has_result=True)` / `{'result': ...}` for a call made outside the
        run. Raises `DecisionsInvalid` for answers that do not match the waiting calls, and
        `NotAwaiting` when nothing waits (or another process decided first)."""
        answers = read_decisions(decisions)
        return await self._reply(self._turn('', (), events=False, decisions=answers))

    async def send(self, message: str, *, attachments: Sequence[Attachment] = ()) -> Reply:
        """Run one turn and return its reply once it is stored.

        A run that fails raises its own exception (a provider error, `UsageLimitExceeded`, ...)
        after the error card is stored, with a note naming the conversation."""
        return await self._reply(self._turn(message, attachments, events=False))

    async def stream(
        self, message: str, *, attachments: Sequence[Attachment] = ()
    ) -> AsyncGenerator[AgentStreamEvent | AgentRunResultEvent[Any], None]:
        """Run one turn, yielding pydantic-ai's events as they happen; the last is the run's result,
        after the answer is stored. A failed run raises after its last event. Stop early with
        `contextlib.aclosing(...)`: the turn is then stored as interrupted."""
        async with aclosing(self._turn(message, attachments, events=True)) as turn:
            async for event in turn:
                yield event

    async def _reply(self, turn: AsyncGenerator[Any, None]) -> Reply:
        """Run `turn` (which yields nothing when it is not streamed) to its end; its reply."""
        async with aclosing(turn):
            await anext(turn, None)
        assert self.last_reply is not None
        return self.last_reply

    async def _turn(
        self,
        message: str,
        attachments: Sequence[Attachment],
        *,
        events: bool,
        decisions: Decisions | None = None,
    ) -> AsyncGenerator[Any, None]:
        uploads = self._uploads(message, attachments) if decisions is None else []
        async with self._lock:
            request = TurnRequest(
                self._target,
                message,
                uploads,
                conversation_id=self._id,
                model_id=self._settings.model if isinstance(self._settings.model, str) else None,
                model_settings=self._settings.model_settings,
                preset=self._settings.preset,
                origin=self._settings.origin,
                scope=self._scope,
                usage_limits=self._settings.usage_limits,
                capabilities=self._settings.capabilities,
                decisions=decisions,
                module=self._settings.module,
                parent_run_id=self._settings.parent_run_id,
                trace_parent=self._settings.trace_parent,
                workflow_run_id=self._settings.workflow_run_id,
            )
            prepared = await self._engine.prepare(request)  # or a domain error: `TURN_REFUSALS`
            if isinstance(self._settings.model, Model):
                prepared.model = self._settings.model
                prepared.model_name = self._settings.model.model_name
                prepared.provider = self._settings.model.system
            reader = TurnReader()
            async with aclosing(self._engine.stream(prepared)) as stream:
                async for event in stream:
                    if reader.read(event):
                        if events and not _is_synapse_event(event):
                            yield event
                    elif isinstance(event, TurnFinished):
                        self._finish(event, reader)
                    elif isinstance(event, AgentRunResultEvent) and events:
                        yield event

    def _finish(self, finished: TurnFinished, reader: TurnReader) -> None:
        if finished.conversation_id is not None:
            self._id = finished.conversation_id
        result = reader.result
        if (error := reader.error) is not None:
            where = (
                f'conversation {finished.conversation_id}' if finished.conversation_id else 'no conversation'
            )
            error.add_note(f'Synapse stored this turn (status {finished.status}) in {where}.')
            raise error
        if result is None or finished.message_id is None or finished.user_message_id is None:
            raise TurnNotStored(f'The turn ended ({finished.status}) without its answer being stored.')
        self.last_reply = Reply(
            output=result.output,
            usage=finished.usage or result.usage,
            cost=finished.cost,
            message_id=finished.message_id,
            user_message_id=finished.user_message_id,
            conversation_id=self._id or finished.conversation_id or '',
            run_id=finished.run_id,
            model=finished.model,
            duration_ms=finished.duration_ms,
            result=result,
            awaiting=paused_calls(result.output),
        )

    def _uploads(self, message: str, attachments: Sequence[Attachment]) -> list[Upload]:
        """The files as uploads. The engine checks the turn like the playground's, before anything is
        stored (`chat/request.py`: `ValueError`s, `TurnInvalid`, naming the field)."""
        if not isinstance(message, str):
            raise TypeError(f'message: expected a string, got {type(message).__name__}.')
        if isinstance(attachments, str | Path | BinaryContent):
            raise TypeError('attachments: expected a list of files, got a single one.')
        return [_upload(item) for item in attachments]

    def __repr__(self) -> str:
        model = self._settings.model
        shown = model_id_of(model) if isinstance(model, Model) else model
        return (
            f'AppConversation(id={self._id!r}, agent={self.agent_key!r}, scope={self._scope!r}, '
            f'model={shown!r})'
        )


def _upload(item: Attachment) -> Upload:
    if isinstance(item, BinaryContent):
        name = item.identifier or 'file'
        return Upload(name, item.media_type, item.data)
    if isinstance(item, tuple):
        if len(item) not in (2, 3) or not isinstance(item[0], str) or not isinstance(item[1], bytes):
            raise TypeError('attachments: a tuple must be (name, bytes) or (name, bytes, media type).')
        media_type = item[2] if len(item) == 3 else mimetypes.guess_type(item[0])[0] or ''
        return Upload(item[0], str(media_type), item[1])
    if isinstance(item, str | Path):
        path = Path(item)
        if not path.is_file():
            raise FileNotFoundError(f'attachments: no file at {path}.')
        return Upload(path.name, mimetypes.guess_type(path.name)[0] or '', path.read_bytes())
    raise TypeError(
        f'attachments: expected a path, BinaryContent or (name, bytes), got {type(item).__name__}.'
    )


def _is_synapse_event(event: Any) -> bool:
    return isinstance(event, Notice | ToolTimed)
