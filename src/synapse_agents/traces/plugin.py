"""Traces as a plugin: the trace routes, `synapse traces` and the dashboard's Traces area."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import typer

from ..plugins.hookspecs import DashboardArea, hookimpl
from .cli import traces_app

if TYPE_CHECKING:
    from fastapi import APIRouter
    from sqlalchemy import Table


@hookimpl
def register_routes() -> Sequence[APIRouter]:
    """The traces of runs and turns."""
    from .routes import router

    return [router]


@hookimpl
def register_dashboard_areas() -> Sequence[DashboardArea]:
    """Traces."""
    return [DashboardArea(name='traces', path='/traces', label='Traces')]


@hookimpl
def register_commands(cli: typer.Typer) -> None:
    """`synapse traces`."""
    cli.add_typer(traces_app, name='traces')


@hookimpl
def register_tables() -> Sequence[Table]:
    """Trace runs, their tool calls and debug logs."""
    from ..store.schema import tables_declared_in
    from . import tables

    return tables_declared_in(tables.__name__)
