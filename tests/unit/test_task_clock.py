"""The scheduler's tick on a controlled clock: due from the last run, a missed tick fires once, a
paused agent never fires, and several schedulers on one database fire each slot exactly once."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update

from synapse_agents.store import Store
from synapse_agents.tasks import clock, standing_store
from synapse_agents.tasks.standing_store import StandingInput, StandingPatch
from synapse_agents.tasks.tables import AgentTask, StandingAgent


def at(text: str) -> datetime:
    """An aware UTC datetime from `2026-03-29 00:30`."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


START = at('2026-01-05 10:00:30')


def every_five(store: Store, name: str = 'reporter', **values: object) -> StandingAgent:
    data = StandingInput(
        name=name,
        agent='synapse_agents.demo.agents.support-agent',
        instruction='Report the open orders.',
        cron='*/5 * * * *',
        **values,
    )
    return standing_store.create(store, data, now=START)


def tasks(store: Store, standing_id: str | None = None) -> list[AgentTask]:
    query = select(AgentTask).order_by(AgentTask.slot_at, AgentTask.id)
    if standing_id is not None:
        query = query.where(AgentTask.standing_agent_id == standing_id)
    with store.read() as session:
        return list(session.scalars(query))


def standing(store: Store, standing_id: str) -> StandingAgent:
    return standing_store.get(store, standing_id)


def test_a_new_schedule_counts_from_when_it_was_made(store: Store) -> None:
    row = every_five(store)
    assert row.next_fire_at == at('2026-01-05 10:05') and row.last_fired_at is None


def test_not_due_before_next_fire_at_and_due_at_it(store: Store) -> None:
    row = every_five(store, tenant='org:acme', subject='report:daily')
    assert clock.tick(store, now=at('2026-01-05 10:04:59.999')) == []
    assert tasks(store) == []
    (task_id,) = clock.tick(store, now=at('2026-01-05 10:05'))
    (task,) = tasks(store)
    assert task.id == task_id and task.standing_agent_id == row.id
    assert task.trigger == 'schedule' and task.status == 'queued' and task.fires == 1
    assert task.slot_at == at('2026-01-05 10:05') and task.not_before == at('2026-01-05 10:05')
    assert (task.tenant_type, task.tenant_id) == ('org', 'acme')
    assert task.subject_key == 'report:daily' and task.instruction == 'Report the open orders.'
    after = standing(store, row.id)
    assert after.next_fire_at == at('2026-01-05 10:10') and after.last_fired_at == at('2026-01-05 10:05')
    # The same moment again: the slot has fired.
    assert clock.tick(store, now=at('2026-01-05 10:05')) == []
    assert clock.tick(store, now=at('2026-01-05 10:09:59')) == []
    assert len(tasks(store)) == 1


def test_a_tick_after_the_slot_fires_that_slot(store: Store) -> None:
    every_five(store)
    clock.tick(store, now=at('2026-01-05 10:07:12'))
    (task,) = tasks(store)
    assert task.slot_at == at('2026-01-05 10:05')


def test_ticks_that_stop_for_23_minutes_fire_once_for_the_latest_slot(store: Store) -> None:
    row = every_five(store)
    assert len(clock.tick(store, now=at('2026-01-05 10:05:05'))) == 1
    # No tick from 10:05:05 to 10:28:05: the 10:10, 10:15, 10:20 and 10:25 slots passed unseen.
    (late,) = clock.tick(store, now=at('2026-01-05 10:28:05'))
    fired = tasks(store)
    assert [t.slot_at for t in fired] == [at('2026-01-05 10:05'), at('2026-01-05 10:25')]
    assert fired[1].id == late
    after = standing(store, row.id)
    assert after.next_fire_at == at('2026-01-05 10:30') and after.last_fired_at == at('2026-01-05 10:25')
    assert clock.tick(store, now=at('2026-01-05 10:29:59')) == []
    assert len(clock.tick(store, now=at('2026-01-05 10:30:01'))) == 1
    assert [t.slot_at for t in tasks(store)][-1] == at('2026-01-05 10:30')


def test_a_schedule_in_a_zone_fires_at_its_wall_clock_time(store: Store) -> None:
    data = StandingInput(
        name='morning', agent='a', instruction='Good morning.', cron='0 9 * * *', timezone='Europe/Madrid'
    )
    row = standing_store.create(store, data, now=at('2026-07-14 12:00'))
    assert row.next_fire_at == at('2026-07-15 07:00')
    assert clock.tick(store, now=at('2026-07-15 06:59')) == []
    assert len(clock.tick(store, now=at('2026-07-15 07:00'))) == 1
    assert standing(store, row.id).next_fire_at == at('2026-07-16 07:00')


def test_a_paused_agent_never_fires_and_resuming_does_not_catch_up(store: Store) -> None:
    row = every_five(store)
    paused = standing_store.set_enabled(store, row.id, False)
    assert not paused.enabled and paused.next_fire_at is None
    assert clock.tick(store, now=at('2026-01-05 10:05')) == []
    assert clock.tick(store, now=at('2026-01-05 12:00')) == []
    # Even a paused row that still has a fire time (written behind the services' back) is left alone.
    with store.write() as session:
        session.execute(
            update(StandingAgent)
            .where(StandingAgent.id == row.id)
            .values(next_fire_at=at('2026-01-05 10:05'))
        )
    assert clock.tick(store, now=at('2026-01-05 12:00')) == []
    resumed = standing_store.update(store, row.id, StandingPatch(enabled=True), now=at('2026-01-05 12:01:30'))
    assert resumed.enabled and resumed.next_fire_at == at('2026-01-05 12:05')
    assert clock.tick(store, now=at('2026-01-05 12:01:30')) == []
    assert tasks(store) == []
    clock.tick(store, now=at('2026-01-05 12:05:01'))
    assert [t.slot_at for t in tasks(store)] == [at('2026-01-05 12:05')]


def test_an_agent_without_a_schedule_is_never_due(store: Store) -> None:
    data = StandingInput(name='listener', agent='a', instruction='React.', events=['order.paid'])
    row = standing_store.create(store, data, now=START)
    assert row.next_fire_at is None
    assert clock.tick(store, now=at('2030-01-01 00:00')) == []


def test_a_row_whose_expression_became_invalid_stops_firing(store: Store) -> None:
    broken, fine = every_five(store, 'broken'), every_five(store, 'fine')
    with store.write() as session:
        session.execute(update(StandingAgent).where(StandingAgent.id == broken.id).values(cron='0 0 31 2 *'))
    queued = clock.tick(store, now=at('2026-01-05 10:05'))
    assert [t.standing_agent_id for t in tasks(store)] == [fine.id] and len(queued) == 1
    assert standing(store, broken.id).next_fire_at is None
    assert clock.tick(store, now=at('2026-01-05 11:00')) != []
    assert {t.standing_agent_id for t in tasks(store)} == {fine.id}


def test_a_tick_reads_every_due_agent_batch_by_batch(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clock, 'BATCH', 3)
    rows = [every_five(store, f'agent {index}') for index in range(8)]
    queued = clock.tick(store, now=at('2026-01-05 10:05'))
    assert len(queued) == 8 and len(set(queued)) == 8
    assert {t.standing_agent_id for t in tasks(store)} == {row.id for row in rows}
    assert clock.tick(store, now=at('2026-01-05 10:05')) == []


# -- several schedulers ---------------------------------------------------------------------------


@pytest.fixture
def other_stores(store: Store, tmp_path: Path) -> Iterator[list[Store]]:
    """Four more stores on the test's database, each with an engine of its own (another process)."""
    url = store.engine.url.render_as_string(hide_password=False)
    opened = [Store.open(url, tmp_path / 'home' / 'attachments') for _ in range(4)]
    yield opened
    for other in opened:
        other.close()


def test_schedulers_ticking_at_once_fire_each_slot_exactly_once(
    store: Store, other_stores: list[Store]
) -> None:
    agents = [every_five(store, f'agent {index}') for index in range(3)]
    rounds = 30
    barrier = threading.Barrier(len(other_stores))
    queued: list[list[str]] = [[] for _ in range(rounds)]
    lock = threading.Lock()
    errors: list[BaseException] = []

    def scheduler(own: Store) -> None:
        try:
            for index in range(rounds):
                barrier.wait(timeout=30)
                ids = clock.tick(own, now=at('2026-01-05 10:05') + timedelta(minutes=5 * index))
                with lock:
                    queued[index].extend(ids)
        except BaseException as exc:
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=scheduler, args=(own,)) for own in other_stores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert errors == []
    assert [len(ids) for ids in queued] == [len(agents)] * rounds
    fired = tasks(store)
    assert len(fired) == rounds * len(agents)
    slots = {(t.standing_agent_id, t.slot_at) for t in fired}
    expected = {
        (row.id, at('2026-01-05 10:05') + timedelta(minutes=5 * index))
        for row in agents
        for index in range(rounds)
    }
    assert slots == expected
    final = at('2026-01-05 10:05') + timedelta(minutes=5 * rounds)
    assert all(standing(store, row.id).next_fire_at == final for row in agents)


def test_a_change_that_leaves_the_schedule_alone_keeps_its_due_slot(store: Store) -> None:
    """Resuming an agent that runs, or renaming it, while a slot is due does not skip that slot."""
    row = every_five(store)
    late = at('2026-01-05 10:07')
    standing_store.update(store, row.id, StandingPatch(enabled=True), now=late)
    renamed = standing_store.update(store, row.id, StandingPatch(name='nightly report'), now=late)
    assert renamed.next_fire_at == at('2026-01-05 10:05')
    clock.tick(store, now=late)
    assert [t.slot_at for t in tasks(store)] == [at('2026-01-05 10:05')]
    changed = standing_store.update(store, row.id, StandingPatch(cron='*/10 * * * *'), now=late)
    assert changed.next_fire_at == at('2026-01-05 10:10')
