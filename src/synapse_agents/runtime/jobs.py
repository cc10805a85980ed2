"""A small in-process runner for the root's background jobs: a name, an interval, a callable.

A job with no interval is start-up work: `JobRunner.start` runs it, in the order jobs were added,
before it returns, and its exception fails the start. A periodic job runs as an asyncio task of
the loop that called `start`: first at once (unless `run_at_start=False`), then every
`interval_s` seconds; a run that raises is logged and the next run happens as planned. A plain
function runs in a worker thread (store work blocks); an `async` one runs on the loop.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from contextlib import suppress

import anyio.to_thread

from ..plugins.hookspecs import Job, JobFunction

__all__ = ['Job', 'JobFunction', 'JobRunner']

logger = logging.getLogger('synapse.jobs')


class JobRunner:
    """Runs the jobs added to it between `start()` and `stop()`; may be started again after a stop."""

    def __init__(self) -> None:
        self._jobs: dict[str, Job] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._started = False
        self.runs: dict[str, int] = {}
        """How many runs of each job finished (successfully or not) since the runner was made."""

    @property
    def jobs(self) -> list[Job]:
        """The jobs added, in the order they were added."""
        return list(self._jobs.values())

    @property
    def running(self) -> bool:
        """Between `start()` and `stop()`."""
        return self._started

    def add(self, job: Job) -> Job:
        """Add `job`; a name already taken is a `ValueError`. Added while running, it starts at once."""
        if job.name in self._jobs:
            raise ValueError(f'a job named {job.name!r} is already added')
        self._jobs[job.name] = job
        if self.running and job.interval_s is not None:
            self._tasks.append(self._spawn(job))
        return job

    def add_job(
        self, name: str, interval_s: float | None, fn: JobFunction, *, run_at_start: bool = True
    ) -> Job:
        """Add a job from its parts (see `Job`)."""
        return self.add(Job(name, fn, interval_s, run_at_start))

    def remove(self, name: str) -> None:
        """Forget the job `name` (a running periodic task of it stops at the next `stop`)."""
        self._jobs.pop(name, None)

    async def start(self) -> None:
        """Run the start-up jobs in order, then start the periodic ones."""
        if self.running:
            raise RuntimeError('the job runner is already running')
        for job in self.jobs:
            if job.interval_s is None:
                await self.run_once(job)
        self._tasks = [self._spawn(job) for job in self.jobs if job.interval_s is not None]
        self._started = True

    async def stop(self) -> None:
        """Cancel the periodic jobs and wait until they stopped.

        A task of another event loop (a root shared by two apps, each with its own loop) is
        cancelled through its loop and not waited for; a task of a closed loop is already gone.
        """
        tasks, self._tasks = self._tasks, []
        self._started = False
        here = asyncio.get_running_loop()
        mine = [task for task in tasks if task.get_loop() is here]
        for task in tasks:
            loop = task.get_loop()
            if loop is here:
                task.cancel()
            elif not loop.is_closed():
                loop.call_soon_threadsafe(task.cancel)
        for task in mine:
            with suppress(asyncio.CancelledError):
                await task

    async def run_once(self, job: Job) -> object:
        """One run of `job`, in a thread when it is a plain function; its exception propagates."""
        try:
            if inspect.iscoroutinefunction(job.run):
                return await job.run()
            result = await anyio.to_thread.run_sync(job.run)
            if inspect.isawaitable(result):
                return await result
            return result
        finally:
            self.runs[job.name] = self.runs.get(job.name, 0) + 1

    def _spawn(self, job: Job) -> asyncio.Task[None]:
        return asyncio.create_task(self._periodic(job), name=f'synapse-job-{job.name}')

    async def _periodic(self, job: Job) -> None:
        assert job.interval_s is not None
        if not job.run_at_start:
            await asyncio.sleep(job.interval_s)
        while True:
            try:
                await self.run_once(job)
            except Exception:
                logger.exception('background job %r failed', job.name)
            await asyncio.sleep(job.interval_s)
