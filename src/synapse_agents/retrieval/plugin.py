"""Retrieval as a plugin: its tables, `/api/rag/...`, `synapse rag`, the Sources area and the
`rag.index` task job."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import typer

from ..plugins.hookspecs import DashboardArea, TaskJob, hookimpl
from .cli import rag_app

if TYPE_CHECKING:
    from fastapi import APIRouter
    from sqlalchemy import Table


@hookimpl
def register_routes() -> Sequence[APIRouter]:
    """The retrieval API."""
    from .routes import router

    return [router]


@hookimpl
def register_dashboard_areas() -> Sequence[DashboardArea]:
    """Sources."""
    return [DashboardArea(name='retrieval', path='/sources', label='Sources')]


@hookimpl
def register_commands(cli: typer.Typer) -> None:
    """`synapse rag`."""
    cli.add_typer(rag_app, name='rag')


@hookimpl
def register_tables() -> Sequence[Table]:
    """Sources, their files and their chunks."""
    from ..store.schema import tables_declared_in
    from . import tables

    return tables_declared_in(tables.__name__)


@hookimpl
def register_task_jobs() -> Mapping[str, TaskJob]:
    """`rag.index`: index one source."""
    from .jobs import KIND, index_job

    return {KIND: index_job}
