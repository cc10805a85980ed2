"""Distilling on the task queue: queued when a conversation is compressed and by a sweep of quiet ones.

`queue_distillation` puts a `job:memory.distill` task on the queue (one waiting per conversation:
a second request while one waits adds nothing, the queued one will read the newer messages too) and
tells the workers. The sweep, every `memory_sweep_minutes` on a root doing the background work,
queues the conversations with a tenant that have been quiet that long and hold at least one message
the distiller has not read. Nothing is queued while no `memory_model` is named.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from sqlalchemy import and_, exists, or_, select

from ..conversations.tables import Conversation, Message
from ..plugins.hookspecs import Job
from ..store import Store
from ..store.schema import utcnow
from ..tasks import queue
from ..tasks.service import task_service
from .distiller import distil
from .tables import MemoryCursor

if TYPE_CHECKING:
    from ..plugins.hookspecs import Root

KIND = 'memory.distill'
SWEEP_BATCH = 200


async def distill_job(runtime: Root, context: dict[str, Any]) -> dict[str, Any]:
    """The task's work: distil the conversation its context names."""
    conversation_id = context.get('conversation_id')
    if not isinstance(conversation_id, str):
        raise ValueError('a distillation task needs a conversation_id in its context')
    outcome = await distil(runtime.store, runtime.settings, conversation_id)
    return {'conversation_id': conversation_id, **outcome.as_json()}


def queue_distillation(runtime: Root, conversation_id: str, tenant: tuple[str, str] | None) -> str | None:
    """Queue a distillation of the conversation (blocking); the task id, or None when none was queued."""
    if not runtime.settings.memory_model:
        return None
    task_id = queue.enqueue_job(
        runtime.store, KIND, {'conversation_id': conversation_id}, tenant=tenant, once_key=conversation_id
    )
    if task_id is not None:
        task_service(runtime).dispatcher.queued([task_id])  # type: ignore[arg-type]
    return task_id


def quiet_conversations(
    store: Store, minutes: int, limit: int = SWEEP_BATCH
) -> list[tuple[str, tuple[str, str]]]:
    """Conversations with a tenant, quiet for `minutes`, holding a message the distiller has not read."""
    cutoff = utcnow() - timedelta(minutes=minutes)
    unread = exists().where(
        Message.conversation_id == Conversation.id,
        Message.role.in_(('user', 'assistant')),
        Message.status == 'complete',
        or_(MemoryCursor.distilled_until.is_(None), Message.id > MemoryCursor.distilled_until),
    )
    query = (
        select(Conversation.id, Conversation.tenant_type, Conversation.tenant_id)
        .outerjoin(MemoryCursor, MemoryCursor.conversation_id == Conversation.id)
        .where(and_(Conversation.tenant_type.is_not(None), Conversation.updated_at <= cutoff, unread))
        .order_by(Conversation.updated_at)
        .limit(limit)
    )
    with store.read() as session:
        return [(row[0], (str(row[1]), str(row[2]))) for row in session.execute(query)]


async def sweep(runtime: Root) -> int:
    """Queue the quiet conversations' distillations; how many were queued."""
    settings = runtime.settings
    if not settings.memory_model:
        return 0
    found = await anyio.to_thread.run_sync(quiet_conversations, runtime.store, settings.memory_sweep_minutes)
    queued = 0
    for conversation_id, tenant in found:
        if await anyio.to_thread.run_sync(queue_distillation, runtime, conversation_id, tenant):
            queued += 1
    return queued


def memory_jobs(runtime: Root) -> list[Job]:
    """The sweep, on a root doing the background work."""
    if not runtime.maintenance:
        return []
    interval = runtime.settings.memory_sweep_minutes * 60.0
    return [Job('memory.sweep', lambda: sweep(runtime), interval, run_at_start=False)]
