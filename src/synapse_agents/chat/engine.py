"""One chat turn: history in, events out, everything recorded. See docs/chat.md.

`ChatEngine.prepare` does the checks and reads that must happen before a stream starts (the
conversation exists and belongs to the agent, earlier turns as history, uploads saved, the
prices at hand (`accounting.pricing`), a configured agent's `access` admits the scope outside the playground:
`AgentAccessDenied` otherwise, the values for a deps schema pass it: `targets/deps_values.py`); it
refuses with the domain errors of `errors.py` (`TURN_REFUSALS`: no such conversation, another
agent's, a scope mismatch, calls waiting for decisions, uploads the disk refused, with the files
already written for the turn removed), which each front door words in its own way (the HTTP API's
statuses: `web/errors.py`). `ChatEngine.stream`
then yields the turn's domain events (`events.py`) and records it (`chat/turn.py`); encoding
them for a client is the front door's business (the HTTP route: `web/vercel.py`).

Database I/O never runs on the event loop: reads go to the threadpool, writes to the store's
`WriteQueue` (whose thread commits them in batches).
"""

from __future__ import annotations

import errno
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import Any

import anyio.to_thread
from pydantic_ai.messages import AgentStreamEvent, ModelMessage
from pydantic_ai.models import Model

from ..accounting.pricing import pricer
from ..conversations.decisions import AwaitingCall, Claim, awaiting_calls_in, claim_decisions
from ..conversations.deferred import (
    Decisions,
    check_answers,
    results_for,
    summary,
    waiting_call,
    waiting_text,
)
from ..conversations.repository import FACTS
from ..corrupt import CorruptRow, json_problem
from ..errors import (
    ApprovalPending,
    AttachmentsNotSaved,
    ConversationNotFound,
    DecisionsInvalid,
    NotAwaiting,
    ScopeMismatch,
    TurnInvalid,
    WrongAgent,
)
from ..events import Compressed, Notice, TurnEvent
from ..registry.providers import resolve_model
from ..scope import Scope
from ..settings import Settings
from ..store import Store
from ..store.ids import is_valid_id, new_id, shown_id
from ..store.write_queue import WriteQueue
from ..targets.deps_values import check_values, reads_stored
from ..targets.model_choice import DEMO_MODEL_ID, MissingApiKey
from ..targets.target import TurnTarget
from ..traces.hooks import current_place
from .attachments import SavedAttachment, save_uploads
from .deps import ServerDeps
from .prepared import PreparedTurn
from .replay import history_in, paused_history
from .request import InputLimits, TurnRequest, check_input
from .sub_agents import followers
from .turn import DepsUnavailable, TurnStream, remove_files

TURN_REFUSALS: tuple[type[Exception], ...] = (
    ConversationNotFound,
    WrongAgent,
    ScopeMismatch,
    ApprovalPending,
    NotAwaiting,
    DecisionsInvalid,
    TurnInvalid,  # DepsRejected among them
    AttachmentsNotSaved,
)
"""What `ChatEngine.prepare` raises when a request cannot start a turn (each is a domain error of
`errors.py`; the HTTP API answers each with its own status: `web/errors.py`)."""


class ChatEngine:
    """Runs chat turns against one store."""

    def __init__(
        self,
        store: Store,
        writes: WriteQueue,
        settings: Settings | None = None,
        *,
        on_compressed: Callable[[Compressed], None] | None = None,
    ) -> None:
        self.store = store
        self.on_compressed = on_compressed
        """Called when `Compression` summarises a conversation (the plugins' `conversation_compressed`)."""
        self.writes = writes
        self.settings = settings or Settings()
        """What the turns' ledger and spending limits use: currencies, `usage_recorder`, ..."""
        self.server_deps = ServerDeps()
        """The deps of `server` lifetime (`chat/deps.py`), torn down by `close_deps`."""

    @property
    def attachments_dir(self) -> Path:
        return self.store.attachments_dir

    async def close_deps(self) -> None:
        """Tear down the `server`-lifetime deps (when the server stops)."""
        await self.server_deps.aclose()

    async def prepare(self, turn: TurnRequest) -> PreparedTurn:
        """Check the request and load what the run needs; raises one of `TURN_REFUSALS` (the
        domain errors of `errors.py`) when the request cannot start a turn."""
        check_input(turn, InputLimits.of(self.settings))  # every front door's input, one way
        target = turn.target
        history: list[ModelMessage] = []
        new_conversation = turn.conversation_id is None
        scope = turn.scope
        conversation_id = turn.conversation_id or new_id()
        waiting: list[AwaitingCall] = []
        stored_deps: Any = None
        if new_conversation and turn.decisions is not None:
            raise TurnInvalid('decisions: answer the tool calls of a conversation: send its conversation_id.')
        if not new_conversation:
            if not is_valid_id(conversation_id):  # before the database or the disk sees it
                raise ConversationNotFound(f'No conversation with id {shown_id(conversation_id)}.')
            scope, waiting, stored_deps, history = await anyio.to_thread.run_sync(
                self._read_continued, turn, conversation_id
            )
        else:
            _check_access(target, scope, turn.origin)
        deps_values = _deps_values(target, turn.deps_values, stored_deps, conversation_id)
        prices = await pricer(self.store, self.settings)
        user_message_id = new_id()
        saved: list[SavedAttachment] = []
        if turn.uploads:
            try:
                saved = await anyio.to_thread.run_sync(
                    save_uploads, self.attachments_dir, conversation_id, user_message_id, turn.uploads
                )
            except OSError as exc:
                await anyio.to_thread.run_sync(
                    remove_files, self.attachments_dir, conversation_id, user_message_id
                )
                raise _uploads_not_saved(exc) from exc
        model, name, provider, error = await self._choose_model(target, turn.model_id)
        chosen = turn.model_id or target.own_model_id
        message, resume = turn.message, None
        claimed: tuple[str, ...] = ()
        user_meta: dict[str, Any] = {}
        if turn.decisions is not None:
            await self._claim(turn.decisions, waiting)
            calls = [waiting_call(c) for c in waiting]
            message = summary(turn.decisions, calls)
            resume = results_for(turn.decisions)
            claimed = tuple(c.row_id for c in waiting)
            user_meta = {'decisions': {k: v.as_json() for k, v in turn.decisions.items()}}
        return PreparedTurn(
            target=target,
            message=message,
            conversation_id=conversation_id,
            new_conversation=new_conversation,
            run_id=new_id(),
            user_message_id=user_message_id,
            assistant_message_id=new_id(),
            history=history,
            attachments=saved,
            model=model,
            model_name=name,
            provider=provider,
            setup_error=error,
            model_settings=turn.model_settings,
            preset=turn.preset or target.preset,
            origin=turn.origin,
            module=turn.module,
            scope=scope,
            usage_limits=turn.usage_limits,
            capabilities=tuple(turn.capabilities),
            parent_run_id=_parent_run_id(turn),
            trace_parent=turn.trace_parent,
            workflow_run_id=turn.workflow_run_id,
            sub_agents=followers(turn.sub_agents, target.agent),
            pricer=prices,
            settings=self.settings,
            price_hint=chosen if chosen in prices.book.models else None,
            resume=resume,
            claimed=claimed,
            user_meta=user_meta,
            deps_values=deps_values,
            deps_cache=self.server_deps,
            on_compressed=self.on_compressed,
        )

    def _read_continued(
        self, turn: TurnRequest, conversation_id: str
    ) -> tuple[Scope, list[AwaitingCall], Any, list[ModelMessage]]:
        """A continued conversation's scope, waiting calls, stored deps values and history, in one
        trip to a thread (blocking). Each read happens only once the checks before it passed: the
        history is never read for a conversation of another agent or scope."""
        target = turn.target
        with self.store.read() as session:  # one read, three statements
            conversation = session.execute(FACTS, {'id': conversation_id}).first()
            scope = _check_conversation(conversation, conversation_id, target.slug, turn.scope)
            _check_access(target, scope, turn.origin)
            waiting = awaiting_calls_in(session, conversation_id)
            _check_waiting(turn, waiting)
            stored_deps = conversation.deps_values if conversation is not None else None
            history: list[ModelMessage] = []
            if not target.stateless:
                history = history_in(session, conversation_id, self.attachments_dir)
        if target.stateless and waiting:  # a stateless agent resumes the run that paused, and only that run
            history = paused_history(self.store, waiting[0].message_id or '')
        return scope, waiting, stored_deps, history

    async def _claim(self, decisions: Decisions, waiting: list[AwaitingCall]) -> None:
        """Take the waiting rows for these decisions in the database, or refuse (decided elsewhere)."""
        claims = []
        for call in waiting:
            decision = decisions[call.tool_call_id]
            claims.append(Claim(call.row_id, decision.status, decision.stored_error, decision.result))
        if not await self.writes.run(claim_decisions(claims)):
            raise NotAwaiting('These tool calls were already decided.')

    async def _choose_model(
        self, target: TurnTarget, model_id: str | None
    ) -> tuple[Model | None, str | None, str | None, BaseException | None]:
        """The model to pass to the run (None: the agent's own), its name and provider, or the error.

        Any model id but the agent's own goes through the one resolver (`registry/providers.py`:
        demo ids, registry models, pydantic-ai model strings), in a thread since it reads rows."""
        if target.setup_error is not None:
            return None, None, None, target.setup_error
        agent_model = target.agent.model if target.agent is not None else None
        chosen = model_id or target.own_model_id or DEMO_MODEL_ID
        if chosen == target.own_model_id and target.own_model_error is not None:
            return None, None, None, target.own_model_error
        if chosen == target.own_model_id and agent_model is not None:
            if target.missing_env:
                return None, None, None, MissingApiKey(chosen, target.missing_env)
            if isinstance(agent_model, Model):
                return None, agent_model.model_name, agent_model.system, None
            provider, _, name = agent_model.partition(':')
            return None, name or agent_model, provider or None, None
        try:
            model = await anyio.to_thread.run_sync(
                resolve_model, self.store, self.settings.secret_key, chosen
            )
        except Exception as exc:
            return None, None, None, exc
        return model, model.model_name, model.system, None

    def stream(self, turn: PreparedTurn) -> AsyncGenerator[TurnEvent, None]:
        """The turn's events, each yielded the moment it exists (see `events.py`).

        Close the generator (`contextlib.aclosing`) when you stop reading early: the turn is then
        stored as interrupted at once rather than when the generator is collected."""
        return TurnStream(turn, self.writes, self.attachments_dir).events()


def _parent_run_id(turn: TurnRequest) -> str | None:
    """The run that started this turn: the one declared, else the traced run the caller is inside."""
    if turn.parent_run_id is not None:
        return turn.parent_run_id
    if turn.trace_parent is not None:
        return turn.trace_parent.run_id
    place = current_place()
    return place.run_id if place is not None else None


def _check_waiting(turn: TurnRequest, waiting: list[AwaitingCall]) -> None:
    """A conversation with paused calls takes only their decisions; decisions need paused calls."""
    if turn.decisions is None:
        if waiting:
            raise ApprovalPending(waiting_text([waiting_call(c) for c in waiting]))
        return
    if not waiting:
        raise NotAwaiting('No tool call of this conversation is waiting for a decision.')
    if turn.uploads:
        raise TurnInvalid('attachments: decisions are sent without files.')
    check_answers(turn.decisions, [waiting_call(c) for c in waiting])


def _check_conversation(conversation: Any, conversation_id: str, slug: str, scope: Scope) -> Scope:
    """The turn's scope, once the conversation is known to exist, to be this agent's and to keep the
    tenant and subject `scope` names (its history is read only after this)."""
    if conversation is None:
        raise ConversationNotFound(f'No conversation with id {shown_id(conversation_id)}.')
    if conversation.agent_key != slug:
        raise WrongAgent(
            f'Conversation {conversation_id!r} belongs to agent {conversation.agent_key!r}, not {slug!r}.'
        )
    stored = Scope.stored(conversation, 'conversations')
    if scope.empty:
        return stored
    return stored.continued_with(scope, conversation_id)


def _deps_values(
    target: TurnTarget, sent: dict[str, Any] | None, stored: Any, conversation_id: str
) -> dict[str, Any] | None:
    """The values for the agent's deps schema (`targets/deps_values.py`; `DepsRejected` refuses
    them); `CorruptRow` when the turn would run with stored values that cannot be read."""
    if reads_stored(target, sent) and (problem := json_problem('deps_values', stored, dict)) is not None:
        raise CorruptRow('conversations', conversation_id, f'{problem}: send new deps values')
    return check_values(target, sent, stored)


def _check_access(target: TurnTarget, scope: Scope, origin: str) -> None:
    """A configured agent's `access` rule, for every origin but the developer's playground."""
    if origin != 'playground' and not target.access.unrestricted:
        target.access.check(scope, target.slug)


_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


def _uploads_not_saved(error: OSError) -> AttachmentsNotSaved:
    """The uploads the disk refused: `full` when it has no room left."""
    reason = error.strerror or str(error)
    return AttachmentsNotSaved(f'The attachments could not be saved: {reason}.', full=error.errno in _FULL)


__all__ = [
    'TURN_REFUSALS',
    'AgentStreamEvent',
    'ChatEngine',
    'DepsUnavailable',
    'Notice',
    'PreparedTurn',
    'TurnEvent',
    'TurnRequest',
]
