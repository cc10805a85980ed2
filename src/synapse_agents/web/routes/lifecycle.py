"""Start-up and shutdown work of the chat side: the in-flight sweep, auto-prune, the write queue."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

from starlette.concurrency import run_in_threadpool

from ..context import SynapseContext
from .chat import sweep

logger = logging.getLogger('synapse.web')

PRUNE_INTERVAL_S = 24 * 60 * 60


async def prune_daily(context: SynapseContext, interval: float = PRUNE_INTERVAL_S) -> None:
    """Prune conversations older than `retention_days` now and then every `interval` seconds."""
    days = int(context.settings.retention_days)
    while True:
        try:
            report = await run_in_threadpool(context.store.prune, days)
            if report.conversations:
                logger.warning(
                    'auto-prune removed %d conversations older than %d days', report.conversations, days
                )
        except Exception:
            logger.exception('auto-prune failed')
        await asyncio.sleep(interval)


@asynccontextmanager
async def chat_lifespan(context: SynapseContext) -> AsyncIterator[None]:
    """Sweep turns a crashed process left in flight; prune daily under `synapse serve`."""
    messages, tools = await sweep(context)
    if messages or tools:
        logger.warning('marked %d turns and %d tool calls left in flight as interrupted', messages, tools)
    task: asyncio.Task[None] | None = None
    if context.maintenance and context.settings.auto_prune:
        task = asyncio.create_task(prune_daily(context), name='synapse-auto-prune')
    try:
        yield
    finally:
        if task is not None:
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task
        if context.chat is not None:
            await run_in_threadpool(context.chat.close)
            context.chat = None
