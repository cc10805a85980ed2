"""Indexing on the task queue: the `rag.index` job, and queueing it.

A task of kind `rag.index` carries `{"source_id", "reembed"}` and runs `indexer.index_source` in
whichever process claims it (the in-process runner of `synapse serve`, or a Celery worker). At most
one such task waits per source; the run itself is still one per source, decided by its claim.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import update

from ..errors import SourceConflict
from ..store.schema import utcnow
from ..tasks import queue
from ..tasks.service import task_service
from .claims import is_live
from .indexer import index_source
from .sources import get
from .tables import RagSource

if TYPE_CHECKING:
    from ..plugins.hookspecs import Root

KIND = 'rag.index'


async def index_job(runtime: Root, context: dict[str, Any]) -> dict[str, Any]:
    """The task's work: index the source its context names."""
    source_id = context.get('source_id')
    if not isinstance(source_id, str):
        raise ValueError('an indexing task needs a source_id in its context')
    outcome = await index_source(
        runtime.store, runtime.settings, runtime.plugins, source_id, reembed=bool(context.get('reembed'))
    )
    return outcome.as_json()


def queue_index(runtime: Root, slug: str, *, reembed: bool = False) -> tuple[str, RagSource]:
    """Queue an indexing run of the source (blocking): the task id and the source, now `pending`.
    `SourceConflict` while a run indexes it or one is queued already."""
    source = get(runtime.store, slug)
    if is_live(source, runtime.settings.task_stale_seconds):
        raise SourceConflict(f'The source {slug!r} is being indexed already.')
    tenant = tuple(source.tenant.split(':', 1)) if source.tenant else None
    task_id = queue.enqueue_job(
        runtime.store,
        KIND,
        {'source_id': source.id, 'reembed': reembed},
        tenant=(tenant[0], tenant[1]) if tenant else None,
        once_key=source.id,
    )
    if task_id is None:
        raise SourceConflict(f'An indexing run of {slug!r} is queued already.')
    with runtime.store.write() as session:
        session.execute(
            update(RagSource)
            .where(RagSource.id == source.id, RagSource.claim.is_(None))
            .values(status='pending', updated_at=utcnow())
            .execution_options(synchronize_session=False)
        )
    task_service(runtime).dispatcher.queued([task_id])  # type: ignore[arg-type]
    return task_id, get(runtime.store, slug)
