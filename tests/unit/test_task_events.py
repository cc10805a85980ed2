"""Events: who hears a firing (the event, the tenant), debounce folding firings into one run (also
from threads at once), and bad names, contexts and scopes refused before anything is stored."""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from synapse_agents.errors import TaskError
from synapse_agents.store import Store
from synapse_agents.tasks import events, queue, standing_store
from synapse_agents.tasks.standing_store import StandingInput
from synapse_agents.tasks.tables import AgentTask, StandingAgent

NOW = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)
ACME = ('org', 'acme')
CASE = ('case', '9')


def listener(store: Store, name: str, **values: Any) -> StandingAgent:
    values.setdefault('events', ['order.paid'])
    data = StandingInput(name=name, agent='app.clerk', instruction='Handle the order.', **values)
    return standing_store.create(store, data, now=NOW - timedelta(hours=1))


def tasks(store: Store) -> list[AgentTask]:
    with store.read() as session:
        return list(session.scalars(select(AgentTask).order_by(AgentTask.id)))


def task_count(store: Store) -> int:
    with store.read() as session:
        return int(session.scalar(select(func.count()).select_from(AgentTask)) or 0)


# -- who hears it -------------------------------------------------------------------------------


def test_only_agents_listening_to_the_event_in_the_tenant_hear_it(store: Store) -> None:
    acme = listener(store, 'acme', tenant='org:acme', subject='desk:sales')
    listener(store, 'other tenant', tenant='org:other')
    anywhere = listener(store, 'every tenant')
    listener(store, 'other event', tenant='org:acme', events=['order.refunded'])
    listener(store, 'paused', tenant='org:acme', enabled=False)
    both = listener(store, 'two events', tenant='org:acme', events=['order.refunded', 'order.paid'])

    fired = events.fire(store, 'order.paid', tenant=ACME, subject=CASE, context={'order': 'A-1'}, now=NOW)
    assert fired.event == 'order.paid' and fired.debounced == []
    assert set(fired.tasks) == set(fired.queued) and len(fired.queued) == 3
    found = {t.standing_agent_id: t for t in tasks(store)}
    assert set(found) == {acme.id, anywhere.id, both.id}
    for task in found.values():
        # The event's tenant and subject win; a tenant-less agent takes the event's tenant.
        assert (task.tenant_type, task.tenant_id) == ACME and (task.subject_type, task.subject_id) == CASE
        assert task.trigger == 'event' and task.event == 'order.paid' and task.context == {'order': 'A-1'}
        assert task.status == 'queued' and task.fires == 1 and task.not_before == NOW
        assert fired.starts[task.id] == NOW


def test_an_agent_with_a_tenant_does_not_hear_events_without_one(store: Store) -> None:
    listener(store, 'acme', tenant='org:acme')
    anywhere = listener(store, 'every tenant')
    fired = events.fire(store, 'order.paid', now=NOW)
    (task,) = tasks(store)
    assert fired.queued == [task.id] and task.standing_agent_id == anywhere.id
    assert task.tenant_type is None and task.tenant_id is None


def test_an_event_without_a_subject_keeps_the_agents_own(store: Store) -> None:
    listener(store, 'acme', tenant='org:acme', subject='desk:sales')
    events.fire(store, 'order.paid', tenant=ACME, now=NOW)
    (task,) = tasks(store)
    assert (task.subject_type, task.subject_id, task.subject_key) == ('desk', 'sales', 'desk:sales')


def test_an_event_nobody_listens_to_queues_nothing(store: Store) -> None:
    listener(store, 'acme', tenant='org:acme')
    fired = events.fire(store, 'order.shipped', tenant=ACME, now=NOW)
    assert fired.tasks == [] and task_count(store) == 0


def test_a_removed_or_changed_agent_no_longer_hears_it(store: Store) -> None:
    gone, moved = listener(store, 'gone'), listener(store, 'moved')
    standing_store.remove(store, gone.id)
    standing_store.update(store, moved.id, standing_store.StandingPatch(events=['order.refunded']))
    assert events.fire(store, 'order.paid', now=NOW).tasks == []
    assert len(events.fire(store, 'order.refunded', now=NOW).queued) == 1


# -- debounce ---------------------------------------------------------------------------------


def test_firings_within_the_window_fold_into_one_task_with_the_last_context(store: Store) -> None:
    agent = listener(store, 'debounced', tenant='org:acme', debounce_seconds=60)
    first = events.fire(store, 'order.paid', tenant=ACME, subject=CASE, context={'n': 1}, now=NOW)
    (task_id,) = first.queued
    assert first.starts[task_id] == NOW + timedelta(seconds=60)
    for n, seconds in ((2, 10), (3, 59)):
        again = events.fire(
            store,
            'order.paid',
            tenant=ACME,
            subject=CASE,
            context={'n': n},
            now=NOW + timedelta(seconds=seconds),
        )
        assert again.queued == [] and again.debounced == [task_id] and again.tasks == [task_id]
    (task,) = tasks(store)
    assert task.standing_agent_id == agent.id and task.fires == 3 and task.context == {'n': 3}
    assert task.not_before == NOW + timedelta(seconds=60) and task.status == 'queued'
    # Not claimable before the window ends.
    assert queue.claimable(store, 10, now=NOW + timedelta(seconds=59)) == []
    assert queue.claimable(store, 10, now=NOW + timedelta(seconds=60)) == [task_id]


def test_another_subject_gets_its_own_task(store: Store) -> None:
    listener(store, 'debounced', tenant='org:acme', debounce_seconds=60)
    one = events.fire(store, 'order.paid', tenant=ACME, subject=CASE, now=NOW)
    other = events.fire(store, 'order.paid', tenant=ACME, subject=('case', '10'), now=NOW)
    none = events.fire(store, 'order.paid', tenant=ACME, now=NOW)
    assert len({*one.queued, *other.queued, *none.queued}) == 3
    assert sorted(t.subject_key for t in tasks(store)) == ['', 'case:10', 'case:9']


def test_a_firing_of_another_tenant_never_folds_into_a_tenants_task(store: Store) -> None:
    anywhere = listener(store, 'every tenant', debounce_seconds=60)
    alpha = events.fire(store, 'order.paid', tenant=('org', 'alpha'), subject=CASE, context={'n': 1}, now=NOW)
    beta = events.fire(
        store,
        'order.paid',
        tenant=('org', 'beta'),
        subject=CASE,
        context={'n': 2},
        now=NOW + timedelta(seconds=5),
    )
    none = events.fire(store, 'order.paid', subject=CASE, context={'n': 3}, now=NOW + timedelta(seconds=6))
    again = events.fire(
        store,
        'order.paid',
        tenant=('org', 'beta'),
        subject=CASE,
        context={'n': 4},
        now=NOW + timedelta(seconds=9),
    )
    assert beta.debounced == [] and len(beta.queued) == 1 and beta.queued != alpha.queued
    assert none.debounced == [] and len(none.queued) == 1
    assert again.debounced == beta.queued and again.queued == []
    found = {(t.tenant_type, t.tenant_id): (t.fires, t.context) for t in tasks(store)}
    assert found == {
        ('org', 'alpha'): (1, {'n': 1}),
        ('org', 'beta'): (2, {'n': 4}),
        (None, None): (1, {'n': 3}),
    }
    assert {t.standing_agent_id for t in tasks(store)} == {anywhere.id}


def test_the_agents_own_subject_debounces_too(store: Store) -> None:
    listener(store, 'debounced', tenant='org:acme', subject='desk:sales', debounce_seconds=60)
    first = events.fire(store, 'order.paid', tenant=ACME, now=NOW)
    second = events.fire(store, 'order.paid', tenant=ACME, now=NOW + timedelta(seconds=5))
    assert second.debounced == first.queued and second.queued == []
    (task,) = tasks(store)
    assert task.fires == 2 and task.subject_key == 'desk:sales'


def test_after_the_window_a_firing_queues_a_new_task(store: Store) -> None:
    listener(store, 'debounced', debounce_seconds=60)
    first = events.fire(store, 'order.paid', subject=CASE, now=NOW)
    later = events.fire(store, 'order.paid', subject=CASE, now=NOW + timedelta(seconds=61))
    assert later.queued and later.queued != first.queued and later.debounced == []
    assert [t.fires for t in tasks(store)] == [1, 1]


def test_a_task_that_started_takes_no_more_firings(store: Store) -> None:
    listener(store, 'debounced', debounce_seconds=60)
    (task_id,) = events.fire(store, 'order.paid', subject=CASE, now=NOW).queued
    assert queue.claim(store, task_id, 'w1', now=NOW + timedelta(seconds=60))
    # The window is measured from the first firing: 30 s later it is open, but the run started.
    later = events.fire(store, 'order.paid', subject=CASE, now=NOW + timedelta(seconds=30))
    assert later.debounced == [] and len(later.queued) == 1


def test_debounce_zero_queues_every_firing(store: Store) -> None:
    listener(store, 'eager')
    ids = [events.fire(store, 'order.paid', subject=CASE, now=NOW).queued for _ in range(3)]
    assert all(len(found) == 1 for found in ids) and len({found[0] for found in ids}) == 3
    assert [(t.fires, t.not_before) for t in tasks(store)] == [(1, NOW)] * 3


@pytest.fixture
def other_stores(store: Store, tmp_path: Path) -> Iterator[list[Store]]:
    """Six more stores on the test's database, each with an engine of its own (another server)."""
    url = store.engine.url.render_as_string(hide_password=False)
    opened = [Store.open(url, tmp_path / 'home' / 'attachments') for _ in range(6)]
    yield opened
    for other in opened:
        other.close()


def test_firings_from_several_threads_at_once_fold_the_same_way(
    store: Store, other_stores: list[Store]
) -> None:
    listener(store, 'debounced', tenant='org:acme', debounce_seconds=300)
    rounds = 5
    barrier = threading.Barrier(len(other_stores))
    results: list[events.Fired] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def server(own: Store, index: int) -> None:
        try:
            for round_ in range(rounds):
                barrier.wait(timeout=30)
                fired = events.fire(
                    own,
                    'order.paid',
                    tenant=ACME,
                    subject=('case', str(round_)),
                    context={'from': index},
                    now=NOW + timedelta(seconds=round_),
                )
                with lock:
                    results.append(fired)
        except BaseException as exc:
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=server, args=(own, i)) for i, own in enumerate(other_stores)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    found = tasks(store)
    assert len(found) == rounds
    assert sorted(t.subject_key for t in found) == [f'case:{n}' for n in range(rounds)]
    assert all(t.fires == len(other_stores) for t in found)
    assert all(t.context is not None and t.context['from'] in range(len(other_stores)) for t in found)
    assert sum(len(r.queued) for r in results) == rounds
    assert sum(len(r.debounced) for r in results) == rounds * (len(other_stores) - 1)


# -- refusals -----------------------------------------------------------------------------------


def refused(store: Store, field: str, **arguments: Any) -> str:
    """Fire with `arguments`, expect a 422 naming `field`, and check nothing was stored."""
    arguments.setdefault('event', 'order.paid')
    event = arguments.pop('event')
    with pytest.raises(TaskError) as caught:
        events.fire(store, event, now=NOW, **arguments)
    assert caught.value.status == 422
    assert [f['location'] for f in caught.value.fields] == [f'body.{field}']
    assert caught.value.message.startswith(field)
    assert task_count(store) == 0
    return caught.value.message


@pytest.mark.parametrize(
    'event',
    ['', ' order.paid', 'order paid', '.paid', 'x' * 101, 'order.paid\x00', 'ordre\n', 42, None, ['a']],
)
def test_a_bad_event_name_is_refused(store: Store, event: Any) -> None:
    listener(store, 'anywhere')
    message = refused(store, 'event', event=event)
    assert 'is not an event name' in message


class Opaque:
    """Something JSON cannot hold."""


def circular() -> dict[str, Any]:
    value: dict[str, Any] = {}
    value['self'] = value
    return value


@pytest.mark.parametrize(
    ('context', 'words'),
    [
        ({'x': Opaque()}, 'not JSON'),
        ({'at': NOW}, 'not JSON'),
        ({'x': {1, 2}}, 'not JSON'),
        ({'x': math.nan}, 'not JSON'),
        ({'x': math.inf}, 'not JSON'),
        (circular(), 'not JSON'),
        (['a', 'b'], 'expected a JSON object, got list'),
        ('{"a": 1}', 'expected a JSON object, got str'),
        (7, 'expected a JSON object, got int'),
        ({'blob': 'x' * (64 * 1024)}, 'more than 64 KiB'),
    ],
)
def test_a_bad_context_is_refused(store: Store, context: Any, words: str) -> None:
    listener(store, 'anywhere')
    assert words in refused(store, 'context', context=context)


def test_a_deeply_nested_context_is_refused(store: Store) -> None:
    listener(store, 'anywhere')
    nested: dict[str, Any] = {}
    for _ in range(100_000):
        nested = {'x': nested}
    assert 'not JSON' in refused(store, 'context', context=nested)


def test_a_context_just_under_the_limit_is_kept_as_plain_json(store: Store) -> None:
    listener(store, 'anywhere')
    fired = events.fire(
        store, 'order.paid', context={'items': (1, 2), 'n': 1.5, 'blob': 'x' * 60_000}, now=NOW
    )
    (task,) = tasks(store)
    assert fired.queued == [task.id]
    assert task.context == {'items': [1, 2], 'n': 1.5, 'blob': 'x' * 60_000}


@pytest.mark.parametrize(
    ('field', 'arguments'),
    [
        ('tenant', {'tenant': ('org',)}),
        ('tenant', {'tenant': ('org', '')}),
        ('tenant', {'tenant': 'org:acme'}),
        ('tenant', {'tenant': ('org', 'a\x00b')}),
        ('tenant', {'tenant': ('org', 'x' * 256)}),
        ('subject', {'subject': ('case', 9)}),
        ('subject', {'subject': ['case']}),
        ('subject', {'tenant': ACME, 'subject': ('', '9')}),
    ],
)
def test_a_bad_scope_is_refused(store: Store, field: str, arguments: dict[str, Any]) -> None:
    listener(store, 'anywhere')
    refused(store, field, **arguments)
