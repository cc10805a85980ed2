"""Real `synapse worker` processes (Celery, threads pool) on the real Redis and a PostgreSQL database.

The test process queues tasks through `task_service(runtime)` with `queue_url` set, as a server
would (its dispatcher publishes to Celery); the workers run them through the real runner with the
scripted agents of `fixtures.task_agents`. Each test has its own database and its own queue name
on Redis database 11 (xdist's worker N uses 11 + N), which the module empties first and last.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis

from fixtures.task_agents import QUICK, SLEEPER, TARGET, SynapseProcess, process_env, wait_until
from fixtures.workers import redis_database
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.conversations.tables import Conversation, Message
from synapse_agents.memory import book
from synapse_agents.memory.jobs import queue_distillation
from synapse_agents.runtime.root import SynapseRuntime
from synapse_agents.settings import load_settings
from synapse_agents.store import Store, upgrade
from synapse_agents.store.schema import utcnow
from synapse_agents.tasks import queue, standing_store
from synapse_agents.tasks.celery_queue import CeleryDispatcher
from synapse_agents.tasks.service import TaskService, task_service
from synapse_agents.tasks.standing_store import StandingInput
from synapse_agents.tasks.tables import AgentTask

pytestmark = [pytest.mark.postgresql, pytest.mark.slow]

REDIS_URL = f'redis://127.0.0.1:6379/{redis_database(11)}'
RABBITMQ_URL = 'amqp://guest:guest@127.0.0.1:5672//'


@pytest.fixture(scope='module', autouse=True)
def empty_redis() -> Iterator[None]:
    client = redis.Redis.from_url(REDIS_URL)
    client.flushdb()
    yield
    client.flushdb()
    client.close()


@pytest.fixture
def database(empty_postgres_database: str) -> str:
    store = Store.open(empty_postgres_database, Path('/nonexistent'))
    upgrade(store.engine)
    store.close()
    return empty_postgres_database


@contextmanager
def service_on(database: str, queue_name: str, broker: str = REDIS_URL) -> Iterator[TaskService]:
    """The task service of a root on `database` that publishes to `queue_name` (no worker of its own)."""
    overrides = {'database_url': database, 'queue_url': broker, 'queue_name': queue_name}
    runtime = SynapseRuntime.open(load_settings(overrides), agents=False)
    try:
        yield task_service(runtime)
    finally:
        dispatcher = task_service(runtime).dispatcher
        assert isinstance(dispatcher, CeleryDispatcher)
        dispatcher.app.close()
        runtime.close()


def start_worker(
    database: str, queue_name: str, cwd: Path, name: str, broker: str = REDIS_URL
) -> SynapseProcess:
    env = process_env(
        database_url=database,
        queue_url=broker,
        agents=TARGET,
        home=str(cwd / 'home'),
        task_heartbeat_seconds='0.5',
    )
    return SynapseProcess(
        ['worker', '--queue', queue_name, '--concurrency', '1'], cwd=cwd, env=env, name=name
    )


def final(store: Store, task_id: str, timeout: float = 30) -> AgentTask:
    """The task once it has finished."""

    def finished() -> AgentTask | None:
        task = queue.get_task(store, task_id)[0]
        return task if task.status in ('succeeded', 'failed', 'cancelled') else None

    found: AgentTask = wait_until(finished, timeout, lambda: repr(queue.get_task(store, task_id)[0].status))
    return found


def test_a_fired_event_and_a_run_now_are_run_by_a_worker(database: str, isolated_env: Path) -> None:
    worker = start_worker(database, 'e2e-one', isolated_env, 'worker')
    store = Store.open(database, isolated_env / 'unused')
    try:
        standing = standing_store.create(
            store,
            StandingInput(
                name='Shipping note', agent=QUICK, instruction='Note the shipment', events=['order.shipped']
            ),
        )
        worker.wait_for(' ready.')
        with service_on(database, 'e2e-one') as service:
            fired = service.fire(
                'order.shipped', tenant=('org', 'acme'), subject=('order', '7'), context={'n': 7}
            )
            manual = service.run_now(standing.id)
        assert fired.notice is None and manual.notice is None  # the broker answered: published at once
        [event_task] = fired.queued
        for task_id, trigger in ((event_task, 'event'), (manual.task_id, 'manual')):
            task = final(store, task_id)
            assert (task.status, task.trigger, task.error) == ('succeeded', trigger, None)
            assert task.worker is not None and task.worker.endswith(f':{worker.process.pid}:celery')
            assert task.output == 'Done: Note the shipment'
            conversation = ConversationRepository(store).get(task.conversation_id or '')
            assert conversation is not None and conversation.origin == 'task'
        event_run = queue.get_task(store, event_task)[0]
        assert (event_run.tenant_id, event_run.subject_id, event_run.context) == ('acme', '7', {'n': 7})
    finally:
        store.close()
        code = worker.stop(signal.SIGTERM)
    assert code == 0 and 'Worker stopped.' in worker.output(), worker.describe()


def test_a_task_published_twice_to_two_workers_runs_once(database: str, isolated_env: Path) -> None:
    workers = [start_worker(database, 'e2e-twice', isolated_env, f'worker-{index}') for index in range(2)]
    store = Store.open(database, isolated_env / 'unused')
    try:
        standing = standing_store.create(
            store, StandingInput(name='Nap', agent=SLEEPER, instruction='nap 1.5')
        )
        for worker in workers:
            worker.wait_for(' ready.')
        with service_on(database, 'e2e-twice') as service:
            task_id = queue.enqueue_manual(store, standing.id)
            service.dispatcher.queued([task_id])
            service.dispatcher.queued([task_id])
        task, logs = queue.get_task(store, final(store, task_id).id)
        assert task.status == 'succeeded' and task.output == 'Rested.'
        assert [entry.kind for entry in logs].count('started') == 1
        assert [entry.kind for entry in logs].count('tool_call') == 1
        # Each worker got one delivery: one ran it, the other found it taken (run_task gave None).
        results = sorted(
            (worker.output().count(": 'succeeded'"), worker.output().count('s: None')) for worker in workers
        )
        assert results == [(0, 1), (1, 0)], [worker.output() for worker in workers]
        with store.read() as session:
            assert session.query(AgentTask).count() == 1
        assert store.counts()['conversations'] == 1
    finally:
        store.close()
        for worker in workers:
            worker.stop(signal.SIGTERM)


def test_a_worker_killed_mid_task_leaves_it_running_until_the_sweep_fails_it(
    database: str, isolated_env: Path
) -> None:
    worker = start_worker(database, 'e2e-kill', isolated_env, 'worker')
    store = Store.open(database, isolated_env / 'unused')
    env = process_env(database_url=database, home=str(isolated_env / 'home'), task_stale_seconds='2')
    try:
        standing = standing_store.create(
            store, StandingInput(name='Long nap', agent=SLEEPER, instruction='nap 60')
        )
        worker.wait_for(' ready.')
        with service_on(database, 'e2e-kill') as service:
            task_id = service.run_now(standing.id).task_id

        def napping() -> bool:
            task, logs = queue.get_task(store, task_id)
            return task.status == 'running' and any(entry.kind == 'tool_call' for entry in logs)

        wait_until(napping, 30, worker.describe)
        assert worker.stop(signal.SIGKILL) == -signal.SIGKILL
        task = queue.get_task(store, task_id)[0]
        assert task.status == 'running' and task.finished_at is None

        scheduler = SynapseProcess(['scheduler'], cwd=isolated_env, env=env, name='scheduler')
        try:
            task = final(store, task_id)
            assert task.status == 'failed', task.error
            assert task.error is not None and f'The worker {task.worker} stopped heart-beating' in task.error
            assert 'more than 2 s before the sweep' in task.error
            logs = queue.get_task(store, task_id)[1]
            assert logs[-1].kind == 'error' and logs[-1].message == task.error
            scheduler.wait_for('tasks.sweep: 1 tasks')
        finally:
            code = scheduler.stop(signal.SIGTERM)
        assert code == 0 and 'Scheduler stopped.' in scheduler.output(), scheduler.describe()
    finally:
        store.close()
        worker.stop(signal.SIGKILL)


def test_a_worker_on_rabbitmq_runs_a_fired_event(database: str, isolated_env: Path) -> None:
    """The same queue on RabbitMQ (the machine's broker at 5672): a fired event runs once."""
    queue_name = f'e2e-rabbit-{isolated_env.name}'
    worker = start_worker(database, queue_name, isolated_env, 'worker', broker=RABBITMQ_URL)
    store = Store.open(database, isolated_env / 'unused')
    try:
        standing_store.create(
            store,
            StandingInput(
                name='Triage', agent=QUICK, instruction='Triage the reply', events=['reply.created']
            ),
        )
        worker.wait_for(' ready.')
        with service_on(database, queue_name, broker=RABBITMQ_URL) as service:
            [task_id] = service.fire('reply.created', tenant=('org', 'acme')).queued
            assert isinstance(service.dispatcher, CeleryDispatcher)
            task = final(store, task_id)
            assert (task.status, task.output) == ('succeeded', 'Done: Triage the reply')
            assert task.tenant_id == 'acme'
            assert task.worker is not None and task.worker.endswith(f':{worker.process.pid}:celery')
            with service.dispatcher.app.connection_for_write() as connection:
                connection.default_channel.queue_delete(queue_name)
    finally:
        store.close()
        code = worker.stop(signal.SIGTERM)
    assert code == 0, worker.describe()


def test_a_distillation_runs_on_a_celery_worker(database: str, isolated_env: Path) -> None:
    """Memory's distiller is a task like any other: queued by a root, run by `synapse worker`."""

    env = process_env(
        database_url=database,
        queue_url=REDIS_URL,
        agents=TARGET,
        home=str(isolated_env / 'home'),
        memory_model='demo',
    )
    worker = SynapseProcess(
        ['worker', '--queue', 'e2e-memory', '--concurrency', '1'], cwd=isolated_env, env=env, name='worker'
    )
    store = Store.open(database, isolated_env / 'unused')
    try:
        with store.write() as session:
            conversation = Conversation(
                agent_key='assistant',
                origin='app',
                tenant_type='firm',
                tenant_id='7',
                actor_type='user',
                actor_id='maria',
            )
            session.add(conversation)
            session.flush()
            session.add(
                Message(
                    conversation_id=conversation.id,
                    role='user',
                    content='I prefer short answers. We bill clients fortnightly.',
                    created_at=utcnow(),
                )
            )
            session.add(
                Message(
                    conversation_id=conversation.id, role='assistant', content='Noted.', created_at=utcnow()
                )
            )
            conversation_id = conversation.id
        worker.wait_for(' ready.')
        overrides = {
            'database_url': database,
            'queue_url': REDIS_URL,
            'queue_name': 'e2e-memory',
            'memory_model': 'demo',
        }
        runtime = SynapseRuntime.open(load_settings(overrides), agents=False)
        dispatcher = task_service(runtime).dispatcher
        assert isinstance(dispatcher, CeleryDispatcher)
        try:
            task_id = queue_distillation(runtime, conversation_id, ('firm', '7'))
            assert task_id is not None
        finally:
            dispatcher.app.close()
            runtime.close()
        task = final(store, task_id)
        assert (task.status, task.error, task.agent_key) == ('succeeded', None, 'job:memory.distill')
        assert task.worker is not None and task.worker.endswith(f':{worker.process.pid}:celery')
        rows, _ = book.listing(store, book.MemoryFilters(tenant='firm:7'))
        assert {(r.content, r.applies_to) for r in rows} == {
            ('We bill clients fortnightly.', None),
            ('I prefer short answers.', 'user:maria'),
        }
    finally:
        store.close()
        code = worker.stop(signal.SIGTERM)
    assert code == 0, worker.describe()
