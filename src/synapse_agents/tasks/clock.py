"""The scheduler's tick: queue one task for every standing agent whose next fire time has passed.

Due is measured from the last run: `next_fire_at` is the first fire time after the slot that fired
last, so a tick lost to a restart or a busy worker leaves it in the past and the next tick fires it
(once: the latest slot that has passed, never a backlog of every slot missed). A slot is claimed in
the database by a compare-and-set on `next_fire_at`: with several schedulers ticking on one
database (two `synapse serve`, several `synapse scheduler`) exactly one of them moves it on, and
only that one queues the task, in the same transaction. The tick reads only the agents that are due
(an index on `enabled, next_fire_at`), so 10,000 standing agents cost what the due ones cost.
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING, cast

from sqlalchemy import Table, bindparam, insert, select, update

from ..store.schema import utcnow
from .queue import task_values
from .schedule import Schedule, ScheduleError
from .tables import AgentTask, StandingAgent

if TYPE_CHECKING:
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
    tasks queued (a row another scheduler claimed first is left out).

    Rows are claimed in id order, so two schedulers claiming overlapping batches on PostgreSQL wait
    for each other's row locks in the same order (never a deadlock); the one that waited then finds
    `next_fire_at` moved on and claims nothing."""
    table = cast('Table', StandingAgent.__table__)
    claim = (
        update(table)
        .where(
            table.c.id == bindparam('claim_id'),
            table.c.enabled.is_(True),
            table.c.next_fire_at == bindparam('seen_next'),
        )
        .values(next_fire_at=bindparam('new_next'), last_fired_at=bindparam('slot'))
    )
    tasks: list[dict[str, object]] = []
    with store.write() as session:
        connection = session.connection()
        for row in sorted(rows, key=lambda found: found.id):
            seen_next = row.next_fire_at
            assert seen_next is not None
            schedule = _schedule(row.cron or '', row.timezone)
            if schedule is None:
                # A row changed behind the services' back: stop it firing rather than fail every tick.
                connection.execute(
                    claim,
                    {'claim_id': row.id, 'seen_next': seen_next, 'new_next': None, 'slot': row.last_fired_at},
                )
                continue
            slot = max(schedule.last_at_or_before(moment), seen_next)
            params = {
                'claim_id': row.id,
                'seen_next': seen_next,
                'new_next': schedule.next_after(slot),
                'slot': slot,
            }
            if getattr(connection.execute(claim, params), 'rowcount', 0):
                tasks.append(task_values(row, trigger='schedule', now=moment, slot_at=slot))
        if tasks:
            connection.execute(insert(cast('Table', AgentTask.__table__)), tasks)
    return [str(values['id']) for values in tasks]
