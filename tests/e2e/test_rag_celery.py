"""Indexing on a real `synapse worker` (Celery on the real Redis, a PostgreSQL database): a run
queued by a root (as `POST /api/rag/sources/{slug}/index` and `synapse rag index --queue` queue it)
is run by the worker, which reports the progress on the source row and the outcome on the task."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis
from test_tasks_celery import start_worker

from fixtures.task_agents import wait_until
from fixtures.workers import redis_database
from synapse_agents.plugins.defaults import default_manager
from synapse_agents.retrieval import sources
from synapse_agents.retrieval.jobs import KIND, queue_index
from synapse_agents.runtime.root import SynapseRuntime
from synapse_agents.settings import Settings, load_settings
from synapse_agents.store import Store, upgrade
from synapse_agents.tasks import queue
from synapse_agents.tasks.celery_queue import CeleryDispatcher
from synapse_agents.tasks.service import task_service

pytestmark = [pytest.mark.postgresql, pytest.mark.slow]

REDIS_URL = f'redis://127.0.0.1:6379/{redis_database(14)}'


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


def test_an_indexing_run_is_run_by_a_celery_worker(database: str, isolated_env: Path, tmp_path: Path) -> None:
    root = tmp_path / 'docs'
    root.mkdir()
    for n in range(4):
        (root / f'note{n}.md').write_text(f'# Note {n}\n\nThe meeting number {n} is on a Tuesday.')
    worker = start_worker(database, 'e2e-rag', isolated_env, 'worker', broker=REDIS_URL)
    store = Store.open(database, isolated_env / 'unused')
    try:
        settings = Settings(home=isolated_env / 'home', database_url=database)
        sources.create(
            store, settings, default_manager(), slug='notes', name='Notes', kind='folder', path=str(root)
        )
        worker.wait_for(' ready.')
        with publisher(database, 'e2e-rag') as runtime:
            task_id, queued = queue_index(runtime, 'notes')
        assert queued.status == 'pending'

        def finished() -> str | None:
            task = queue.get_task(store, task_id)[0]
            return task.status if task.status in ('succeeded', 'failed') else None

        assert wait_until(finished, 60, worker.describe) == 'succeeded'
        task = queue.get_task(store, task_id)[0]
        assert task.agent_key == f'job:{KIND}' and task.worker is not None
        assert task.worker.endswith(f':{worker.process.pid}:celery')
        row = sources.get(store, 'notes')
        assert (row.status, row.processed_files, row.total_files, row.document_count) == ('done', 4, 4, 4)
        assert row.claim is None and row.embedder is not None
    finally:
        store.close()
        code = worker.stop(signal.SIGTERM)
    assert code == 0, worker.describe()
