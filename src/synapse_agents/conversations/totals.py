"""A conversation's counters, derived from its rows and its ledger instead of added up.

`conversations` keeps `message_count`, `tool_count`, `input_tokens`, `output_tokens` and `cost` so
the history list needs no join or aggregate. They are set, never incremented, from the rows they
summarise: the messages, the function and native tool rows (output-tool calls are not counted),
and the ledger (`llm_calls`: every model request billed for the conversation, whatever module made
it). One UPDATE with a correlated subquery per counter does it, valid on SQLite and PostgreSQL; each
subquery walks one conversation's rows through its `(conversation_id, ...)` index.

It runs at the end of every turn (`end_totals`) and in the sweep for the conversations a process
that is gone left in flight (`reconcile_in_flight`), so a lost write (a killed server, a
client that left, a failed insert) never leaves the counters disagreeing with the ledger.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, Connection, bindparam, case, cast, func, or_, select, update

from ..accounting.tables import LlmCall
from ..store.prepared import execute
from ..store.schema import Base
from .tables import Conversation, Message, ToolInvocation

_conversations = Base.metadata.tables[Conversation.__tablename__]
_messages = Base.metadata.tables[Message.__tablename__]
_tools = Base.metadata.tables[ToolInvocation.__tablename__]
_llm_calls = Base.metadata.tables[LlmCall.__tablename__]


def _of_conversation(table: Any) -> Any:
    return table.c.conversation_id == _conversations.c.id


def _ledger_sum(column: Any) -> Any:
    return select(func.coalesce(func.sum(column), 0)).where(_of_conversation(_llm_calls)).scalar_subquery()


TOTALS: dict[str, Any] = {
    'message_count': select(func.count()).where(_of_conversation(_messages)).scalar_subquery(),
    'tool_count': select(func.count())
    .where(_of_conversation(_tools), _tools.c.kind != 'output')
    .scalar_subquery(),
    'input_tokens': _ledger_sum(_llm_calls.c.input_tokens),
    'output_tokens': _ledger_sum(_llm_calls.c.output_tokens),
    # NULL while no ledger row has a known price: an unknown price adds nothing, never a made-up 0.
    # Exact on both databases: a NUMERIC sum on PostgreSQL, a sum of integer units on SQLite (`Money`).
    # In the reference currency, never two currencies added: a priced row's `cost_reference` (NULL
    # when its currency has no rate); a row from before prices were versioned, its `cost` (USD).
    'cost': select(
        func.sum(
            case(
                (_llm_calls.c.price_version.is_(None), _llm_calls.c.cost),
                else_=_llm_calls.c.cost_reference,
            )
        )
    )
    .where(_of_conversation(_llm_calls))
    .scalar_subquery(),
}
"""The counters as correlated subqueries of the conversation being updated."""

_RECONCILE = update(_conversations).where(_conversations.c.id == bindparam('b_id')).values(**TOTALS)
_END = (
    update(_conversations)
    .where(_conversations.c.id == bindparam('b_id'))
    .values(
        **TOTALS,
        updated_at=bindparam('b_now', type_=_conversations.c.updated_at.type),
        has_error=or_(_conversations.c.has_error, cast(bindparam('b_error', type_=Boolean()), Boolean())),
    )
)


def reconcile_totals(connection: Connection, conversation_id: str) -> None:
    """Set the conversation's counters from its rows and its ledger."""
    execute(connection, _RECONCILE, {'b_id': conversation_id})


def end_totals(connection: Connection, conversation_id: str, *, now: datetime, error: bool) -> None:
    """A turn ended: set the counters, bump `updated_at`, and flag the conversation if it failed."""
    execute(connection, _END, {'b_id': conversation_id, 'b_now': now, 'b_error': error})


def reconcile_in_flight(connection: Connection, live: Sequence[str] = ()) -> int:
    """Reconcile every conversation with a turn `streaming` or a tool call `pending` not owned by
    one of the `live` instances; how many.

    Run before those are marked interrupted (that is how the conversations are found).
    """
    in_flight = or_(
        _conversations.c.id.in_(
            select(_messages.c.conversation_id).where(
                _messages.c.status == 'streaming', _not_owned_by(_messages, live)
            )
        ),
        _conversations.c.id.in_(
            select(_tools.c.conversation_id).where(_tools.c.status == 'pending', _not_owned_by(_tools, live))
        ),
    )
    result = connection.execute(update(_conversations).where(in_flight).values(**TOTALS))
    return int(getattr(result, 'rowcount', 0) or 0)


def _not_owned_by(table: Any, live: Sequence[str]) -> Any:
    return or_(table.c.owner.is_(None), table.c.owner.not_in(list(live)))
