"""`synapse tasks` and `synapse worker` through Typer's runner, on every selected database.

The agents are `fixtures.task_agents` (scripted FunctionModels); `run --wait` runs a task through
the real runner in the test's process.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from fixtures.task_agents import QUICK, SLEEPER, TARGET
from synapse_agents.cli import command_line
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.store import Store
from synapse_agents.tasks import queue, standing_store
from synapse_agents.tasks.standing_store import StandingInput
from synapse_agents.tasks.tables import AgentTask, StandingAgent

runner = CliRunner()
UNKNOWN_ID = '01a23000-0000-7000-8000-000000000000'


def invoke(*args: str) -> Result:
    result = runner.invoke(command_line(), list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def ok(*args: str) -> str:
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return result.stdout


def refused(args: tuple[str, ...], code: int, expected: str) -> None:
    """The command exits with `code` and says `expected` in one line on standard error, nothing else."""
    result = invoke(*args)
    assert result.exit_code == code, result.output
    assert result.stdout == ''
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith('Error: ') and expected in result.stderr, result.stderr


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch, store: Store) -> None:
    """The CLI's settings: the test's database, the task agents, wide tables."""
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
    monkeypatch.setenv('SYNAPSE_AGENTS', TARGET)
    monkeypatch.setenv('COLUMNS', '200')


def add(*extra: str, name: str = 'Nightly digest', agent: str = QUICK) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(
        ok(
            'tasks',
            'add',
            '--name',
            name,
            '--agent',
            agent,
            '--instruction',
            'Summarise the day',
            '--json',
            *extra,
        )
    )
    return body


def snapshot(store: Store) -> list[tuple[Any, ...]]:
    """Every standing agent and task as plain values (what a refusal must leave as it was)."""
    with store.read() as session:
        agents = [
            (r.id, r.name, r.agent_key, r.cron, r.timezone, r.events, r.enabled, r.next_fire_at, r.updated_at)
            for r in session.query(StandingAgent).order_by(StandingAgent.id)
        ]
        tasks = [(t.id, t.status, t.context) for t in session.query(AgentTask).order_by(AgentTask.id)]
    return [*agents, *tasks]


def test_add_list_show_edit_pause_resume_and_remove(store: Store) -> None:
    added = add('--cron', '0 9 * * 1-5', '--timezone', 'Europe/Madrid', '--event', 'order.shipped',
                '--event', 'order.paid', '--debounce', '30', '--tenant', 'org:acme')  # fmt: skip
    standing_id = added['id']
    row = standing_store.get(store, standing_id)
    assert (row.agent_key, row.cron, row.timezone, row.events) == (
        QUICK, '0 9 * * 1-5', 'Europe/Madrid', ['order.shipped', 'order.paid'],
    )  # fmt: skip
    assert (row.tenant_type, row.tenant_id, row.debounce_seconds, row.enabled) == ('org', 'acme', 30, True)
    assert added['schedule_words'] == 'At 09:00, Monday through Friday (Europe/Madrid)'
    assert row.next_fire_at is not None and row.next_fire_at.hour in (7, 8)  # 09:00 Madrid in UTC

    listed = ok('tasks', 'list')
    assert standing_id in listed and 'Nightly digest' in listed and 'At 09:00, Monday' in listed
    assert f'{row.next_fire_at:%Y-%m-%d %H:%M:%S} UTC' in listed
    [shown] = json.loads(ok('tasks', 'list', '--json'))['standing_agents']
    assert shown['id'] == standing_id and shown['events'] == ['order.shipped', 'order.paid']
    detail = json.loads(ok('tasks', 'show', standing_id, '--json'))['standing_agent']
    assert detail['tenant'] == 'org:acme' and detail['last_runs'] == []
    assert 'Tenant: org:acme; subject: none.' in ok('tasks', 'show', standing_id)

    said = ok(
        'tasks', 'edit', standing_id, '--name', 'Digest', '--cron', '', '--no-events', '--subject', 'team:ops'
    )
    assert said.startswith(f'Changed standing agent {standing_id} (Digest): runs only when asked')
    row = standing_store.get(store, standing_id)
    assert (row.name, row.cron, row.next_fire_at, row.events, row.subject_id) == (
        'Digest',
        None,
        None,
        [],
        'ops',
    )
    assert row.tenant_id == 'acme'  # what the options left out stays

    ok('tasks', 'edit', standing_id, '--cron', '@hourly', '--agent', SLEEPER)
    assert ok('tasks', 'pause', standing_id).startswith(f'Paused standing agent {standing_id}')
    row = standing_store.get(store, standing_id)
    assert (row.enabled, row.next_fire_at, row.agent_key) == (False, None, SLEEPER)
    assert 'paused' in ok('tasks', 'list')
    assert 'next run' in ok('tasks', 'resume', standing_id)
    row = standing_store.get(store, standing_id)
    assert row.enabled and row.next_fire_at is not None and row.next_fire_at.minute == 0

    assert ok('tasks', 'rm', standing_id).startswith(f'Removed standing agent {standing_id} (Digest)')
    assert standing_store.list_all(store) == []
    assert ok('tasks', 'list').startswith('No standing agents.')


@pytest.mark.parametrize(
    ('extra', 'expected'),
    [
        (
            ('--agent', 'fixtures.task_agents.nobody'),
            "agent: No agent with slug 'fixtures.task_agents.nobody'",
        ),
        (('--cron', '61 * * * *'), "cron: '61 * * * *' is not a valid expression"),
        (('--cron', '0 9 * *'), 'has 4 fields; a cron expression has five'),
        (
            ('--cron', '0 9 * * *', '--timezone', 'Mars/Base'),
            "timezone: 'Mars/Base' is not an IANA time zone",
        ),
        (('--event', 'order shipped'), "event: 'order shipped' is not an event name"),
        (('--tenant', 'acme'), "--tenant: expected type:id, such as org:acme, not 'acme'"),
        (('--subject', ':7'), '--subject: expected type:id'),
        (('--name', '   '), '--name: may not be blank'),
        (('--instruction', ''), '--instruction: String should have at least 1 character'),
        (('--debounce', '-1'), '--debounce: Input should be greater than or equal to 0'),
    ],
)
def test_a_bad_standing_agent_is_one_line_and_stores_nothing(
    store: Store, extra: tuple[str, ...], expected: str
) -> None:
    args = ('tasks', 'add', '--name', 'n', '--agent', QUICK, '--instruction', 'Do it', *extra)
    refused(args, 2, expected)
    assert snapshot(store) == []


@pytest.mark.parametrize(
    ('extra', 'code', 'expected'),
    [
        ((), 2, 'Nothing to change: give at least one option'),
        (('--agent', 'nobody'), 2, "agent: No agent with slug 'nobody'"),
        (('--cron', 'every day'), 2, "cron: 'every day' has 2 fields"),
        (('--timezone', 'Nowhere/City'), 2, "timezone: 'Nowhere/City' is not an IANA time zone"),
        (('--event', '-bad'), 2, "event: '-bad' is not an event name"),
        (('--name', ''), 2, '--name: String should have at least 1 character'),
        (('--tenant', 'org'), 2, '--tenant: expected type:id'),
    ],
)
def test_a_bad_edit_is_one_line_and_changes_nothing(
    store: Store, extra: tuple[str, ...], code: int, expected: str
) -> None:
    standing_id = add('--cron', '@daily', '--event', 'order.paid')['id']
    before = snapshot(store)
    refused(('tasks', 'edit', standing_id, *extra), code, expected)
    assert snapshot(store) == before


COMMANDS = [('show',), ('edit', '--name', 'x'), ('rm',), ('pause',), ('resume',), ('run',), ('run', '--wait')]


@pytest.mark.parametrize('item_id', ['nope', UNKNOWN_ID], ids=['word', 'unknown-id'])
def test_an_unknown_id_is_one_line(store: Store, item_id: str) -> None:
    add()
    before = snapshot(store)
    for command, *extra in [*COMMANDS, ('cancel',)]:
        what = {'show': 'standing agent or task', 'cancel': 'task'}.get(command, 'standing agent')
        refused(('tasks', command, item_id, *extra), 1, f'No {what} with id {item_id!r}.')
    assert snapshot(store) == before


def test_run_wait_runs_the_task_here_and_prints_its_outcome(store: Store) -> None:
    standing_id = add('--paused')['id']
    said = ok('tasks', 'run', standing_id, '--wait')
    [task] = queue.list_tasks(store, queue.TaskFilters())
    assert (
        task.status == 'succeeded' and task.trigger == 'manual' and task.output == 'Done: Summarise the day'
    )
    assert (
        said.startswith(f'Task {task.id} succeeded in ') and f'conversation {task.conversation_id}.' in said
    )
    assert said.splitlines()[-1] == 'Done: Summarise the day'
    conversation = ConversationRepository(store).get(task.conversation_id or '')
    assert conversation is not None and conversation.origin == 'task'

    shown = ok('tasks', 'show', task.id)
    assert f'Task {task.id}: succeeded, agent {QUICK}, trigger manual.' in shown
    assert 'Started on worker' in shown and 'Succeeded in' in shown
    detail = json.loads(ok('tasks', 'show', task.id, '--json'))['task']
    assert detail['logs'][0]['kind'] == 'started'
    assert detail['logs'][-1]['kind'] == 'finished' and detail['output'] == 'Done: Summarise the day'
    runs = json.loads(ok('tasks', 'show', standing_id, '--json'))['standing_agent']['last_runs']
    assert [run['id'] for run in runs] == [task.id]


def test_run_wait_of_an_agent_that_is_gone_fails_in_one_line(store: Store) -> None:
    gone = standing_store.create(
        store, StandingInput(name='Old', agent='fixtures.task_agents.gone', instruction='x')
    )
    result = invoke('tasks', 'run', gone.id, '--wait')
    [task] = queue.list_tasks(store, queue.TaskFilters())
    assert result.exit_code == 1 and task.status == 'failed'
    assert result.stderr.strip() == f'Error: task {task.id} failed: {task.error}'
    assert "No agent with slug 'fixtures.task_agents.gone'" in (task.error or '')


def test_run_queues_a_task_and_cancel_cancels_it_once(store: Store) -> None:
    standing_id = add(agent=SLEEPER)['id']
    said = ok('tasks', 'run', standing_id)
    [task] = queue.list_tasks(store, queue.TaskFilters())
    assert task.status == 'queued' and said.startswith(
        f'Task {task.id} of Nightly digest: queued for a worker'
    )
    assert ok('tasks', 'cancel', task.id) == f'Cancelled task {task.id} before it started.\n'
    assert queue.get_task(store, task.id)[0].status == 'cancelled'
    before = snapshot(store)
    refused(('tasks', 'cancel', task.id), 1, 'The task is already cancelled: there is nothing to cancel.')
    assert snapshot(store) == before


def test_list_runs_filters_by_status_and_agent(store: Store) -> None:
    quick = add()['id']
    sleeper = add(name='Sleeper', agent=SLEEPER)['id']
    ok('tasks', 'run', quick, '--wait')
    ok('tasks', 'run', sleeper)
    ok('tasks', 'run', sleeper)

    def listed(*args: str) -> list[tuple[str, str]]:
        body = json.loads(ok('tasks', 'list', '--runs', '--json', *args))
        return [(task['agent'], task['status']) for task in body['tasks']]

    assert listed() == [(SLEEPER, 'queued'), (SLEEPER, 'queued'), (QUICK, 'succeeded')]
    assert listed('--status', 'succeeded') == [(QUICK, 'succeeded')]
    assert listed('--agent', SLEEPER, '--limit', '1') == [(SLEEPER, 'queued')]
    assert json.loads(ok('tasks', 'list', '--runs', '--json', '--limit', '1'))['next_before'] is not None
    table = ok('tasks', 'list', '--runs', '--status', 'queued', '--status', 'succeeded')
    assert table.count('queued') == 2 and 'succeeded' in table and 'manual' in table
    assert 'succeeded' in ok('tasks', 'list')  # the standing agents' last run
    assert ok('tasks', 'list', '--runs', '--status', 'failed') == 'No tasks.\n'
    refused(('tasks', 'list', '--runs', '--status', 'done'), 2, "--status: 'done' is not one of queued")


def test_fire_queues_and_debounces_with_tenant_subject_and_context(store: Store) -> None:
    add('--event', 'order.shipped', '--debounce', '300', '--tenant', 'org:acme')
    args = ('tasks', 'fire', 'order.shipped', '--tenant', 'org:acme', '--subject', 'order:7')
    first = json.loads(ok(*args, '--context', '{"order": 7, "items": [1, 2]}', '--json'))
    [task_id] = first['queued']
    second = ok(*args, '--context', '{"order": 7, "items": [1, 2, 3]}')
    assert second == 'Fired order.shipped: queued 0 tasks; folded into 1 queued task.\n'
    task, _logs = queue.get_task(store, task_id)
    assert (task.trigger, task.event, task.fires, task.context) == (
        'event',
        'order.shipped',
        2,
        {'order': 7, 'items': [1, 2, 3]},
    )
    assert (task.tenant_id, task.subject_type, task.subject_id) == ('acme', 'order', '7')
    assert ok('tasks', 'fire', 'order.shipped', '--tenant', 'org:other') == (
        'Fired order.shipped: no enabled standing agent listens to it here.\n'
    )


@pytest.mark.parametrize(
    ('args', 'expected'),
    [
        (('order.shipped', '--context', '{"order": 7'), '--context: not JSON ('),
        (('order.shipped', '--context', '[1, 2]'), '--context: expected a JSON object, not list'),
        (('order.shipped', '--context', '"text"'), '--context: expected a JSON object, not str'),
        (('order.shipped', '--context', 'NaN'), '--context: expected a JSON object, not float'),
        (('order.shipped', '--context', '{"x": NaN}'), 'context: not JSON'),
        (('order shipped',), "event: 'order shipped' is not an event name"),
        (('order.shipped', '--tenant', 'acme'), "--tenant: expected type:id, such as org:acme, not 'acme'"),
        (('order.shipped', '--subject', 'order:'), '--subject: expected type:id'),
    ],
)
def test_a_bad_firing_is_one_line_and_stores_nothing(
    store: Store, args: tuple[str, ...], expected: str
) -> None:
    add('--event', 'order.shipped')
    before = snapshot(store)
    refused(('tasks', 'fire', *args), 2, expected)
    assert snapshot(store) == before


def test_worker_without_a_queue_says_what_to_set() -> None:
    refused(('worker',), 2, 'set SYNAPSE_QUEUE_URL')
    refused(('worker', '--queue', 'bad queue'), 2, 'queue_name')
