"""The task area's HTTP API on every selected database: standing agents (create, read, change, pause,
resume, run now, remove), tasks (list, filter, page, detail with logs, cancel), events (who hears
them, in which tenant, debounce) and schedule previews; every refused input is a JSON error that
changes nothing.

The app the test client builds does no background work (`maintenance` is off), so nothing runs a
queued task by itself: a test that needs a run calls the runner (`runner.run_task`) in the app's own
event loop (the client's portal), where the chat service's write queue runs, and sees its results
through the API. One test turns `maintenance` on, so the in-process worker `synapse serve` runs
picks up a task queued through the API.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any, get_args
from zoneinfo import ZoneInfo

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, func, select

from chat_helpers import DEMO, LOCAL_PEER, LOCAL_URL, agent_catalog
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.store import Store
from synapse_agents.store.ids import new_id
from synapse_agents.tasks import queue, routes, runner
from synapse_agents.tasks.schedule import EXAMPLE, Schedule
from synapse_agents.tasks.tables import (
    STATUSES,
    TRIGGERS,
    AgentLog,
    AgentTask,
    StandingAgent,
    StandingAgentEvent,
)
from synapse_agents.web.access import AccessPolicy
from synapse_agents.web.app import create_app
from synapse_agents.web.throttle import FailureThrottle

SUPPORT = DEMO + 'support-agent'
SUMMARISER = DEMO + 'summariser'
STANDING = '/api/standing-agents'
TASKS = '/api/tasks'
EVENTS = '/api/events'
PREVIEW = '/api/schedules/preview'
TOKEN = 'test-token-0123456789'


@pytest.fixture
def context(context: SynapseContext) -> SynapseContext:
    """The app's root, serving the session's catalog of the test and demo agents (scanned once)."""
    context.catalog = agent_catalog()
    return context


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    body = {'name': 'Order desk', 'agent': SUPPORT, 'instruction': 'Check order A-1001.', **body}
    response = client.post(STANDING, json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def run_now(client: TestClient, standing_id: str) -> dict[str, Any]:
    response = client.post(f'{STANDING}/{standing_id}/run')
    assert response.status_code == 202, response.text
    task: dict[str, Any] = response.json()['task']
    return task


def fire(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post(EVENTS, json=body)
    assert response.status_code == 202, response.text
    fired: dict[str, Any] = response.json()
    return fired


def run(client: TestClient, context: SynapseContext, task_id: str) -> str | None:
    """Run the task as a worker would, in the app's event loop."""
    assert client.portal is not None
    return client.portal.call(runner.run_task, context, task_id, 'test-worker')


def detail(client: TestClient, task_id: str) -> dict[str, Any]:
    response = client.get(f'{TASKS}/{task_id}')
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def listed(client: TestClient, **params: Any) -> list[str]:
    response = client.get(TASKS, params=params)
    assert response.status_code == 200, response.text
    return [task['id'] for task in response.json()['tasks']]


def counts(store: Store) -> dict[str, int]:
    """How many rows each table of the task area holds."""
    with store.read() as session:
        return {
            table.__tablename__: session.scalar(select(func.count()).select_from(table)) or 0
            for table in (StandingAgent, StandingAgentEvent, AgentTask, AgentLog)
        }


def refused(response: Any, status: int, location: str | None = None) -> str:
    """A JSON error with this status (naming `location` among its fields, when given); its message."""
    assert response.status_code == status, response.text
    assert response.headers['content-type'] == 'application/json'
    error = response.json()['error']
    assert error['code'] and error['message'], error
    if location is not None:
        assert location in [field['location'] for field in error['fields']], error
        assert location.split('.')[-1] in error['message'], error
    message: str = error['message']
    return message


def example_times(zone: str) -> list[str]:
    """The example schedule's next three fire times as a refusal shows them."""
    return [
        moment.astimezone(ZoneInfo(zone)).strftime('%a %Y-%m-%d %H:%M')
        for moment in Schedule.parse(EXAMPLE, zone).upcoming(3)
    ]


def stamp(text: str) -> datetime:
    return datetime.fromisoformat(text.replace('Z', '+00:00'))


def values(row: dict[str, Any], names: str) -> tuple[Any, ...]:
    """The row's values of the space-separated `names`, in order."""
    return tuple(row[name] for name in names.split())


# -- standing agents -----------------------------------------------------------------------------


def test_create_list_read_change_and_remove(client: TestClient, store: Store) -> None:
    before = datetime.now(UTC)
    created = create(
        client,
        name='  Morning digest ',
        cron='0  9 * * 1-5',
        timezone='Europe/Madrid',
        events=['order.created', 'order.created', 'order.paid'],
        debounce_seconds=30,
        tenant='org:acme',
        subject='team:ops',
    )
    expected = {
        'name': 'Morning digest',
        'agent': SUPPORT,
        'instruction': 'Check order A-1001.',
        'tenant': 'org:acme',
        'subject': 'team:ops',
        'cron': '0 9 * * 1-5',
        'timezone': 'Europe/Madrid',
        'schedule_words': 'At 09:00, Monday through Friday (Europe/Madrid)',
        'events': ['order.created', 'order.paid'],
        'debounce_seconds': 30,
        'enabled': True,
        'last_fired_at': None,
        'last_runs': [],
    }
    assert {key: created[key] for key in expected} == expected
    assert stamp(created['next_fire_at']) == Schedule.parse('0 9 * * 1-5', 'Europe/Madrid').next_after(before)
    assert created['created_at'].endswith('Z')

    other = create(client, name='On demand', agent=SUMMARISER, instruction='Summarise the day.')
    assert values(other, 'cron schedule_words next_fire_at events') == (None, None, None, [])
    listing = client.get(STANDING).json()['standing_agents']
    assert [row['id'] for row in listing] == [other['id'], created['id']]
    assert client.get(f'{STANDING}/{created["id"]}').json() == created

    changed = client.patch(
        f'{STANDING}/{created["id"]}',
        json={'name': 'Digest', 'agent': SUMMARISER, 'cron': None, 'events': ['x.y'], 'tenant': None},
    )
    assert changed.status_code == 200, changed.text
    body = changed.json()
    assert values(body, 'name agent events tenant subject') == (
        'Digest',
        SUMMARISER,
        ['x.y'],
        None,
        'team:ops',
    )
    assert values(body, 'cron schedule_words next_fire_at') == (None, None, None)
    assert body['created_at'] == created['created_at'] and body['updated_at'] >= created['updated_at']
    assert client.get(f'{STANDING}/{created["id"]}').json() == body
    with store.read() as session:
        subscriptions = session.scalars(
            select(StandingAgentEvent.event).where(StandingAgentEvent.standing_agent_id == created['id'])
        )
        assert list(subscriptions) == ['x.y']

    task = run_now(client, created['id'])
    removed = client.delete(f'{STANDING}/{created["id"]}')
    assert removed.status_code == 204 and removed.content == b''
    refused(client.get(f'{STANDING}/{created["id"]}'), 404)
    assert [row['id'] for row in client.get(STANDING).json()['standing_agents']] == [other['id']]
    # Its tasks are history and stay; its subscriptions are gone, so the event starts nothing.
    assert detail(client, task['id'])['standing_agent_id'] == created['id']
    assert fire(client, event='x.y') == {'event': 'x.y', 'queued': [], 'debounced': [], 'notice': None}
    assert counts(store)['standing_agent_events'] == 0


def test_an_unknown_agent_is_refused_with_the_closest_slugs(client: TestClient, store: Store) -> None:
    message = refused(
        client.post(STANDING, json={'name': 'x', 'agent': DEMO + 'suport-agent', 'instruction': 'x'}),
        422,
        'body.agent',
    )
    assert 'Did you mean' in message and repr(SUPPORT) in message
    assert counts(store)['standing_agents'] == 0


@pytest.mark.parametrize(
    ('body', 'location', 'zone'),
    [
        ({'cron': '61 * * * *'}, 'body.cron', 'UTC'),
        ({'cron': '0 9 * *', 'timezone': 'Europe/Madrid'}, 'body.cron', 'Europe/Madrid'),
        ({'cron': '@fortnightly', 'timezone': 'Asia/Tokyo'}, 'body.cron', 'Asia/Tokyo'),
        ({'cron': '0 9 * * *', 'timezone': 'Mars/Olympus_Mons'}, 'body.timezone', 'UTC'),
    ],
)
def test_a_bad_schedule_shows_a_valid_one_with_its_next_three_fire_times(
    client: TestClient, store: Store, body: dict[str, Any], location: str, zone: str
) -> None:
    full = {'name': 'x', 'agent': SUPPORT, 'instruction': 'x', **body}
    message = refused(client.post(STANDING, json=full), 422, location)
    assert f'fires next at {", ".join(example_times(zone))} ({zone})' in message, message
    assert counts(store)['standing_agents'] == 0


def test_pause_clears_the_next_fire_time_and_resume_sets_it_from_now(
    client: TestClient, store: Store
) -> None:
    created = create(client, cron='*/5 * * * *', events=['ping'])
    assert created['next_fire_at'] is not None
    paused = client.post(f'{STANDING}/{created["id"]}/pause')
    assert paused.status_code == 200, paused.text
    assert (paused.json()['enabled'], paused.json()['next_fire_at']) == (False, None)
    with store.read() as session:
        row = session.get(StandingAgent, created['id'])
        assert row is not None and (row.enabled, row.next_fire_at) == (False, None)
    # paused: events do not fire it, run now still does
    assert fire(client, event='ping')['queued'] == []
    assert run_now(client, created['id'])['trigger'] == 'manual'

    before = datetime.now(UTC)
    resumed = client.post(f'{STANDING}/{created["id"]}/resume')
    assert resumed.status_code == 200, resumed.text
    assert resumed.json()['enabled'] is True
    next_fire = stamp(resumed.json()['next_fire_at'])
    assert before < next_fire <= before + timedelta(minutes=5) and next_fire.minute % 5 == 0
    assert len(fire(client, event='ping')['queued']) == 1


def test_the_listing_reads_in_the_same_number_of_queries_for_any_number_of_agents(
    client: TestClient, store: Store
) -> None:
    def queries() -> tuple[int, list[dict[str, Any]]]:
        client.get(STANDING)  # warm: a first request may open connections
        statements: list[str] = []

        def count(*args: Any) -> None:
            statements.append(args[2])

        event.listen(store.engine, 'before_cursor_execute', count)
        try:
            response = client.get(STANDING)
        finally:
            event.remove(store.engine, 'before_cursor_execute', count)
        assert response.status_code == 200, response.text
        return len(statements), response.json()['standing_agents']

    first = create(client)
    task_ids = [run_now(client, first['id'])['id'] for _ in range(7)]
    one, rows = queries()
    # the newest five runs, newest first
    assert [run['id'] for run in rows[0]['last_runs']] == task_ids[::-1][:5]
    for index in range(4):
        standing = create(client, name=f'Agent {index}')
        run_now(client, standing['id'])
    five, rows = queries()
    assert len(rows) == 5 and all(len(row['last_runs']) == 1 for row in rows[:4])
    assert five == one


# -- running ---------------------------------------------------------------------------------------


def test_run_now_queues_a_task_that_runs_and_logs_its_steps(
    client: TestClient, context: SynapseContext
) -> None:
    standing = create(client, instruction='Where is order A-1001?', tenant='org:acme')
    task = run_now(client, standing['id'])
    expected = ('queued', 'manual', standing['id'], SUPPORT, 'org:acme')
    assert values(task, 'status trigger standing_agent_id agent tenant') == expected
    assert task['started_at'] is None and task['worker'] is None
    queued = detail(client, task['id'])
    assert values(queued, 'status logs instruction') == ('queued', [], 'Where is order A-1001?')

    assert run(client, context, task['id']) == 'succeeded'
    assert run(client, context, task['id']) is None  # claimed once: a second delivery does nothing
    done = detail(client, task['id'])
    assert (done['status'], done['worker'], done['error']) == ('succeeded', 'test-worker', None)
    assert done['input_tokens'] > 0 and done['output_tokens'] > 0 and done['duration_ms'] is not None
    assert isinstance(done['output'], str) and 'A-1001' in done['output']
    kinds = [entry['kind'] for entry in done['logs']]
    assert kinds[0] == 'started' and kinds[-2:] == ['output', 'finished']
    assert {'model_response', 'tool_call', 'tool_result'} <= set(kinds)
    assert [entry['seq'] for entry in done['logs']] == list(range(1, len(kinds) + 1))
    calls = [entry for entry in done['logs'] if entry['kind'] == 'tool_call']
    assert calls[0]['data']['tool'] == 'lookup_order'
    # the run is a conversation of its own, in the task's tenant
    conversation = client.get(f'/api/conversations/{done["conversation_id"]}')
    assert conversation.status_code == 200, conversation.text
    assert conversation.json()['conversation']['tenant'] == {'type': 'org', 'id': 'acme'}
    last = client.get(f'{STANDING}/{standing["id"]}').json()['last_runs']
    assert [(row['id'], row['status']) for row in last] == [(task['id'], 'succeeded')]


def test_the_in_process_worker_runs_a_task_queued_through_the_api(context: SynapseContext) -> None:
    context.maintenance = True  # as `synapse serve` opens it: the in-process worker runs
    with TestClient(create_app(context), base_url=LOCAL_URL, client=LOCAL_PEER) as client:
        standing = create(client, agent=SUMMARISER, instruction='Summarise: the shop opens at nine.')
        task = run_now(client, standing['id'])
        deadline = time.monotonic() + 60
        while (found := detail(client, task['id']))['status'] in ('queued', 'running'):
            assert time.monotonic() < deadline, found
            time.sleep(0.05)
    assert found['status'] == 'succeeded', found
    assert found['worker'] and found['worker'].endswith(':serve')
    assert [entry['kind'] for entry in found['logs']][-1] == 'finished'


def test_cancel_a_queued_task_ask_a_running_one_and_refuse_a_finished_one(
    client: TestClient, store: Store
) -> None:
    standing = create(client)
    first = run_now(client, standing['id'])
    cancelled = client.post(f'{TASKS}/{first["id"]}/cancel')
    assert cancelled.status_code == 200, cancelled.text
    assert values(cancelled.json(), 'status error') == ('cancelled', 'Cancelled before it started.')
    assert cancelled.json()['finished_at'] is not None

    second = run_now(client, standing['id'])
    assert queue.claim(store, second['id'], 'elsewhere')
    asked = client.post(f'{TASKS}/{second["id"]}/cancel')
    assert asked.status_code == 200, asked.text
    assert values(asked.json(), 'status cancel_requested') == ('running', True)
    # the worker learns it at its next heartbeat
    assert queue.heartbeat(store, second['id'], 'elsewhere') is True

    before = counts(store)
    message = refused(client.post(f'{TASKS}/{first["id"]}/cancel'), 409)
    assert 'already cancelled' in message
    assert counts(store) == before and detail(client, first['id'])['status'] == 'cancelled'


# -- events ------------------------------------------------------------------------------------------


def test_events_start_the_agents_listening_in_the_tenant(client: TestClient) -> None:
    acme = create(client, name='acme', tenant='org:acme', events=['order.created'])
    globex = create(client, name='globex', tenant='org:globex', events=['order.created'])
    anywhere = create(client, name='anywhere', events=['order.created', 'order.paid'])
    create(client, name='deaf', events=['order.paid'])
    create(client, name='paused', events=['order.created'], enabled=False)

    fired = fire(
        client, event='order.created', tenant='org:acme', subject='order:17', context={'total': '12.50'}
    )
    assert fired['event'] == 'order.created' and fired['debounced'] == []
    tasks = {found['standing_agent_id']: found for found in (detail(client, t) for t in fired['queued'])}
    assert set(tasks) == {acme['id'], anywhere['id']}
    for task in tasks.values():
        assert values(task, 'trigger event status') == ('event', 'order.created', 'queued')
        assert values(task, 'tenant subject context') == ('org:acme', 'order:17', {'total': '12.50'})

    # with no tenant: only the agents of no tenant hear it
    untenanted = fire(client, event='order.created')['queued']
    assert [detail(client, t)['standing_agent_id'] for t in untenanted] == [anywhere['id']]
    queued = fire(client, event='order.created', tenant='org:globex')['queued']
    assert {detail(client, t)['standing_agent_id'] for t in queued} == {globex['id'], anywhere['id']}
    assert fire(client, event='order.shipped', tenant='org:acme')['queued'] == []


def test_debounce_folds_a_second_firing_into_the_queued_run(client: TestClient, store: Store) -> None:
    standing = create(client, events=['order.updated'], debounce_seconds=60)
    first = fire(client, event='order.updated', subject='order:1', context={'step': 1})
    assert len(first['queued']) == 1 and first['debounced'] == []
    task_id = first['queued'][0]
    before = counts(store)
    second = fire(client, event='order.updated', subject='order:1', context={'step': 2})
    assert second == {'event': 'order.updated', 'queued': [], 'debounced': [task_id], 'notice': None}
    assert counts(store) == before
    task = detail(client, task_id)
    assert values(task, 'fires context status') == (2, {'step': 2}, 'queued')
    assert stamp(task['not_before']) - stamp(task['queued_at']) == timedelta(seconds=60)
    # another subject is another run
    other = fire(client, event='order.updated', subject='order:2')
    assert len(other['queued']) == 1 and other['queued'] != [task_id]
    assert listed(client, standing_agent=standing['id']) == [other['queued'][0], task_id]


# -- listing -----------------------------------------------------------------------------------------


def test_list_filters_and_pages(client: TestClient) -> None:
    acme = create(client, name='acme', tenant='org:acme', events=['e.one'])
    plain = create(client, name='plain', agent=SUMMARISER, events=['e.two'])
    manual = [run_now(client, acme['id'])['id'] for _ in range(3)]
    one = fire(client, event='e.one', tenant='org:acme')['queued']
    two = fire(client, event='e.two', tenant='org:globex')['queued']
    assert client.post(f'{TASKS}/{manual[0]}/cancel').status_code == 200
    everything = listed(client)
    assert everything == sorted([*manual, *one, *two], reverse=True)

    assert listed(client, status='cancelled') == [manual[0]]
    assert listed(client, status=['queued', 'cancelled']) == everything
    assert listed(client, status='running') == []
    assert listed(client, standing_agent=acme['id']) == sorted([*manual, *one], reverse=True)
    assert listed(client, agent=SUMMARISER) == two
    assert listed(client, trigger='event') == sorted([*one, *two], reverse=True)
    assert listed(client, trigger='manual', status='queued') == manual[:0:-1]
    assert listed(client, tenant='org:acme') == sorted([*manual, *one], reverse=True)
    assert listed(client, tenant='org') == everything
    assert listed(client, tenant='org:globex') == two
    assert listed(client, event='e.two') == two
    assert listed(client, event='e.two', standing_agent=acme['id']) == []
    assert listed(client, standing_agent=new_id()) == []
    assert plain['id'] != acme['id']

    pages: list[list[str]] = []
    cursor: str | None = None
    while True:
        page = client.get(TASKS, params={'limit': 2, **({'before': cursor} if cursor else {})}).json()
        pages.append([task['id'] for task in page['tasks']])
        cursor = page['next_before']
        if cursor is None:
            break
        assert cursor == pages[-1][-1]
    assert [len(ids) for ids in pages] == [2, 2, 1]
    assert [task_id for ids in pages for task_id in ids] == everything
    full = client.get(TASKS, params={'limit': 5}).json()
    assert len(full['tasks']) == 5 and full['next_before'] == everything[-1]
    assert client.get(TASKS, params={'before': everything[-1]}).json() == {'tasks': [], 'next_before': None}


def test_the_filters_accept_exactly_the_stored_statuses_and_triggers() -> None:
    assert get_args(routes.Status) == STATUSES
    assert get_args(routes.Trigger) == TRIGGERS


def test_schedule_preview(client: TestClient) -> None:
    response = client.get(PREVIEW, params={'cron': '30 7 * * 1', 'timezone': 'America/New_York'})
    assert response.status_code == 200, response.text
    body = response.json()
    expected = Schedule.parse('30 7 * * 1', 'America/New_York').upcoming(3)
    assert body['cron'] == '30 7 * * 1' and body['timezone'] == 'America/New_York'
    assert body['words'] == 'At 07:30, only on Monday (America/New_York)'
    assert [stamp(moment) for moment in body['next']] == expected
    daily = client.get(PREVIEW, params={'cron': '@daily'}).json()
    assert daily['timezone'] == 'UTC' and all(moment.endswith('T00:00:00.000Z') for moment in daily['next'])
    message = refused(client.get(PREVIEW, params={'cron': '0 25 * * *'}), 422, 'query.cron')
    assert ', '.join(example_times('UTC')) in message
    refused(client.get(PREVIEW, params={'cron': '0 9 * * *', 'timezone': 'Nowhere'}), 422, 'query.timezone')
    refused(client.get(PREVIEW), 422, 'query.cron')


# -- refusals ----------------------------------------------------------------------------------------

UNKNOWN = '01900000-0000-7000-8000-000000000000'
"""A valid id that names nothing (fixed: parallel workers must collect the same tests)."""
REFUSALS: list[tuple[str, str, Any, int, str | None]] = [
    ('POST', STANDING, {'cron': '61 * * * *'}, 422, 'body.cron'),
    ('POST', STANDING, {'cron': '0 9 * * *', 'timezone': 'Europe/Nowhere'}, 422, 'body.timezone'),
    ('POST', STANDING, {'agent': 'no.such.agent'}, 422, 'body.agent'),
    ('POST', STANDING, {'agent': 'config:nothing'}, 422, 'body.agent'),
    ('POST', STANDING, {'debounce_seconds': -1}, 422, 'body.debounce_seconds'),
    ('POST', STANDING, {'events': ['no spaces']}, 422, 'body.events.0'),
    ('POST', STANDING, {'tenant': 'acme'}, 422, 'body.tenant'),
    ('POST', STANDING, {'name': '   '}, 422, 'body.name'),
    ('POST', STANDING, {'name': 'a\x00b'}, 422, 'body.name'),
    ('POST', STANDING, {'instruction': 'x\x00'}, 422, 'body.instruction'),
    ('POST', STANDING, {'agent': 'config:a\x00'}, 422, 'body.agent'),
    ('POST', STANDING, {'colour': 'red'}, 422, 'body.colour'),
    ('PATCH', '{standing}', {'cron': 'every day'}, 422, 'body.cron'),
    ('PATCH', '{standing}', {'timezone': 'Moon/Base'}, 422, 'body.timezone'),
    ('PATCH', '{standing}', {'agent': DEMO + 'nope'}, 422, 'body.agent'),
    ('PATCH', '{standing}', {'debounce_seconds': -5}, 422, 'body.debounce_seconds'),
    ('PATCH', '{standing}', {'name': None}, 422, 'body.name'),
    ('PATCH', '{standing}', {'enabled': None}, 422, 'body.enabled'),
    ('PATCH', '{standing}', {'events': ['bad name']}, 422, 'body.events.0'),
    ('PATCH', '{standing}', {'instruction': '\x00'}, 422, 'body.instruction'),
    ('PATCH', f'{STANDING}/{UNKNOWN}', {'name': 'x'}, 404, None),
    ('PATCH', f'{STANDING}/not-an-id', {'name': 'x'}, 404, None),
    ('GET', f'{STANDING}/{UNKNOWN}', None, 404, None),
    ('GET', f'{STANDING}/..%2F..%2Fetc', None, 404, None),
    ('DELETE', f'{STANDING}/{UNKNOWN}', None, 404, None),
    ('DELETE', f'{STANDING}/42', None, 404, None),
    ('POST', f'{STANDING}/{UNKNOWN}/run', None, 404, None),
    ('POST', f'{STANDING}/x/run', None, 404, None),
    ('POST', f'{STANDING}/{UNKNOWN}/pause', None, 404, None),
    ('POST', f'{STANDING}/{UNKNOWN}/resume', None, 404, None),
    ('POST', EVENTS, {'event': 'order created'}, 422, 'body.event'),
    ('POST', EVENTS, {'event': '.hidden'}, 422, 'body.event'),
    ('POST', EVENTS, {'event': ''}, 422, 'body.event'),
    ('POST', EVENTS, {'event': 'ping', 'context': [1, 2]}, 422, 'body.context'),
    ('POST', EVENTS, {'event': 'ping', 'context': 'text'}, 422, 'body.context'),
    ('POST', EVENTS, {'event': 'ping', 'context': {'a\x00': 1}}, 422, 'body.context'),
    ('POST', EVENTS, {'event': 'ping', 'context': {'a': ['\x00']}}, 422, 'body.context.a.0'),
    ('POST', EVENTS, {'event': 'ping', 'tenant': 'acme'}, 422, 'body.tenant'),
    ('POST', EVENTS, {'event': 'ping', 'subject': ':1'}, 422, 'body.subject'),
    ('POST', EVENTS, {'event': 'ping', 'extra': 1}, 422, 'body.extra'),
    ('POST', EVENTS, {}, 422, 'body.event'),
    ('GET', f'{TASKS}/{UNKNOWN}', None, 404, None),
    ('GET', f'{TASKS}/nope', None, 404, None),
    ('POST', f'{TASKS}/{UNKNOWN}/cancel', None, 404, None),
    ('POST', f'{TASKS}/nope/cancel', None, 404, None),
    ('POST', '{finished}/cancel', None, 409, None),
    ('GET', f'{TASKS}?status=done', None, 422, 'query.status.0'),
    ('GET', f'{TASKS}?status=queued&status=QUEUED', None, 422, 'query.status.1'),
    ('GET', f'{TASKS}?standing_agent=nope', None, 422, 'query.standing_agent'),
    ('GET', f'{TASKS}?before=nope', None, 422, 'query.before'),
    ('GET', f'{TASKS}?limit=0', None, 422, 'query.limit'),
    ('GET', f'{TASKS}?limit=201', None, 422, 'query.limit'),
    ('GET', f'{TASKS}?trigger=cron', None, 422, 'query.trigger'),
    ('GET', f'{TASKS}?tenant=:acme', None, 422, 'query.tenant'),
    ('GET', f'{TASKS}?event=a%20b', None, 422, 'query.event'),
    ('GET', f'{PREVIEW}?cron=*%20*%20*', None, 422, 'query.cron'),
]


@pytest.fixture
def seeded(client: TestClient) -> dict[str, str]:
    """A standing agent with a queued task and a finished (cancelled) one."""
    standing = create(client, cron='0 * * * *', events=['ping'])
    finished = run_now(client, standing['id'])
    assert client.post(f'{TASKS}/{finished["id"]}/cancel').status_code == 200
    run_now(client, standing['id'])
    return {'standing': f'{STANDING}/{standing["id"]}', 'finished': f'{TASKS}/{finished["id"]}'}


@pytest.mark.parametrize(
    ('method', 'url', 'body', 'status', 'location'),
    REFUSALS,
    ids=[f'{m} {u} {b!r:.40} {s}' for m, u, b, s, _l in REFUSALS],
)
def test_every_refusal_is_a_json_error_and_changes_nothing(
    client: TestClient,
    store: Store,
    seeded: dict[str, str],
    method: str,
    url: str,
    body: Any,
    status: int,
    location: str | None,
) -> None:
    url = url.format(**seeded)
    if method == 'POST' and url == STANDING:
        body = {'name': 'x', 'agent': SUPPORT, 'instruction': 'x', **body}
    before = (counts(store), client.get(seeded['standing']).json(), client.get(TASKS).json())
    refused(client.request(method, url, json=body), status, location)
    assert (counts(store), client.get(seeded['standing']).json(), client.get(TASKS).json()) == before


# -- access --------------------------------------------------------------------------------------------


def test_the_task_routes_follow_the_access_rules(context: SynapseContext, store: Store) -> None:
    policy = AccessPolicy.with_token(TOKEN)
    policy.throttle = FailureThrottle(base_delay=0, limit=50)
    app = create_app(context, access=policy)
    with TestClient(app, base_url='http://synapse.internal', client=('127.0.0.1', 50000)) as client:
        refused(client.get(STANDING), 401)
        refused(client.post(EVENTS, json={'event': 'ping'}), 401)
        refused(client.post(STANDING, json={'name': 'x', 'agent': SUPPORT, 'instruction': 'x'}), 401)
        assert counts(store)['standing_agents'] == 0
        authorised = {'Authorization': f'Bearer {TOKEN}'}
        created = client.post(
            STANDING, json={'name': 'x', 'agent': SUPPORT, 'instruction': 'x'}, headers=authorised
        )
        assert created.status_code == 201, created.text
        rows = client.get(STANDING, headers=authorised).json()['standing_agents']
        assert [row['id'] for row in rows] == [created.json()['id']]
