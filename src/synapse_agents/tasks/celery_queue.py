"""Publishing agent tasks to Celery on Redis or RabbitMQ (`queue_url`), from any process.

The publishing side of the queue: the Celery app's configuration and `CeleryDispatcher`, which
sends a queued task's id by name. The worker side (the task that runs an id, the worker's own
Synapse root) is `celery_app.py`. Messages carry only the task's id: the row in the shared
database is the truth.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from ..redaction import mask_password, url_password
from ..store.schema import utcnow
from .workers import Dispatcher

if TYPE_CHECKING:
    from celery import Celery

    from ..settings import Settings

logger = logging.getLogger('synapse.tasks')

TASK_NAME = 'synapse.run_agent_task'
VISIBILITY_TIMEOUT_SECONDS = 3600
MAX_COUNTDOWN_SECONDS = VISIBILITY_TIMEOUT_SECONDS / 2
"""The longest countdown a task is published with (see `CeleryDispatcher.queued`)."""
PUBLISH_TIMEOUT_SECONDS = 2.0
"""How long a publish waits to connect to the broker, or for its answer, before it gives up."""
PUBLISH_RETRY_POLICY = {'max_retries': 1, 'interval_start': 0, 'interval_step': 0.2, 'interval_max': 0.2}
"""One retry at once (a connection the broker dropped); a broker that is down is not waited for."""


class QueueMissing(RuntimeError):
    """Celery is not installed (`pip install 'synapse-agents[queue]'`)."""


def queue_app(settings: Settings) -> Celery:
    """The Celery app on `queue_url`, routing agent tasks to `queue_name` (no task registered:
    a publisher sends them by name)."""
    try:
        from celery import Celery
    except ImportError:
        raise QueueMissing(
            "queue_url is set but Celery is not installed: pip install 'synapse-agents[queue]'."
        ) from None
    app = Celery('synapse', broker=settings.queue_url, set_as_current=False)
    app.conf.update(
        task_default_queue=settings.queue_name,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        broker_connection_retry_on_startup=True,
        task_ignore_result=True,
        worker_hijack_root_logger=False,
        broker_transport_options={'visibility_timeout': VISIBILITY_TIMEOUT_SECONDS},
    )

    return app


class CeleryDispatcher(Dispatcher):
    """Publishes queued task ids to the Celery queue, failing fast when the broker does not answer.

    A publish waits at most `PUBLISH_TIMEOUT_SECONDS` to connect or to be answered, and retries
    once: a request that queued a task never hangs on a broker that is down or silent. The task
    is committed before it is published, so a publish that fails leaves it queued in the
    database, and the scheduler publishes it again (`workers.republish_stale`) once the broker
    answers; the caller gets a notice saying so instead of an error."""

    def __init__(self, settings: Settings) -> None:
        self.app = queue_app(settings)
        self.app.conf.update(
            broker_connection_timeout=PUBLISH_TIMEOUT_SECONDS,
            broker_transport_options={
                **self.app.conf.broker_transport_options,
                'socket_connect_timeout': PUBLISH_TIMEOUT_SECONDS,
                'socket_timeout': PUBLISH_TIMEOUT_SECONDS,
            },
            task_publish_retry_policy=PUBLISH_RETRY_POLICY,
        )
        self.queue_name = settings.queue_name
        self.shown_url = mask_password(settings.queue_url or '')
        self.password = url_password(settings.queue_url)

    def queued(self, task_ids: Sequence[str], *, not_before: datetime | None = None) -> str | None:
        countdown = max(0.0, (not_before - utcnow()).total_seconds()) if not_before is not None else None
        if countdown is not None and countdown > MAX_COUNTDOWN_SECONDS:
            # Redis hands a message that waits longer than its visibility timeout out again every
            # timeout; a long debounce is published by the scheduler once it is due instead.
            return None
        for task_id in task_ids:
            try:
                self.app.send_task(TASK_NAME, args=[task_id], queue=self.queue_name, countdown=countdown)
            except Exception as exc:  # whatever the broker's failure, the tasks are committed
                return self._unpublished(exc)
        return None

    def _unpublished(self, exc: Exception) -> str:
        reason = (f'{type(exc).__name__}: {exc}'.splitlines() or [''])[0][:300]
        if self.password:
            reason = reason.replace(self.password, '***')
        notice = (
            f'The broker at {self.shown_url} did not answer ({reason}). The task is queued and will be '
            'published when the broker answers (the scheduler publishes queued tasks again every '
            'minute): sending it again would run it twice.'
        )
        logger.warning('%s', notice)
        return notice
