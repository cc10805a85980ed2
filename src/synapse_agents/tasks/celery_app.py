"""Celery on Redis or RabbitMQ (`queue_url`): agent tasks for workers on several machines.

`synapse worker` starts a Celery worker on `queue_name` (a queue of its own: a run is a loop of
model calls that can take minutes, and must not hold a worker an interactive job waits for). Each
worker process opens one Synapse root on a private event loop thread and runs every delivered task
id through `runner.run_task` there; its thread pool gives the concurrency. Messages carry only the
task's id: the row in the shared database is the truth, and the claim in `run_task` keeps a message
delivered twice from running twice. `task_acks_late` with `task_reject_on_worker_lost` gives a task
back to the queue when its worker dies before finishing it; one the worker had claimed is failed by
the sweep, not run again.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from anyio.from_thread import start_blocking_portal

from ..runtime.root import SynapseRuntime
from ..settings import load_settings
from .celery_queue import TASK_NAME, queue_app
from .runner import run_task
from .workers import worker_name

if TYPE_CHECKING:
    from celery import Celery

    from ..settings import LoadedSettings, Settings

_lock = threading.Lock()
_worker_root: dict[str, Any] = {}


def make_celery(settings: Settings) -> Celery:
    """The Celery app of a worker: the queue's app with the task that runs an agent task's id."""
    app = queue_app(settings)

    @app.task(name=TASK_NAME, ignore_result=True)  # type: ignore[untyped-decorator]
    def run_agent_task(task_id: str) -> str | None:
        return _run_in_worker(task_id)

    return app


# -- inside a worker process ------------------------------------------------------------------


def open_worker_root(loaded: LoadedSettings) -> None:
    """Open this worker process's root on a private event loop (once per process)."""
    with _lock:
        if 'runtime' in _worker_root:
            return
        runtime = SynapseRuntime.open(loaded)
        manager = start_blocking_portal()
        try:
            portal = manager.__enter__()
            portal.call(runtime.start)
        except BaseException:
            manager.__exit__(None, None, None)
            runtime.close()
            raise
        _worker_root.update(runtime=runtime, portal=portal, manager=manager, name=worker_name('celery'))


def close_worker_root() -> None:
    """Stop this process's root (a worker shutting down)."""
    with _lock:
        if 'runtime' not in _worker_root:
            return
        runtime: SynapseRuntime = _worker_root.pop('runtime')
        portal = _worker_root.pop('portal')
        manager = _worker_root.pop('manager')
        try:
            portal.call(runtime.stop)
        finally:
            runtime.close()
            manager.__exit__(None, None, None)


def _run_in_worker(task_id: str) -> str | None:
    if 'runtime' not in _worker_root:
        open_worker_root(load_settings())
    runtime = _worker_root['runtime']
    result: str | None = _worker_root['portal'].call(run_task, runtime, task_id, _worker_root['name'])
    return result
