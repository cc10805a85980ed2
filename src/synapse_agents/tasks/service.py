"""The task area of one Synapse root: fire events, run now, tick, sweep, and tell the workers.

Every front door (the HTTP API, the CLI, `Synapse.fire`, the scheduler jobs) goes through
`task_service(runtime)`, so a queued task always reaches whoever runs tasks here: the in-process
worker of `synapse serve` (woken at once), or Celery workers when `queue_url` is set (published to
the queue). A process that runs neither leaves the task in the database, where the serving
process's poll finds it within a second. A task is committed before the workers are told: when
the broker does not answer, the task stays queued, the caller gets a notice instead of an error
(a client that retried would run it twice), and the scheduler publishes it once the broker
answers. Blocking methods: call from a thread.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..scope import Ref
from . import clock, events, queue
from .celery_queue import CeleryDispatcher
from .decisions import decide
from .events import Fired
from .tables import AgentTask
from .workers import Dispatcher, InProcessWorker, LocalDispatcher

if TYPE_CHECKING:
    from ..runtime.assembled import SynapseRuntime

AREA = 'tasks'


@dataclass(frozen=True)
class Queued:
    """A task that was queued (committed), and why its workers could not be told yet, if so."""

    task_id: str
    notice: str | None = None


class TaskService:
    """See the module docstring."""

    def __init__(self, runtime: SynapseRuntime) -> None:
        self.runtime = runtime
        settings = runtime.settings
        self.worker: InProcessWorker | None = None
        self.dispatcher: Dispatcher
        if settings.queue_url:
            self.dispatcher = CeleryDispatcher(settings)
        elif runtime.maintenance and settings.task_concurrency > 0:
            self.worker = InProcessWorker(runtime, settings.task_concurrency)
            self.dispatcher = LocalDispatcher(self.worker)
        else:
            self.dispatcher = Dispatcher()

    def fire(
        self,
        event: str,
        *,
        tenant: Ref | None = None,
        subject: Ref | None = None,
        context: dict[str, Any] | None = None,
        now: datetime | None = None,
    ) -> Fired:
        """Fire `event` (see `events.fire`) and tell the workers about the tasks it queued."""
        fired = events.fire(
            self.runtime.store, event, tenant=tenant, subject=subject, context=context, now=now
        )
        for task_id in fired.queued:
            fired.notice = self.dispatcher.queued([task_id], not_before=fired.starts.get(task_id))
            if fired.notice is not None:
                break  # the broker did not answer: the rest wait in the database as well
        return fired

    def run_now(self, standing_id: str) -> Queued:
        """Queue a manual run of the standing agent: its task id, and a notice when the workers
        could not be told yet (the task stays queued all the same)."""
        task_id = queue.enqueue_manual(self.runtime.store, standing_id)
        return Queued(task_id, self.dispatcher.queued([task_id]))

    def decide(self, task_id: str, decisions: Mapping[str, Any]) -> AgentTask:
        """Answer an awaiting task's tool calls (`tasks/decisions.py`) and tell the workers."""
        task = decide(self.runtime.store, task_id, decisions)
        self.dispatcher.queued([task.id])
        return task

    def tick(self, now: datetime | None = None) -> list[str]:
        """One scheduler tick (see `clock.tick`)."""
        queued = clock.tick(self.runtime.store, now=now)
        self.dispatcher.queued(queued)
        return queued

    def sweep(self, now: datetime | None = None) -> list[str]:
        """Fail the running tasks whose worker stopped heart-beating."""
        return queue.sweep(self.runtime.store, self.runtime.settings.task_stale_seconds, now=now)


def task_service(runtime: SynapseRuntime) -> TaskService:
    """The root's task service (one per root)."""
    return runtime.area(AREA, TaskService)
