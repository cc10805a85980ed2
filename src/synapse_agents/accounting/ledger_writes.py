"""The ledger's writes: a model call's `llm_calls` row, and the spending reservation it settles.

Each is a write for the store's write queue (a `Statement`, or a function of the connection when
two statements must share a transaction): the chat recorder submits them as a turn's model calls
end, and the spending limits settle or release a reservation with them (`limits.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, bindparam, delete, insert

from ..store.prepared import execute
from ..store.schema import Base
from ..store.write_queue import Statement
from .tables import LlmCall, SpendingReservation

_llm_calls = Base.metadata.tables[LlmCall.__tablename__]
_reservations = Base.metadata.tables[SpendingReservation.__tablename__]

# Built once with bound parameters: each write only binds values.
_INSERT_LLM_CALL = insert(_llm_calls)
_DELETE_RESERVATION = delete(_reservations).where(_reservations.c.id == bindparam('b_id'))


def record_llm_call(
    row: dict[str, Any], reservation_id: str | None = None
) -> Statement | Callable[[Connection], None]:
    """Add a ledger row for one model response, and delete the spending reservation it settles in
    the same transaction (so the call is never counted twice, or not at all)."""
    if reservation_id is None:
        return Statement(_INSERT_LLM_CALL, row)

    def op(connection: Connection) -> None:
        execute(connection, _INSERT_LLM_CALL, row)
        execute(connection, _DELETE_RESERVATION, {'b_id': reservation_id})

    return op


def release_reservation(reservation_id: str) -> Statement:
    """Delete a spending reservation whose call failed or was cancelled."""
    return Statement(_DELETE_RESERVATION, {'b_id': reservation_id})
