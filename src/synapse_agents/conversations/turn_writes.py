"""The writes of a chat turn, as functions of a `Connection` for the `WriteQueue`.

The conversation's counters (message and tool counts, tokens, cost) are set from its rows and its
ledger at the end of each turn (`conversations/totals.py`), never added up turn by turn, so they agree with
the ledger whatever write was lost; a turn's start only adds its two messages to `message_count`,
so the history list shows a turn in flight.

A turn's rows: the user message; an assistant row created `streaming` when the turn starts (so a
crash leaves evidence that `sweep_in_flight` finds) and completed at the end; a `tool_invocations`
row per tool call, `pending` until it finishes; an `llm_calls` row per model response; an `error`
row and `notice` rows when they happen. The streaming and pending rows name their owner, the
process running the turn (`store.instances`), so a sweep leaves the turns of live processes alone.

An answer ends `complete`, `failed` (the run raised: an error row follows, its pending tools end
`error`) or `interrupted` (cut off: the client left, the server stopped or died; its pending tools
end `interrupted`).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    Connection,
    Integer,
    String,
    bindparam,
    delete,
    func,
    insert,
    or_,
    update,
)

from ..store.ids import new_id
from ..store.instances import LEASE_S, Instance, current, heartbeat, live_instances
from ..store.prepared import execute
from ..store.schema import Base, utcnow
from ..store.write_queue import Statement
from .decisions import release_claims
from .tables import Conversation, Message, ToolInvocation
from .totals import end_totals, reconcile_in_flight, reconcile_totals

TITLE_LENGTH = 100


def title_from(message: str) -> str:
    """A conversation title: the first user message, whitespace collapsed; a longer one is cut at
    the last word that fits and ends with an ellipsis (100 characters at most, the ellipsis
    included). A single word longer than that is cut inside it."""
    text = ' '.join(message.split())
    if len(text) <= TITLE_LENGTH:
        return text
    cut = text[: TITLE_LENGTH - 1]
    if text[TITLE_LENGTH - 1] != ' ' and ' ' in cut:
        cut = cut.rsplit(' ', 1)[0]
    return cut.rstrip() + '…'


@dataclass
class TurnStart:
    """What is known when a turn begins."""

    conversation_id: str
    new_conversation: bool
    agent_key: str
    agent_name: str
    run_id: str
    user_message_id: str
    assistant_message_id: str
    content: str
    attachments: list[dict[str, Any]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    origin: str = 'playground'
    """Where a new conversation was opened (`playground`, `app`, `task`, `workflow`)."""
    tenant_type: str | None = None
    tenant_id: str | None = None
    actor_type: str | None = None
    actor_id: str | None = None
    subject_type: str | None = None
    subject_id: str | None = None
    """The new conversation's scope columns (a continued conversation keeps its own)."""
    owner: str = field(default_factory=lambda: current().id)
    """The instance running the turn: this process unless told otherwise."""
    user_meta: dict[str, Any] = field(default_factory=dict)
    """The user row's `meta` (the decisions a turn resumes a paused run with)."""


@dataclass
class TurnEnd:
    """How a turn ended: the assistant row's final state and the turn's totals."""

    assistant_message_id: str
    conversation_id: str
    status: str
    """`complete`, `failed` (with `error`) or `interrupted`."""
    content: str
    parts: list[dict[str, Any]]
    model_messages: list[Any] | None
    usage: dict[str, Any] | None
    input_tokens: int
    output_tokens: int
    cost: Decimal | None
    duration_ms: int
    meta: dict[str, Any]
    error: ErrorRecord | None = None
    notices: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    tool_count: int = 0
    """Function and native tool calls recorded in this turn (added to the conversation's count)."""
    claimed: tuple[str, ...] = ()
    """The paused calls whose decisions this turn carried: no longer held once it completes."""


@dataclass
class ErrorRecord:
    """An error card: exception class, message, traceback and whether retrying may help."""

    message_id: str
    exception_class: str
    message: str
    traceback: str
    recoverable: bool
    tool_status: str = 'error'
    provider: dict[str, Any] | None = None
    """What the provider said (status, type, code, message, retry_after, model), when it refused."""


_conversations = Base.metadata.tables[Conversation.__tablename__]
_messages = Base.metadata.tables[Message.__tablename__]
_tools = Base.metadata.tables[ToolInvocation.__tablename__]

# Statements are built once with bound parameters, so each write only binds values: building a
# statement per write (with its values inline) costs several times more than executing it.
_INSERT_CONVERSATION = insert(_conversations)
_INSERT_MESSAGE = insert(_messages)
_INSERT_TOOL = insert(_tools)
_FINISH_TOOL = (
    update(_tools)
    .where(_tools.c.id == bindparam('b_id'))
    .values(
        status=bindparam('b_status'),
        result=bindparam('b_result', type_=_tools.c.result.type),
        error=bindparam('b_error'),
        duration_ms=bindparam('b_duration_ms'),
        finished_at=bindparam('b_finished_at', type_=_tools.c.finished_at.type),
        provider_status=func.coalesce(
            bindparam('b_provider_status', type_=String()), _tools.c.provider_status
        ),
    )
)
_TOUCH = (
    update(_conversations)
    .where(_conversations.c.id == bindparam('b_id'))
    .values(
        updated_at=bindparam('b_now', type_=_conversations.c.updated_at.type),
        message_count=_conversations.c.message_count + bindparam('b_messages', type_=Integer()),
    )
)


_COMPLETE_MESSAGE = (
    update(_messages)
    .where(_messages.c.id == bindparam('b_id'))
    .values(
        status=bindparam('b_status'),
        content=bindparam('b_content'),
        parts=bindparam('b_parts', type_=_messages.c.parts.type),
        model_messages=bindparam('b_model_messages', type_=_messages.c.model_messages.type),
        usage=bindparam('b_usage', type_=_messages.c.usage.type),
        input_tokens=bindparam('b_input_tokens'),
        output_tokens=bindparam('b_output_tokens'),
        cost=bindparam('b_cost'),
        duration_ms=bindparam('b_duration_ms'),
        meta=bindparam('b_meta', type_=_messages.c.meta.type),
    )
)


def _touch(connection: Connection, conversation_id: str, *, messages: int) -> None:
    """Bump `updated_at` and add `messages` to the message count (a turn starting)."""
    execute(connection, _TOUCH, {'b_id': conversation_id, 'b_now': utcnow(), 'b_messages': messages})


def begin_turn(start: TurnStart) -> Callable[[Connection], None]:
    """Create the conversation when new, store the user message and the streaming assistant row."""

    def op(connection: Connection) -> None:
        now = utcnow()
        if start.new_conversation:
            execute(
                connection,
                _INSERT_CONVERSATION,
                {
                    'id': start.conversation_id,
                    'agent_key': start.agent_key,
                    'agent_name': start.agent_name,
                    'title': title_from(start.content),
                    'origin': start.origin,
                    'tenant_type': start.tenant_type,
                    'tenant_id': start.tenant_id,
                    'actor_type': start.actor_type,
                    'actor_id': start.actor_id,
                    'subject_type': start.subject_type,
                    'subject_id': start.subject_id,
                    'has_error': False,
                    'message_count': 2,
                    'tool_count': 0,
                    'input_tokens': 0,
                    'output_tokens': 0,
                    'cost': None,
                    'created_at': now,
                    'updated_at': now,
                },
            )
        else:
            _touch(connection, start.conversation_id, messages=2)
        common = {
            'conversation_id': start.conversation_id,
            'run_id': start.run_id,
            'created_at': now,
            'details': {},
        }
        execute(
            connection,
            _INSERT_MESSAGE,
            [
                {
                    **common,
                    'id': start.user_message_id,
                    'role': 'user',
                    'status': 'complete',
                    'content': start.content,
                    'attachments': start.attachments,
                    'meta': start.user_meta,
                    'owner': None,
                },
                {
                    **common,
                    'id': start.assistant_message_id,
                    'role': 'assistant',
                    'status': 'streaming',
                    'content': '',
                    'attachments': [],
                    'meta': start.meta,
                    'owner': start.owner,
                },
            ],
        )

    return op


def tool_started(row: dict[str, Any]) -> Statement:
    """Insert a tool invocation row (usually `pending`, owned by this process unless `row` names an
    `owner`); counted in the conversation at the turn's end."""
    return Statement(_INSERT_TOOL, {**_TOOL_DEFAULTS, 'owner': current().id, **row})


_TOOL_DEFAULTS: dict[str, Any] = {
    'result': None,
    'provider_status': None,
    'error': None,
    'duration_ms': None,
    'finished_at': None,
}


def tool_finished(
    tool_id: str,
    *,
    status: str,
    result: Any = None,
    error: str | None = None,
    duration_ms: int | None,
    finished_at: datetime,
    provider_status: str | None = None,
) -> Statement:
    """Complete a tool invocation with its result or error."""
    return Statement(
        _FINISH_TOOL,
        {
            'b_id': tool_id,
            'b_status': status,
            'b_result': result,
            'b_error': error,
            'b_duration_ms': duration_ms,
            'b_finished_at': finished_at,
            'b_provider_status': provider_status,
        },
    )


def end_turn(end: TurnEnd, *, started: Future[Any] | None = None) -> Callable[[Connection], bool]:
    """Complete the assistant row, add error and notice rows, settle tools left pending, set totals.

    `started` is the turn's `begin_turn` write: when it failed, the turn has no rows to complete,
    and only the totals are reconciled (a ledger row may have been written). The op returns
    whether the turn's rows were written.
    """

    def op(connection: Connection) -> bool:
        # The writer runs writes in order, so a failed `begin_turn` has failed by now; one still
        # pending is in this very batch, which commits or fails as a whole.
        if started is not None and started.done() and started.exception() is not None:
            reconcile_totals(connection, end.conversation_id)
            return False
        now = utcnow()
        keep = bool(end.content or end.parts) or end.error is None or end.tool_count > 0
        if keep:
            execute(
                connection,
                _COMPLETE_MESSAGE,
                {
                    'b_id': end.assistant_message_id,
                    'b_status': end.status,
                    'b_content': end.content,
                    'b_parts': end.parts,
                    'b_model_messages': end.model_messages,
                    'b_usage': end.usage,
                    'b_input_tokens': end.input_tokens,
                    'b_output_tokens': end.output_tokens,
                    'b_cost': end.cost,
                    'b_duration_ms': end.duration_ms,
                    'b_meta': end.meta,
                },
            )
        else:
            connection.execute(delete(_messages).where(_messages.c.id == end.assistant_message_id))
        rows: list[dict[str, Any]] = [
            {
                'id': new_id(),
                'conversation_id': end.conversation_id,
                'run_id': None,
                'role': 'notice',
                'status': 'complete',
                'content': content,
                'attachments': [],
                'meta': meta,
                'details': {},
                'created_at': now,
            }
            for content, meta in end.notices
        ]
        error = end.error
        if error is not None:
            rows.append(
                {
                    # With no answer kept, the card takes the answer's id: the one the stream announced.
                    'id': error.message_id if keep else end.assistant_message_id,
                    'conversation_id': end.conversation_id,
                    'run_id': None,
                    'role': 'error',
                    'status': 'complete',
                    'content': error.message,
                    'attachments': [],
                    'meta': {},
                    'details': {
                        'class': error.exception_class,
                        'traceback': error.traceback,
                        'recoverable': error.recoverable,
                        **({'provider': error.provider} if error.provider else {}),
                    },
                    'created_at': now,
                }
            )
        if rows:
            execute(connection, _INSERT_MESSAGE, rows)
        if end.status != 'complete' or error is not None:
            settle = error.tool_status if error is not None else 'interrupted'
            message = error.message if error is not None else 'The turn was interrupted.'
            connection.execute(
                update(_tools)
                .where(_tools.c.message_id == end.assistant_message_id, _tools.c.status == 'pending')
                .values(status=settle, error=message, finished_at=now)
            )
        if end.status == 'complete' and error is None:
            release_claims(connection, end.claimed)
        end_totals(connection, end.conversation_id, now=now, error=error is not None)
        return True

    return op


def abandon_turn(assistant_message_id: str, conversation_id: str) -> Callable[[Connection], None]:
    """A turn whose final write failed: mark what its start stored as interrupted, reconcile totals.

    Queued after the failed write; it needs no new space (updates in place), so it often succeeds
    where the final write could not, and the thread does not keep a `streaming` answer.
    """

    def op(connection: Connection) -> None:
        connection.execute(
            update(_messages)
            .where(_messages.c.id == assistant_message_id, _messages.c.status == 'streaming')
            .values(status='interrupted')
        )
        connection.execute(
            update(_tools)
            .where(_tools.c.message_id == assistant_message_id, _tools.c.status == 'pending')
            .values(status='interrupted', error='The turn could not be saved.', finished_at=utcnow())
        )
        reconcile_totals(connection, conversation_id)

    return op


def sweep_in_flight(
    connection: Connection, instance: Instance | None = None, lease_s: float = LEASE_S
) -> tuple[int, int]:
    """Mark interrupted the turns and tool calls left in flight by processes that are gone, and
    reconcile the totals of their conversations (they never had their final write); the counts.

    `instance` (this process by default) heart-beats first; the turns of every live instance
    (`store.instances.live_instances`), its own included, are left alone.
    """
    instance = instance or current()
    heartbeat(connection, instance)
    live = live_instances(connection, instance, lease_s)
    now = utcnow()
    reconcile_in_flight(connection, live)
    messages = connection.execute(
        update(Message)
        .where(Message.status == 'streaming', or_(Message.owner.is_(None), Message.owner.not_in(live)))
        .values(status='interrupted')
    )
    tools = connection.execute(
        update(ToolInvocation)
        .where(
            ToolInvocation.status == 'pending',
            or_(ToolInvocation.owner.is_(None), ToolInvocation.owner.not_in(live)),
        )
        .values(status='interrupted', error='Synapse stopped before the call finished.', finished_at=now)
    )
    return int(getattr(messages, 'rowcount', 0) or 0), int(getattr(tools, 'rowcount', 0) or 0)
