"""Rules as a plugin: the `rules` table, `/api/rules`, `synapse rules` and the dashboard's Rules area."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import typer

from ..plugins.hookspecs import DashboardArea, hookimpl
from .cli import rules_app

if TYPE_CHECKING:
    from fastapi import APIRouter
    from sqlalchemy import Table


@hookimpl
def register_routes() -> Sequence[APIRouter]:
    """The rules API."""
    from .routes import router

    return [router]


@hookimpl
def register_dashboard_areas() -> Sequence[DashboardArea]:
    """Rules."""
    return [DashboardArea(name='rules', path='/rules', label='Rules')]


@hookimpl
def register_commands(cli: typer.Typer) -> None:
    """`synapse rules`."""
    cli.add_typer(rules_app, name='rules')


@hookimpl
def register_tables() -> Sequence[Table]:
    """Rules."""
    from ..store.schema import tables_declared_in
    from . import tables

    return tables_declared_in(tables.__name__)
