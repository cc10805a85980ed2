"""Retrieval as a plugin: its tables, `/api/rag/...`, vector memory (`/api/vector-memories`) and the
privacy view of one person (`/api/people/...`), `synapse rag` and `synapse people`, the Sources area,
the `rag.index` task job, and a `Retrieval` on the turns of configured agents with `rag_sources`
(`turns.install`, done when the plugin is loaded)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import typer

from ..plugins.hookspecs import DashboardArea, TaskJob, hookimpl
from . import turns
from .cli import rag_app
from .people_cli import people_app

if TYPE_CHECKING:
    from fastapi import APIRouter
    from sqlalchemy import Table

turns.install()


@hookimpl
def register_routes() -> Sequence[APIRouter]:
    """The retrieval API, vector memory and the people view."""
    from .memory_routes import router as memory_router
    from .routes import router

    return [router, memory_router]


@hookimpl
def register_dashboard_areas() -> Sequence[DashboardArea]:
    """Sources."""
    return [DashboardArea(name='retrieval', path='/sources', label='Sources')]


@hookimpl
def register_commands(cli: typer.Typer) -> None:
    """`synapse rag` and `synapse people`."""
    cli.add_typer(rag_app, name='rag')
    cli.add_typer(people_app, name='people')


@hookimpl
def register_tables() -> Sequence[Table]:
    """Sources, their files and their chunks; vector memories."""
    from ..store.schema import tables_declared_in
    from . import memory_tables, tables

    return [*tables_declared_in(tables.__name__), *tables_declared_in(memory_tables.__name__)]


@hookimpl
def register_task_jobs() -> Mapping[str, TaskJob]:
    """`rag.index`: index one source."""
    from .jobs import KIND, index_job

    return {KIND: index_job}
