"""The stored side of paused tool calls: `awaiting` rows, claiming decisions, reopening them.

A paused call is a `tool_invocations` row with status `awaiting` and `provider_status` naming what
it waits for (`approval` or `external`), under the assistant message of the turn that paused.
Deciding changes it in place: `approved` (its execution is a row of the turn that resumes the
run), `denied` (`error` holds the reason) or `success` (`result` holds the supplied result).

`claim_decisions` is the one place a decision is taken, in the database: a single UPDATE takes the
rows that still wait, so of two servers deciding the same calls exactly one gets them, and the
other is told they were decided. A resumed turn that fails gives its calls back
(`reopen_decisions`): the run that would have carried the decision left no history, so the
conversation waits again.

A claim names its holder: `claimed_by` is the `store_instances` id of the process whose turn
carries the decisions, from the claim until that turn's final write (`release_claims`, in the same
transaction as the completed answer). A claim whose holder is no longer live (`store.instances`:
its process is gone, or its heartbeat is older than the lease) is dead: the turn that would have
carried it never began or never ended, and the sweep gives the calls back (`give_back_dead_claims`).
Liveness is the instances table's, so any server on the database decides it the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, bindparam, select, update
from sqlalchemy.orm import Session

from ..store.instances import current
from ..store.repository import Store
from ..store.schema import utcnow
from .tables import Message, ToolInvocation

AWAITING = 'awaiting'
_CLAIMING = 'deciding'


@dataclass(frozen=True)
class AwaitingCall:
    """A stored paused call."""

    row_id: str
    message_id: str | None
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    kind: str


def awaiting_calls(store: Store, conversation_id: str) -> list[AwaitingCall]:
    """The conversation's calls that wait for a decision, in the order they were made. Blocking."""
    with store.read() as session:
        return awaiting_calls_in(session, conversation_id)


def awaiting_calls_in(session: Session, conversation_id: str) -> list[AwaitingCall]:
    """`awaiting_calls` in an open read."""
    rows = session.execute(_AWAITING, {'conversation_id': conversation_id}).all()
    return [
        AwaitingCall(row_id, message_id, call_id, name, args or {}, kind or 'approval')
        for row_id, message_id, call_id, name, args, kind in rows
    ]


_AWAITING = (
    select(
        ToolInvocation.id,
        ToolInvocation.message_id,
        ToolInvocation.tool_call_id,
        ToolInvocation.name,
        ToolInvocation.arguments,
        ToolInvocation.provider_status,
    )
    .where(ToolInvocation.conversation_id == bindparam('conversation_id'), ToolInvocation.status == AWAITING)
    .order_by(ToolInvocation.started_at, ToolInvocation.id)
)


def paused_message_run(store: Store, message_id: str) -> Any:
    """The stored model messages of the turn that paused (the history a stateless agent resumes), as
    stored: the reader checks them (`chat/replay.py`). Blocking."""
    with store.read() as session:
        return session.execute(select(Message.model_messages).where(Message.id == message_id)).scalar()


@dataclass(frozen=True)
class Claim:
    """One row's decision, as it is stored."""

    row_id: str
    status: str
    error: str | None = None
    result: Any = None


def claim_decisions(claims: Sequence[Claim], holder: str | None = None) -> Callable[[Connection], bool]:
    """A write: store each claim on its row if every row still waits; True when it did.

    The rows are taken with one conditional UPDATE first, so a concurrent claim on another server
    (PostgreSQL re-checks the condition after the first commits) takes none of them. They are
    held by `holder` (this process's instance by default) until the resumed turn ends."""
    ids = [claim.row_id for claim in claims]
    held_by = holder or current().id

    def op(connection: Connection) -> bool:
        taken = connection.execute(
            update(ToolInvocation)
            .where(ToolInvocation.id.in_(ids), ToolInvocation.status == AWAITING)
            .values(status=_CLAIMING)
        )
        if (taken.rowcount or 0) != len(ids):
            connection.execute(
                update(ToolInvocation)
                .where(ToolInvocation.id.in_(ids), ToolInvocation.status == _CLAIMING)
                .values(status=AWAITING)
            )
            return False
        now = utcnow()
        for claim in claims:
            connection.execute(
                update(ToolInvocation)
                .where(ToolInvocation.id == claim.row_id)
                .values(
                    status=claim.status,
                    error=claim.error,
                    result=claim.result,
                    finished_at=now,
                    claimed_by=held_by,
                )
            )
        return True

    return op


def mark_awaiting(row_id: str, kind: str) -> Callable[[Connection], None]:
    """A write: a call that ran and deferred itself (`CallDeferred`, `ApprovalRequired`) waits, from
    now (so the waiting calls list in the order the run paused on them)."""

    def op(connection: Connection) -> None:
        connection.execute(
            update(ToolInvocation)
            .where(ToolInvocation.id == row_id)
            .values(status=AWAITING, provider_status=kind, owner=None, started_at=utcnow())
        )

    return op


def reopen_decisions(row_ids: Sequence[str]) -> Callable[[Connection], None]:
    """A write: the decided rows wait again (the turn that resumed the run failed)."""
    ids = list(row_ids)

    def op(connection: Connection) -> None:
        connection.execute(
            update(ToolInvocation)
            .where(ToolInvocation.id.in_(ids))
            .values(status=AWAITING, error=None, result=None, finished_at=None, claimed_by=None)
        )

    return op


def release_claims(connection: Connection, row_ids: Sequence[str]) -> None:
    """The turn that carried these decisions completed: they are settled, no longer held."""
    if row_ids:
        connection.execute(
            update(ToolInvocation)
            .where(ToolInvocation.id.in_(list(row_ids)), ToolInvocation.claimed_by.is_not(None))
            .values(claimed_by=None)
        )


def give_back_dead_claims(connection: Connection, live: Sequence[str]) -> int:
    """Decided calls held by an instance that is not in `live` wait again; how many.

    Run by the sweep after `store.instances.live_instances`: their turn never began, or died
    before its final write, so the tools they approved never ran to an answer."""
    result = connection.execute(
        update(ToolInvocation)
        .where(ToolInvocation.claimed_by.is_not(None), ToolInvocation.claimed_by.not_in(list(live)))
        .values(status=AWAITING, error=None, result=None, finished_at=None, claimed_by=None)
    )
    return int(getattr(result, 'rowcount', 0) or 0)
