"""The task area's background jobs on a root that does the background work (`synapse serve`).

- `tasks.scheduler`: a tick every `tick_seconds` (when `scheduler` is on);
- `tasks.sweep`: fails tasks whose worker stopped heart-beating, every quarter of
  `task_stale_seconds` (at most a minute);
- `tasks.worker`: the in-process worker (without `queue_url`, when `task_concurrency` > 0);
- `tasks.republish`: with `queue_url`, publishes again the tasks whose message was lost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..runtime.jobs import Job
from .service import task_service
from .workers import republish_stale

if TYPE_CHECKING:
    from ..runtime.assembled import SynapseRuntime

REPUBLISH_SECONDS = 60.0


def sweep_interval(stale_seconds: float) -> float:
    return max(1.0, min(60.0, stale_seconds / 4))


def scheduler_jobs(runtime: SynapseRuntime) -> list[Job]:
    """The ticker, the sweep and (with a queue) the republisher: what `synapse scheduler` runs."""
    service = task_service(runtime)
    settings = runtime.settings
    jobs = [
        Job('tasks.scheduler', service.tick, settings.tick_seconds),
        Job('tasks.sweep', service.sweep, sweep_interval(settings.task_stale_seconds)),
    ]
    if settings.queue_url:
        jobs.append(
            Job(
                'tasks.republish',
                lambda: republish_stale(runtime, service.dispatcher),
                REPUBLISH_SECONDS,
                run_at_start=False,
            )
        )
    return jobs


def task_jobs(runtime: SynapseRuntime) -> list[Job]:
    """What a root doing the background work runs (nothing for one that does not)."""
    if not runtime.maintenance:
        return []
    service = task_service(runtime)
    jobs = (
        scheduler_jobs(runtime)
        if runtime.settings.scheduler
        else [Job('tasks.sweep', service.sweep, sweep_interval(runtime.settings.task_stale_seconds))]
    )
    if service.worker is not None:
        jobs.append(Job('tasks.worker', service.worker.serve, 3600.0))
    return jobs
