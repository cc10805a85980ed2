"""The task queue: an exclusive claim (also under a race), not before its time, heartbeats that
carry cancel requests, cancelling in each status, and the sweep of tasks whose worker went quiet."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from synapse_agents.errors import TaskError
from synapse_agents.store import Store
from synapse_agents.tasks import events, queue, standing_store
from synapse_agents.tasks.queue import Outcome, TaskFilters
from synapse_agents.tasks.standing_store import StandingInput
from synapse_agents.tasks.tables import StandingAgent

NOW = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)
UNKNOWN = '01a2323d-85fd-759b-ad3a-9ad59e413935'
"""A valid id nothing has."""


def later(seconds: float) -> datetime:
    return NOW + timedelta(seconds=seconds)


def an_agent(store: Store, name: str = 'clerk', **values: object) -> StandingAgent:
    data = StandingInput(name=name, agent='app.clerk', instruction='File the papers.', **values)
    return standing_store.create(store, data, now=NOW - timedelta(hours=1))


def a_task(store: Store, agent: StandingAgent | None = None) -> str:
    return queue.enqueue_manual(store, (agent or an_agent(store)).id, now=NOW)


def status(store: Store, task_id: str) -> str:
    return queue.get_task(store, task_id)[0].status


# -- enqueue and claim ----------------------------------------------------------------------------


def test_run_now_queues_a_manual_task_even_for_a_paused_agent(store: Store) -> None:
    agent = an_agent(store, tenant='org:acme', enabled=False)
    task_id = queue.enqueue_manual(store, agent.id, now=NOW)
    task, logs = queue.get_task(store, task_id)
    assert task.trigger == 'manual' and task.status == 'queued' and logs == []
    assert (task.tenant_type, task.tenant_id) == ('org', 'acme') and task.not_before == NOW


@pytest.mark.parametrize('standing_id', [UNKNOWN, 'not-an-id', ''])
def test_run_now_of_an_unknown_agent_is_a_404(store: Store, standing_id: str) -> None:
    with pytest.raises(TaskError) as caught:
        queue.enqueue_manual(store, standing_id)
    assert caught.value.status == 404 and 'No standing agent' in caught.value.message


def test_a_claim_starts_the_task_once(store: Store) -> None:
    task_id = a_task(store)
    assert queue.claimable(store, 10, now=NOW) == [task_id]
    assert queue.claim(store, task_id, 'host:1:serve', now=later(1))
    task = queue.get_task(store, task_id)[0]
    assert task.status == 'running' and task.worker == 'host:1:serve'
    assert task.started_at == later(1) and task.heartbeat_at == later(1)
    assert not queue.claim(store, task_id, 'host:2:serve', now=later(2))
    assert not queue.claim(store, task_id, 'host:1:serve', now=later(2))
    assert queue.claimable(store, 10, now=later(2)) == []
    assert queue.get_task(store, task_id)[0].worker == 'host:1:serve'


def test_claimable_lists_due_tasks_oldest_first(store: Store) -> None:
    agent = an_agent(store)
    first, second, third = (queue.enqueue_manual(store, agent.id, now=later(n)) for n in (0, 1, 2))
    assert queue.claimable(store, 10, now=later(5)) == [first, second, third]
    assert queue.claimable(store, 2, now=later(5)) == [first, second]
    assert queue.claimable(store, 10, now=later(1)) == [first, second]


def test_a_debounced_task_is_not_claimable_before_its_window_ends(store: Store) -> None:
    an_agent(store, events=['order.paid'], debounce_seconds=30)
    (task_id,) = events.fire(store, 'order.paid', now=NOW).queued
    assert queue.claimable(store, 10, now=later(29)) == []
    assert not queue.claim(store, task_id, 'w', now=later(29))
    assert status(store, task_id) == 'queued'
    assert queue.claimable(store, 10, now=later(30)) == [task_id]
    assert queue.claim(store, task_id, 'w', now=later(30))


@pytest.fixture
def other_stores(store: Store, tmp_path: Path) -> Iterator[list[Store]]:
    """Six more stores on the test's database, each with an engine of its own (another worker)."""
    url = store.engine.url.render_as_string(hide_password=False)
    opened = [Store.open(url, tmp_path / 'home' / 'attachments') for _ in range(6)]
    yield opened
    for other in opened:
        other.close()


def test_workers_racing_for_a_task_claim_it_exactly_once(store: Store, other_stores: list[Store]) -> None:
    agent = an_agent(store)
    task_ids = [a_task(store, agent) for _ in range(20)]
    barrier = threading.Barrier(len(other_stores))
    won: dict[str, list[str]] = {task_id: [] for task_id in task_ids}
    errors: list[BaseException] = []
    lock = threading.Lock()

    def worker(own: Store, name: str) -> None:
        try:
            for task_id in task_ids:
                barrier.wait(timeout=30)
                if queue.claim(own, task_id, name, now=later(1)):
                    with lock:
                        won[task_id].append(name)
        except BaseException as exc:
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=worker, args=(own, f'w{i}')) for i, own in enumerate(other_stores)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    assert all(len(winners) == 1 for winners in won.values()), won
    for task_id, (winner,) in won.items():
        assert queue.get_task(store, task_id)[0].worker == winner


# -- heartbeat, finish, cancel ------------------------------------------------------------------


def test_a_heartbeat_keeps_the_task_alive_and_carries_a_cancel_request(store: Store) -> None:
    task_id = a_task(store)
    queue.claim(store, task_id, 'w1', now=NOW)
    assert queue.heartbeat(store, task_id, 'w1', now=later(10)) is False
    assert queue.get_task(store, task_id)[0].heartbeat_at == later(10)
    cancelled = queue.cancel(store, task_id, now=later(11))
    assert cancelled.status == 'running' and cancelled.cancel_requested
    assert queue.heartbeat(store, task_id, 'w1', now=later(12)) is True
    # Another worker's heartbeat touches nothing and is told to stop.
    assert queue.heartbeat(store, task_id, 'w2', now=later(13)) is True
    assert queue.get_task(store, task_id)[0].heartbeat_at == later(12)


def test_finish_records_the_outcome_of_the_workers_run(store: Store) -> None:
    task_id = a_task(store)
    queue.claim(store, task_id, 'w1', now=NOW)
    outcome = Outcome('succeeded', output={'filed': 3}, input_tokens=12, output_tokens=4)
    assert not queue.finish(store, task_id, 'w2', outcome, now=later(2))
    assert queue.finish(store, task_id, 'w1', outcome, now=later(2.5))
    task = queue.get_task(store, task_id)[0]
    assert task.status == 'succeeded' and task.output == {'filed': 3}
    assert (task.input_tokens, task.output_tokens, task.cost) == (12, 4, None)
    assert task.finished_at == later(2.5) and task.duration_ms == 2500
    assert queue.heartbeat(store, task_id, 'w1') is True  # no longer running: stop
    assert not queue.finish(store, task_id, 'w1', Outcome('failed', error='again'), now=later(3))
    assert queue.get_task(store, task_id)[0].status == 'succeeded'


def test_cancelling_a_queued_task_cancels_it_at_once(store: Store) -> None:
    task_id = a_task(store)
    cancelled = queue.cancel(store, task_id, now=later(3))
    assert cancelled.status == 'cancelled' and cancelled.finished_at == later(3)
    assert cancelled.error == 'Cancelled before it started.'
    task = queue.get_task(store, task_id)[0]
    assert task.status == 'cancelled' and not task.cancel_requested
    assert not queue.claim(store, task_id, 'w1', now=later(4))
    assert queue.claimable(store, 10, now=later(4)) == []


def test_cancelling_a_running_task_asks_its_worker(store: Store) -> None:
    task_id = a_task(store)
    queue.claim(store, task_id, 'w1', now=NOW)
    queue.cancel(store, task_id, now=later(1))
    task = queue.get_task(store, task_id)[0]
    assert task.status == 'running' and task.cancel_requested and task.finished_at is None
    assert queue.finish(store, task_id, 'w1', Outcome('cancelled', error='Stopped.'), now=later(2))
    assert status(store, task_id) == 'cancelled'


@pytest.mark.parametrize('final', ['succeeded', 'failed', 'cancelled'])
def test_cancelling_a_finished_task_is_a_409(store: Store, final: str) -> None:
    task_id = a_task(store)
    if final == 'cancelled':
        queue.cancel(store, task_id)
    else:
        queue.claim(store, task_id, 'w1', now=NOW)
        queue.finish(store, task_id, 'w1', Outcome(final), now=later(1))
    with pytest.raises(TaskError) as caught:
        queue.cancel(store, task_id)
    assert caught.value.status == 409 and f'already {final}' in caught.value.message
    assert status(store, task_id) == final


@pytest.mark.parametrize('task_id', [UNKNOWN, 'nope', '../x'])
def test_cancelling_an_unknown_task_is_a_404(store: Store, task_id: str) -> None:
    with pytest.raises(TaskError) as caught:
        queue.cancel(store, task_id)
    assert caught.value.status == 404
    with pytest.raises(TaskError):
        queue.get_task(store, task_id)


# -- the sweep --------------------------------------------------------------------------------


def test_the_sweep_fails_only_running_tasks_whose_heartbeat_is_stale(store: Store) -> None:
    agent = an_agent(store)
    stale, fresh, waiting = a_task(store, agent), a_task(store, agent), a_task(store, agent)
    queue.claim(store, stale, 'host-a:41:serve', now=NOW)
    queue.append_logs(store, stale, [('started', 'Started.', None)])
    queue.claim(store, fresh, 'host-b:42:worker', now=NOW)
    queue.heartbeat(store, fresh, 'host-b:42:worker', now=later(100))
    assert queue.sweep(store, 120, now=later(120)) == []
    assert queue.sweep(store, 120, now=later(200)) == [stale]
    task, logs = queue.get_task(store, stale)
    assert task.status == 'failed' and task.finished_at == later(200)
    assert task.error is not None
    assert 'host-a:41:serve' in task.error and '2026-01-05 10:00:00' in task.error
    assert 'more than 120 s' in task.error
    assert [(log.seq, log.kind) for log in logs] == [(1, 'started'), (2, 'error')]
    assert logs[1].message == task.error
    assert status(store, fresh) == 'running' and status(store, waiting) == 'queued'
    assert queue.sweep(store, 120, now=later(200)) == []


def test_a_swept_task_cannot_be_finished_by_its_late_worker(store: Store) -> None:
    task_id = a_task(store)
    queue.claim(store, task_id, 'w1', now=NOW)
    (swept,) = queue.sweep(store, 60, now=later(61))
    error = queue.get_task(store, task_id)[0].error
    assert swept == task_id and queue.heartbeat(store, task_id, 'w1', now=later(62)) is True
    assert not queue.finish(store, task_id, 'w1', Outcome('succeeded', output='late'), now=later(63))
    task = queue.get_task(store, task_id)[0]
    assert task.status == 'failed' and task.output is None and task.error == error
    assert task.finished_at == later(61)


# -- logs and reading ---------------------------------------------------------------------------


def test_log_steps_are_appended_in_order(store: Store) -> None:
    task_id = a_task(store)
    queue.append_logs(store, task_id, [('started', 'a', None), ('notice', 'b', {'k': 1})])
    queue.append_logs(store, task_id, [])
    queue.append_logs(store, task_id, [('finished', 'c', None)])
    logs = queue.get_task(store, task_id)[1]
    assert [(log.seq, log.kind, log.message, log.data) for log in logs] == [
        (1, 'started', 'a', None),
        (2, 'notice', 'b', {'k': 1}),
        (3, 'finished', 'c', None),
    ]


def test_tasks_are_listed_newest_first_by_filter_and_page(store: Store) -> None:
    acme, other = an_agent(store, 'acme', tenant='org:acme'), an_agent(store, 'other')
    acme_tasks = [a_task(store, acme) for _ in range(3)]
    other_task = a_task(store, other)
    queue.claim(store, acme_tasks[0], 'w', now=NOW)

    def ids(**filters: object) -> list[str]:
        return [t.id for t in queue.list_tasks(store, TaskFilters(**filters))]  # type: ignore[arg-type]

    assert ids() == [other_task, *reversed(acme_tasks)]
    assert ids(tenant='org:acme') == list(reversed(acme_tasks)) == ids(tenant='org')
    assert ids(standing_agent_id=other.id) == [other_task]
    assert ids(status=['running']) == [acme_tasks[0]]
    assert ids(limit=2) == [other_task, acme_tasks[2]]
    assert ids(limit=2, before=acme_tasks[2]) == [acme_tasks[1], acme_tasks[0]]
    assert ids(trigger='schedule') == [] and ids(agent='app.clerk', event='x') == []
    recent = queue.recent_runs(store, [acme.id, other.id], per_agent=2)
    assert [t.id for t in recent[acme.id]] == [acme_tasks[2], acme_tasks[1]]
    assert [t.id for t in recent[other.id]] == [other_task]
    assert queue.recent_runs(store, []) == {}
