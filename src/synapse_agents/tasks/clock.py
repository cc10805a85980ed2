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
from typing import TYPE_CHECKING

from sqlalchemy import insert, select, update

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
        for row in fresh:
            seen.add(row.id)
            task_id = _fire(store, row, moment)
            if task_id is not None:
                queued.append(task_id)
        if len(due) < BATCH:
            return queued


def _fire(store: Store, row: StandingAgent, moment: datetime) -> str | None:
    """Claim `row`'s latest passed slot and queue its task; None when another scheduler did."""
    seen_next = row.next_fire_at
    assert seen_next is not None
    try:
        schedule = Schedule.parse(row.cron or '', row.timezone)
    except ScheduleError:
        # A row changed behind the services' back: stop it firing rather than fail every tick.
        with store.write() as session:
            session.execute(
                update(StandingAgent)
                .where(StandingAgent.id == row.id, StandingAgent.next_fire_at == seen_next)
                .values(next_fire_at=None)
            )
        return None
    slot = max(schedule.last_at_or_before(moment), seen_next)
    values = task_values(row, trigger='schedule', now=moment, slot_at=slot)
    with store.write() as session:
        claimed = session.execute(
            update(StandingAgent)
            .where(
                StandingAgent.id == row.id,
                StandingAgent.enabled.is_(True),
                StandingAgent.next_fire_at == seen_next,
            )
            .values(next_fire_at=schedule.next_after(slot), last_fired_at=slot)
        )
        if not getattr(claimed, 'rowcount', 0):
            return None
        session.execute(insert(AgentTask).values(**values))
    return str(values['id'])
