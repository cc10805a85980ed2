"""Workflow runs on a real `synapse worker` (Celery on the real Redis, a PostgreSQL database): a run
queued by a root is run step by step by the worker; a worker killed in the middle of a step leaves
its task running until `synapse scheduler`'s sweep fails it, and the run is failed with it."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis
from test_tasks_celery import start_worker

from fixtures.task_agents import QUICK, SLEEPER, SynapseProcess, process_env, wait_until
from fixtures.workers import redis_database
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.runtime.root import SynapseRuntime
from synapse_agents.settings import load_settings
from synapse_agents.store import Store, upgrade
from synapse_agents.tasks import queue
from synapse_agents.tasks.celery_queue import CeleryDispatcher
from synapse_agents.tasks.service import task_service
from synapse_agents.workflows import book, runs
from synapse_agents.workflows.execute import queue_run
from synapse_agents.workflows.tables import WorkflowRun

pytestmark = [pytest.mark.postgresql, pytest.mark.slow]

REDIS_URL = f'redis://127.0.0.1:6379/{redis_database(12)}'


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
def publisher(database: str, queue_name: str) -> Iterator[SynapseRuntime]:
    """A root on `database` that publishes to `queue_name` (no worker of its own), as a server is."""
    overrides = {'database_url': database, 'queue_url': REDIS_URL, 'queue_name': queue_name}
    runtime = SynapseRuntime.open(load_settings(overrides), agents=False)
    try:
        yield runtime
    finally:
        dispatcher = task_service(runtime).dispatcher
        assert isinstance(dispatcher, CeleryDispatcher)
        dispatcher.app.close()
        runtime.close()


def ended(store: Store, run_id: str, timeout: float = 30) -> WorkflowRun:
    """The run once it has finished, read as stored (nothing here reconciles it)."""

    def done() -> WorkflowRun | None:
        run = runs.get_run(store, run_id)
        return run if run.status != 'running' else None

    found: WorkflowRun = wait_until(done, timeout, lambda: repr(runs.get_run(store, run_id).status))
    return found


def test_a_workflow_runs_on_a_celery_worker(database: str, isolated_env: Path) -> None:
    worker = start_worker(database, 'e2e-workflow', isolated_env, 'worker', broker=REDIS_URL)
    store = Store.open(database, isolated_env / 'unused')
    try:
        definition = {
            'version': 1,
            'steps': [
                {'name': 'first', 'agent_name': QUICK, 'input_mapping': {'message': '$.input.text'}},
                {
                    'name': 'second',
                    'agent_name': QUICK,
                    'input_mapping': {'message': '$.steps.first.output.answer'},
                },
            ],
            'outputs': {'final': '$.steps.second.output.answer'},
        }
        workflow = book.create(store, 'relay', 'Relay', definition)
        run = runs.create_run(store, workflow, {'text': 'Ship the parcel'})
        worker.wait_for(' ready.')
        with publisher(database, 'e2e-workflow') as runtime:
            task_id = queue_run(runtime, run.id)
        assert task_id is not None
        done = ended(store, run.id)
        assert done.status == 'completed', done.error
        assert done.output == {'final': 'Done: Done: Ship the parcel'}
        task = queue.get_task(store, task_id)[0]
        assert (task.status, task.agent_key) == ('succeeded', 'job:workflows.run')
        assert task.worker is not None and task.worker.endswith(f':{worker.process.pid}:celery')
        steps = runs.steps(store, run.id)
        assert [s.status for s in steps] == ['completed', 'completed']
        for step in steps:
            conversation = ConversationRepository(store).get(step.conversation_id or '')
            assert conversation is not None and conversation.origin == 'workflow'
    finally:
        store.close()
        code = worker.stop(signal.SIGTERM)
    assert code == 0, worker.describe()


def test_a_killed_worker_fails_its_run_through_the_sweep(database: str, isolated_env: Path) -> None:
    worker = start_worker(database, 'e2e-workflow-kill', isolated_env, 'worker', broker=REDIS_URL)
    store = Store.open(database, isolated_env / 'unused')
    env = process_env(database_url=database, home=str(isolated_env / 'home'), task_stale_seconds='2')
    try:
        definition = {
            'steps': [{'name': 'nap', 'agent_name': SLEEPER}, {'name': 'after', 'agent_name': QUICK}]
        }
        run = runs.create_run(store, book.create(store, 'naps', 'Naps', definition), 'nap 60')
        worker.wait_for(' ready.')
        with publisher(database, 'e2e-workflow-kill') as runtime:
            task_id = queue_run(runtime, run.id)
        assert task_id is not None

        def napping() -> bool:
            task = queue.get_task(store, task_id)[0]
            steps = runs.steps(store, run.id)
            return task.status == 'running' and len(steps) == 1 and steps[0].status == 'running'

        wait_until(napping, 30, worker.describe)
        assert worker.stop(signal.SIGKILL) == -signal.SIGKILL
        assert runs.get_run(store, run.id).status == 'running'

        scheduler = SynapseProcess(['scheduler'], cwd=isolated_env, env=env, name='scheduler')
        try:
            failed = ended(store, run.id)
            task = queue.get_task(store, task_id)[0]
            assert task.status == 'failed' and task.error is not None
            assert failed.status == 'failed' and failed.completed_at is not None
            assert failed.error is not None and 'stopped heart-beating' in failed.error
            assert failed.error.startswith('The run stopped when its task ended (failed)')
            assert failed.current_step_index == 0
            assert failed.failed_step == 'nap' and runs.steps(store, run.id)[0].status == 'failed'
        finally:
            code = scheduler.stop(signal.SIGTERM)
        assert code == 0, scheduler.describe()
    finally:
        store.close()
        worker.stop(signal.SIGKILL)
