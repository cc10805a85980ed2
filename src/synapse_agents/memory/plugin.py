"""Memory as a plugin: its tables, `/api/memories`, `synapse memory`, the Memory area, the
distillation job and its sweep, and a distillation queued when a conversation is compressed."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import typer

from ..events import Compressed
from ..plugins.hookspecs import DashboardArea, Job, Root, TaskJob, hookimpl
from ..scope import Scope
from .cli import memory_app

if TYPE_CHECKING:
    from fastapi import APIRouter
    from sqlalchemy import Table

logger = logging.getLogger('synapse.memory')


@hookimpl
def register_routes() -> Sequence[APIRouter]:
    """The memory API."""
    from .routes import router

    return [router]


@hookimpl
def register_dashboard_areas() -> Sequence[DashboardArea]:
    """Memory."""
    return [DashboardArea(name='memory', path='/memory', label='Memory')]


@hookimpl
def register_commands(cli: typer.Typer) -> None:
    """`synapse memory`."""
    cli.add_typer(memory_app, name='memory')


@hookimpl
def register_tables() -> Sequence[Table]:
    """Memories, their vectors, distillation cursors and who shares."""
    from ..store.schema import tables_declared_in
    from . import tables

    return tables_declared_in(tables.__name__)


@hookimpl
def register_task_jobs() -> Mapping[str, TaskJob]:
    """`memory.distill`: distil one conversation."""
    from .jobs import KIND, distill_job

    return {KIND: distill_job}


@hookimpl
def register_jobs(runtime: Root) -> Sequence[Job]:
    """The sweep of quiet conversations."""
    from .jobs import memory_jobs

    return memory_jobs(runtime)


@hookimpl
def conversation_compressed(runtime: Root, compressed: Compressed) -> None:
    """A compressed conversation has said a lot: queue its distillation (never run it here). The
    hook is called on the turn's event loop, and queueing writes a row and may publish to a broker:
    it runs in the loop's worker threads, and the turn does not wait for it."""
    from .jobs import queue_distillation

    tenant = Scope.from_json(compressed.scope).tenant
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # called outside a loop: queue it here
        queue_distillation(runtime, compressed.conversation_id, tenant)
        return
    queued = loop.run_in_executor(None, queue_distillation, runtime, compressed.conversation_id, tenant)
    _pending.add(queued)
    queued.add_done_callback(_settled)


_pending: set[asyncio.Future[str | None]] = set()
"""Queueings under way (held so that none is collected before it ends)."""


def _settled(queued: asyncio.Future[str | None]) -> None:
    _pending.discard(queued)
    if not queued.cancelled() and queued.exception() is not None:
        logger.warning('a distillation could not be queued', exc_info=queued.exception())
