"""A broker that cannot be reached (`queue_url` on a port nobody listens on, or a server that
accepts and never answers), on every selected database.

The task row is committed before it is published, so an event or "run now" answers 202 with the
task queued and a notice that it will be published when the broker answers, never an error a client
would retry (a second run). A publish gives up within seconds, so no request hangs on the broker.
Once the broker answers, the scheduler's republish job publishes the task: the test reads the
message off a real Redis. The CLI says the same in one line and exits 0.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
import redis
from fastapi.testclient import TestClient
from sqlalchemy import select, update
from typer.testing import CliRunner

from chat_helpers import DEMO, LOCAL_PEER, LOCAL_URL, agent_catalog
from conftest import free_port
from fixtures.task_agents import QUICK, TARGET
from synapse_agents.cli import command_line
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.settings import load_settings
from synapse_agents.store import Store
from synapse_agents.store.schema import utcnow
from synapse_agents.tasks.jobs import scheduler_jobs
from synapse_agents.tasks.tables import AgentTask
from synapse_agents.web.app import create_app

REDIS = 'redis://127.0.0.1:6379/0'
FAST = 10.0
"""The longest an answer may take with a broker that never answers (about 2 s each way today)."""


@pytest.fixture
def silent_broker() -> Iterator[str]:
    """A server that accepts connections and never says a word: a broker that hangs."""
    server = socket.socket()
    server.bind(('127.0.0.1', 0))
    server.listen(64)
    server.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f'redis://:s3cret-broker@127.0.0.1:{server.getsockname()[1]}/0'
    stop.set()
    thread.join(5)
    for connection in held:
        connection.close()
    server.close()


def unreachable() -> str:
    """A Redis URL on a local port nobody listens on (connection refused), with a password."""
    return f'redis://:s3cret-broker@127.0.0.1:{free_port()}/0'


@pytest.fixture
def with_queue(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[str], tuple[TestClient, SynapseContext]]]:
    """`with_queue(url)`: a client of an app whose `queue_url` is `url` (the demo agents served)."""
    clients: list[TestClient] = []
    queue_name = f'synapse-test-{uuid.uuid4().hex[:8]}'

    def make(url: str) -> tuple[TestClient, SynapseContext]:
        monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
        monkeypatch.setenv('SYNAPSE_QUEUE_URL', url)
        monkeypatch.setenv('SYNAPSE_QUEUE_NAME', queue_name)
        context = SynapseContext(loaded=load_settings(), store=store, targets=[], catalog=agent_catalog())
        client = TestClient(create_app(context), base_url=LOCAL_URL, client=LOCAL_PEER)
        clients.append(client.__enter__())
        return client, context

    yield make
    for client in clients:
        client.__exit__(None, None, None)
    redis.Redis.from_url(REDIS).delete(queue_name)


def tasks(store: Store) -> list[AgentTask]:
    with store.read() as session:
        found = list(session.scalars(select(AgentTask).order_by(AgentTask.id)))
        session.expunge_all()
        return found


def standing(client: TestClient, **body: Any) -> str:
    body = {'name': 'Desk', 'agent': DEMO + 'summariser', 'instruction': 'Summarise.', **body}
    response = client.post('/api/standing-agents', json=body)
    assert response.status_code == 201, response.text
    created: str = response.json()['id']
    return created


def timed(step: Callable[[], Any]) -> tuple[Any, float]:
    started = time.monotonic()
    return step(), time.monotonic() - started


def queued_notice(notice: Any, url_port: str) -> None:
    """The notice says the task is queued, names the broker (password hidden) and says not to retry."""
    assert isinstance(notice, str), notice
    assert f'The broker at redis://:***@127.0.0.1:{url_port}/0 did not answer (' in notice
    assert 'will be published when the broker answers' in notice
    assert 'sending it again would run it twice' in notice
    assert 's3cret-broker' not in notice


@pytest.mark.parametrize('kind', ['refused', 'silent'])
def test_an_event_and_run_now_answer_202_with_the_task_queued_and_a_notice(
    with_queue: Callable[[str], tuple[TestClient, SynapseContext]],
    store: Store,
    silent_broker: str,
    kind: str,
) -> None:
    url = unreachable() if kind == 'refused' else silent_broker
    port = url.rsplit(':', 1)[1].split('/')[0]
    client, _context = with_queue(url)
    standing_id = standing(client, events=['order.paid'], tenant='org:acme')

    fired, seconds = timed(
        lambda: client.post('/api/events', json={'event': 'order.paid', 'tenant': 'org:acme'})
    )
    assert fired.status_code == 202, fired.text
    assert seconds < FAST, seconds
    body = fired.json()
    queued_notice(body['notice'], port)
    (task,) = tasks(store)
    assert body['queued'] == [task.id] and task.status == 'queued' and task.standing_agent_id == standing_id

    ran, seconds = timed(lambda: client.post(f'/api/standing-agents/{standing_id}/run'))
    assert ran.status_code == 202, ran.text
    assert seconds < FAST, seconds
    queued_notice(ran.json()['notice'], port)
    assert ran.json()['task']['status'] == 'queued'
    assert [t.id for t in tasks(store)] == [task.id, ran.json()['task']['id']]  # one row each, no more


def test_a_broker_that_answers_publishes_at_once_with_no_notice(
    with_queue: Callable[[str], tuple[TestClient, SynapseContext]], store: Store
) -> None:
    client, context = with_queue(REDIS)
    standing_id = standing(client)
    ran = client.post(f'/api/standing-agents/{standing_id}/run')
    assert ran.status_code == 202 and ran.json()['notice'] is None, ran.text
    messages = redis.Redis.from_url(REDIS).lrange(context.settings.queue_name, 0, -1)
    assert [json.loads(m)['headers']['argsrepr'] for m in messages] == [repr([ran.json()['task']['id']])]


def test_the_scheduler_publishes_the_task_once_the_broker_answers(
    with_queue: Callable[[str], tuple[TestClient, SynapseContext]], store: Store
) -> None:
    down, _context = with_queue(unreachable())
    standing_id = standing(down, events=['order.paid'])
    fired = down.post('/api/events', json={'event': 'order.paid', 'subject': 'case:1'}).json()
    ran = down.post(f'/api/standing-agents/{standing_id}/run').json()
    assert fired['notice'] and ran['notice']
    waiting = {*fired['queued'], ran['task']['id']}
    with store.write() as session:  # a minute and more has passed since they were due
        past = utcnow() - timedelta(minutes=2)
        session.execute(update(AgentTask).values(not_before=past, queued_at=past))

    _up, context = with_queue(REDIS)  # the broker answers again
    (republish,) = [job for job in scheduler_jobs(context) if job.name == 'tasks.republish']
    assert republish.interval_s == 60
    assert republish.run() == 2
    messages = redis.Redis.from_url(REDIS).lrange(context.settings.queue_name, 0, -1)
    assert {json.loads(m)['headers']['argsrepr'] for m in messages} == {repr([task]) for task in waiting}
    assert {t.status for t in tasks(store)} == {'queued'}  # a worker's claim runs each once


# -- the command line -----------------------------------------------------------------------------

cli = CliRunner()


def invoke(*args: str) -> Any:
    result = cli.invoke(command_line(), list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def test_the_cli_queues_once_says_so_in_one_line_and_exits_0(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = unreachable()
    port = url.rsplit(':', 1)[1].split('/')[0]
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
    monkeypatch.setenv('SYNAPSE_AGENTS', TARGET)
    monkeypatch.setenv('SYNAPSE_QUEUE_URL', url)
    monkeypatch.setenv('COLUMNS', '400')
    added = invoke(
        'tasks',
        'add',
        '--name',
        'Desk',
        '--agent',
        QUICK,
        '--instruction',
        'Go',
        '--event',
        'order.paid',
        '--json',
    )
    assert added.exit_code == 0, added.output
    standing_id = json.loads(added.stdout)['id']

    ran, seconds = timed(lambda: invoke('tasks', 'run', standing_id))
    assert ran.exit_code == 0 and seconds < FAST, (ran.output, seconds)
    (task,) = tasks(store)
    (line,) = ran.stdout.strip().splitlines()
    assert line.startswith(f'Task {task.id} of Desk: queued. ') and ran.stderr == ''
    queued_notice(line, port)

    fired = invoke('tasks', 'fire', 'order.paid', '--subject', 'case:1')
    assert fired.exit_code == 0, fired.output
    (line,) = fired.stdout.strip().splitlines()
    new = [t for t in tasks(store) if t.id != task.id]
    assert len(new) == 1 and line.startswith(f'Fired order.paid: queued 1 task {new[0].id}. ')
    queued_notice(line, port)
    as_json = json.loads(invoke('tasks', 'fire', 'order.paid', '--json').stdout)
    queued_notice(as_json['notice'], port)
    assert len(tasks(store)) == 3 and {t.status for t in tasks(store)} == {'queued'}
