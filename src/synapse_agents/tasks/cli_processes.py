"""The long-running task processes: `synapse worker`, `synapse scheduler`, and a run in the foreground.

- `synapse worker` is a Celery worker on `queue_url`, consuming `queue_name` with a pool of
  threads. The process opens one Synapse root before it consumes (a database that is not ready
  stops it at once, in one line) and closes it when Celery shuts down (SIGTERM or Ctrl-C: a warm
  shutdown lets running tasks finish; a second Ctrl-C stops them). Mingle and gossip are off: the
  database, not the workers, knows which task is whose.
- `synapse scheduler` runs the ticker, the sweep and, with a queue, the republisher
  (`jobs.scheduler_jobs`) until SIGINT or SIGTERM. Without `queue_url` the tasks it queues wait in
  the database for the in-process worker of a `synapse serve` on the same database.
- `run_here` runs one task in this process (`synapse tasks run --wait`).
"""

from __future__ import annotations

import logging
import os
import signal
import socket
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from ..cli_common import fail

if TYPE_CHECKING:
    from ..runtime.assembled import SynapseRuntime
    from ..runtime.jobs import Job
    from ..settings import LoadedSettings
    from .tables import AgentTask

logger = logging.getLogger('synapse.tasks')

NO_QUEUE = (
    'synapse worker needs a queue: set SYNAPSE_QUEUE_URL (or queue_url in [tool.synapse]) to a Redis or '
    'RabbitMQ URL, such as redis://127.0.0.1:6379/0.'
)
FINISHED_POLL_SECONDS = 0.5


def _loaded(**overrides: Any) -> LoadedSettings:
    from ..settings import SettingsError, load_settings

    try:
        return load_settings(overrides)
    except SettingsError as exc:
        fail(str(exc), 2)


def _root(ctx: typer.Context, loaded: LoadedSettings) -> SynapseRuntime:
    from ..cli_db import plugins_of
    from ..errors import StoreNotReady
    from ..runtime.assembled import SynapseRuntime

    try:
        return SynapseRuntime.open(loaded, agents=False, plugins=plugins_of(ctx))
    except StoreNotReady as exc:
        fail(str(exc))


def _log_to_stderr() -> None:
    logging.basicConfig(level=logging.INFO, format='%(asctime)s %(levelname)s %(name)s: %(message)s')


# -- synapse worker -------------------------------------------------------------------------------


def worker_command(
    concurrency: Annotated[
        int | None,
        typer.Option(min=1, max=64, help='Tasks run at once, one thread each (setting: task_concurrency).'),
    ] = None,
    queue: Annotated[
        str | None, typer.Option('--queue', help='The queue to consume (setting: queue_name).')
    ] = None,
) -> None:
    """Run agent tasks from the Celery queue (queue_url) until stopped."""
    loaded = _loaded(queue_name=queue)
    if not loaded.settings.queue_url:
        fail(NO_QUEUE, 2)
    threads = concurrency or max(1, loaded.settings.task_concurrency)
    raise typer.Exit(run_worker(loaded, threads))


def run_worker(loaded: LoadedSettings, concurrency: int) -> int:
    """Consume `queue_name` with `concurrency` threads until Celery shuts down; the exit code."""
    from ..errors import StoreNotReady
    from .celery_app import close_worker_root, make_celery, open_worker_root

    settings = loaded.settings
    app = make_celery(settings)
    try:
        open_worker_root(loaded)
    except StoreNotReady as exc:
        fail(str(exc))
    try:
        worker = app.Worker(
            hostname=f'synapse-{os.getpid()}@{socket.gethostname()}',
            pool='threads',
            concurrency=concurrency,
            queues=[settings.queue_name],
            loglevel='INFO',
            without_mingle=True,
            without_gossip=True,
        )
        worker.start()
        return int(worker.exitcode or 0)
    finally:
        close_worker_root()
        Console().print('Worker stopped.')


# -- synapse scheduler ----------------------------------------------------------------------------


def scheduler_command(ctx: typer.Context) -> None:
    """Tick the schedules, fail stalled tasks and (with a queue) republish lost ones, until stopped."""
    loaded = _loaded()
    with _root(ctx, loaded) as runtime:
        run_scheduler(runtime)


def run_scheduler(runtime: SynapseRuntime) -> None:
    """Run the scheduler's jobs on `runtime` until SIGINT or SIGTERM."""
    import anyio

    from .jobs import scheduler_jobs

    _log_to_stderr()
    for job in scheduler_jobs(runtime):
        runtime.jobs.add(_logged(job))
    settings = runtime.settings
    where = (
        f'the queue {settings.queue_name}'
        if settings.queue_url
        else 'the database (the in-process worker of synapse serve runs them)'
    )
    console = Console()

    async def serve() -> None:
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async with runtime.running():
                console.print(
                    f'Scheduler started: a tick every {settings.tick_seconds:g} s, tasks to {where}; '
                    f'running tasks silent for {settings.task_stale_seconds:g} s are failed. '
                    'Ctrl-C stops it.',
                    highlight=False,
                    soft_wrap=True,
                )
                async for _signal in signals:
                    break
        console.print('Scheduler stopped.')

    anyio.run(serve)


def _logged(job: Job) -> Job:
    """`job`, saying what each run did when it did something."""
    import inspect

    from ..runtime.jobs import Job

    run = job.run
    if inspect.iscoroutinefunction(run):
        return job

    def logged() -> object:
        result = run()
        if isinstance(result, list) and result:
            logger.info('%s: %d tasks (%s)', job.name, len(result), ', '.join(result[:10]))
        elif isinstance(result, int) and result:
            logger.info('%s: %d tasks', job.name, result)
        return result

    return Job(job.name, logged, job.interval_s, job.run_at_start)


# -- synapse tasks run --wait ---------------------------------------------------------------------


def run_here(runtime: SynapseRuntime, task_id: str) -> AgentTask:
    """Run the task in this process (another worker may claim it first: then wait for its end)."""
    import anyio

    from . import queue
    from .runner import run_task
    from .tables import FINAL
    from .workers import worker_name

    async def run() -> AgentTask:
        async with runtime.running():
            await run_task(runtime, task_id, worker_name('cli'))
            while True:
                task, _logs = await anyio.to_thread.run_sync(queue.get_task, runtime.store, task_id)
                if task.status in FINAL:
                    return task
                await anyio.sleep(FINISHED_POLL_SECONDS)

    return anyio.run(run)
