"""Memory as a plugin: its tables, `/api/memories`, `synapse memory`, the Memory area, the
distillation job and its sweep, and a distillation queued when a conversation is compressed."""

from __future__ import annotations

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
    """A compressed conversation has said a lot: queue its distillation (never run it here; the
    queueing is one short write, on the turn's loop)."""
    from .jobs import queue_distillation

    tenant = Scope.from_json(compressed.scope).tenant
    queue_distillation(runtime, compressed.conversation_id, tenant)
