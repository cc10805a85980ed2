"""Where tasks run: the in-process worker of `synapse serve`, or Celery workers (`synapse worker`).

`Dispatcher` is what the rest of Synapse talks to after queueing a task: the in-process one wakes
the local worker; the Celery one publishes the task's id to the queue (with a countdown for a
debounced task). Either way the database row is the truth: a worker claims the row before it runs
it, so a task published twice, or picked up by the poll and by a delivery, still runs once, and a
task whose message was lost is found by the next poll (`InProcessWorker`) or re-published by the
scheduler (`republish_stale`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

from ..store.schema import utcnow
from . import queue
from .runner import run_task

if TYPE_CHECKING:
    from ..runtime.assembled import SynapseRuntime

logger = logging.getLogger('synapse.tasks')

POLL_SECONDS = 1.0
"""How often the in-process worker looks for due tasks it was not woken for."""


def worker_name(kind: str) -> str:
    """`host:pid:kind`, as tasks record who ran them."""
    return f'{socket.gethostname()}:{os.getpid()}:{kind}'


class InProcessWorker:
    """Runs due tasks in this process's event loop, at most `concurrency` at once."""

    def __init__(
        self, runtime: SynapseRuntime, concurrency: int, *, poll_seconds: float = POLL_SECONDS
    ) -> None:
        self.runtime = runtime
        self.concurrency = max(1, concurrency)
        self.poll_seconds = poll_seconds
        self.name = worker_name('serve')
        self.running: set[str] = set()
        self.finished = 0
        self._wake = anyio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None

    def wake(self) -> None:
        """Look for tasks now (a task was queued in this process); safe from any thread."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._wake.set()
        else:
            loop.call_soon_threadsafe(lambda: self._wake.set())

    async def serve(self) -> None:
        """Claim and run due tasks until cancelled (a cancelled run is recorded as failed)."""
        self._loop = asyncio.get_running_loop()
        limiter = anyio.CapacityLimiter(self.concurrency)
        async with anyio.create_task_group() as group:
            while True:
                free = self.concurrency - len(self.running)
                if free > 0:
                    candidates = await anyio.to_thread.run_sync(queue.claimable, self.runtime.store, free * 2)
                    for task_id in candidates:
                        if len(self.running) >= self.concurrency:
                            break
                        if task_id not in self.running:
                            self.running.add(task_id)
                            group.start_soon(self._one, task_id, limiter)
                with anyio.move_on_after(self.poll_seconds):
                    await self._wake.wait()
                self._wake = anyio.Event()

    async def _one(self, task_id: str, limiter: anyio.CapacityLimiter) -> None:
        try:
            async with limiter:
                await run_task(self.runtime, task_id, self.name)
        except Exception:
            logger.exception('task %s could not be run', task_id)
        finally:
            self.running.discard(task_id)
            self.finished += 1
            self._wake.set()


class Dispatcher:
    """Tells whoever runs tasks that some were queued (the base one: nobody; the poll finds them)."""

    def queued(self, task_ids: Sequence[str], *, not_before: datetime | None = None) -> str | None:
        """`task_ids` were queued (committed); a debounced task names when it may start.

        Never raises for a worker it cannot reach: the tasks stay queued in the database, and the
        answer is a notice saying so (None when they were handed over)."""
        return None


class LocalDispatcher(Dispatcher):
    """Wakes this process's in-process worker."""

    def __init__(self, worker: InProcessWorker) -> None:
        self.worker = worker

    def queued(self, task_ids: Sequence[str], *, not_before: datetime | None = None) -> str | None:
        if task_ids:
            self.worker.wake()
        return None


def republish_stale(runtime: SynapseRuntime, dispatcher: Dispatcher, *, older_than: float = 60) -> int:
    """Publish again the due tasks still queued `older_than` seconds after they were due (a lost
    broker message, or a broker that did not answer when they were queued); claims keep a task
    that was delivered twice from running twice. How many were published (0 while the broker
    still does not answer: they wait for the next sweep)."""
    store = runtime.store
    cutoff = utcnow() - timedelta(seconds=older_than)
    ids = queue.claimable(store, 500, now=cutoff)
    notice = dispatcher.queued(ids)
    if notice is not None:
        logger.warning('%s', notice)
        return 0
    return len(ids)
