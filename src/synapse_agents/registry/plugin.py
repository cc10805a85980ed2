"""The registry as a plugin: its routes, `synapse registry` and the dashboard's Registry area."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import typer

from ..plugins.hookspecs import DashboardArea, hookimpl
from .cli import registry_app

if TYPE_CHECKING:
    from fastapi import APIRouter
    from sqlalchemy import Table


@hookimpl
def register_routes() -> Sequence[APIRouter]:
    """Providers, models, presets, tones, configured agents, tools and the stored settings."""
    from .routes import router

    return [router]


@hookimpl
def register_dashboard_areas() -> Sequence[DashboardArea]:
    """Registry."""
    return [DashboardArea(name='registry', path='/registry', label='Registry')]


@hookimpl
def register_commands(cli: typer.Typer) -> None:
    """`synapse registry`."""
    cli.add_typer(registry_app, name='registry')


@hookimpl
def register_tables() -> Sequence[Table]:
    """Providers, models, presets, tones, configured agents, settings."""
    from ..store.schema import tables_declared_in
    from . import tables

    return tables_declared_in(tables.__name__)
