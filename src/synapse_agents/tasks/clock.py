"""The scheduler's tick: queue one task for every standing agent whose next fire time has passed.

Due is measured from the last run: `next_fire_at` is the first fire time after the slot that fired
last, so a tick lost to a restart or a busy worker leaves it in the past and the next tick fires it
(once: the latest slot that has passed, never a backlog of every slot missed). A slot is claimed in
the database by a compare-and-set on `next_fire_at`: with several schedulers ticking on one
database (two `synapse serve`, several `synapse scheduler`) exactly one of them moves it on, and
only that one queues the task, in the same transaction. On PostgreSQL a tick claims all its due
rows in one statement, after locking them with SKIP LOCKED (a row another scheduler is claiming is
left to it, so schedulers never wait for or deadlock on each other). The tick reads only the
agents that are due (an index on `enabled, next_fire_at`), so 10,000 standing agents cost what the
due ones cost.
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import String, Table, bindparam, column, insert, select, update, values

from ..store.schema import UtcDateTime, utcnow
from .queue import task_values
from .schedule import Schedule, ScheduleError
from .tables import AgentTask, StandingAgent

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

    from ..store import Store

BATCH = 500
"""Due agents read per statement (a tick after a long outage takes several)."""


def tick(store: Store, *, now: datetime | None = None) -> list[str]:
    """Fire every due schedule once; returns the ids of the tasks it queued."""
    moment = now or utcnow()
    queued: list[str] = []
    seen: set[str] = set()
    while True:
        with store.read() as session:
            due = list(
                session.scalars(
                    select(StandingAgent)
                    .where(StandingAgent.enabled.is_(True), StandingAgent.next_fire_at <= moment)
                    .order_by(StandingAgent.next_fire_at, StandingAgent.id)
                    .limit(BATCH)
                )
            )
            session.expunge_all()
        fresh = [row for row in due if row.id not in seen]
        if not fresh:
            return queued
        seen.update(row.id for row in fresh)
        queued.extend(_fire(store, fresh, moment))
        if len(due) < BATCH:
            return queued


@lru_cache(maxsize=4096)
def _schedule(cron: str, zone: str) -> Schedule | None:
    try:
        return Schedule.parse(cron, zone)
    except ScheduleError:
        return None


def _fire(store: Store, rows: list[StandingAgent], moment: datetime) -> list[str]:
    """Claim each row's latest passed slot and queue its task, in one transaction; the ids of the
    tasks queued (a row another scheduler claimed first is left out)."""
    planned: dict[str, tuple[StandingAgent, dict[str, Any]]] = {}
    for row in sorted(rows, key=lambda found: found.id):
        seen_next = row.next_fire_at
        assert seen_next is not None
        schedule = _schedule(row.cron or '', row.timezone)
        if schedule is None:
            # A row changed behind the services' back: stop it firing rather than fail every tick.
            claim: dict[str, Any] = {
                'claim_id': row.id,
                'seen_next': seen_next,
                'new_next': None,
                'slot': row.last_fired_at,
            }
            planned[row.id] = (row, claim)
            continue
        slot, following = seen_next, schedule.next_after(seen_next)
        if following <= moment:  # ticks were missed: fire the latest slot that passed, once
            slot = max(schedule.last_at_or_before(moment), seen_next)
            following = schedule.next_after(slot)
        planned[row.id] = (
            row,
            {'claim_id': row.id, 'seen_next': seen_next, 'new_next': following, 'slot': slot},
        )
    tasks: list[dict[str, Any]] = []
    with store.write() as session:
        connection = session.connection()
        claims = [claim for _row, claim in planned.values()]
        claimed = (
            _claim_all(connection, claims)
            if connection.dialect.name == 'postgresql'
            else _claim_each(connection, claims)
        )
        for row_id in sorted(claimed):
            row, claim = planned[row_id]
            if claim['new_next'] is not None:
                tasks.append(task_values(row, trigger='schedule', now=moment, slot_at=claim['slot']))
        if tasks:
            connection.execute(insert(cast('Table', AgentTask.__table__)), tasks)
    return [str(values['id']) for values in tasks]


def _claim_condition(table: Table, claim_id: Any, seen_next: Any) -> Any:
    return (table.c.id == claim_id) & table.c.enabled.is_(True) & (table.c.next_fire_at == seen_next)


def _claim_each(connection: Connection, claims: list[dict[str, Any]]) -> set[str]:
    """One compare-and-set per row (SQLite: one writer at a time, a statement costs microseconds)."""
    table = cast('Table', StandingAgent.__table__)
    statement = (
        update(table)
        .where(_claim_condition(table, bindparam('claim_id'), bindparam('seen_next')))
        .values(next_fire_at=bindparam('new_next'), last_fired_at=bindparam('slot'))
    )
    return {
        claim['claim_id'] for claim in claims if getattr(connection.execute(statement, claim), 'rowcount', 0)
    }


def _claim_all(connection: Connection, claims: list[dict[str, Any]]) -> set[str]:
    """Every compare-and-set in one statement (PostgreSQL).

    The rows are locked first in id order with SKIP LOCKED: a row another scheduler is claiming
    right now is left to it (never waited for, so two schedulers never deadlock), and a row it
    claimed and committed already fails the compare-and-set."""
    if not claims:
        return set()
    table = cast('Table', StandingAgent.__table__)
    ids = [claim['claim_id'] for claim in claims]
    locked = set(
        connection.scalars(
            select(table.c.id)
            .where(table.c.id.in_(ids))
            .order_by(table.c.id)
            .with_for_update(skip_locked=True)
        )
    )
    mine = [claim for claim in claims if claim['claim_id'] in locked]
    if not mine:
        return set()
    rows = values(
        column('claim_id', String),
        column('seen_next', UtcDateTime()),
        column('new_next', UtcDateTime()),
        column('slot', UtcDateTime()),
        name='claims',
    ).data([(c['claim_id'], c['seen_next'], c['new_next'], c['slot']) for c in mine])
    statement = (
        update(table)
        .where(_claim_condition(table, rows.c.claim_id, rows.c.seen_next))
        .values(next_fire_at=rows.c.new_next, last_fired_at=rows.c.slot)
        .returning(table.c.id)
    )
    return set(connection.scalars(statement))
