"""Accounting as a plugin: the spend and limits routes, `synapse spend`, `synapse limits` and the
dashboard's Spend area."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import typer

from ..plugins.hookspecs import DashboardArea, hookimpl
from .cli import limits_app, spend_app

if TYPE_CHECKING:
    from fastapi import APIRouter
    from sqlalchemy import Table


@hookimpl
def register_routes() -> Sequence[APIRouter]:
    """Spend and spending limits."""
    from .routes import router

    return [router]


@hookimpl
def register_dashboard_areas() -> Sequence[DashboardArea]:
    """Spend."""
    return [DashboardArea(name='spend', path='/spend', label='Spend')]


@hookimpl
def register_commands(cli: typer.Typer) -> None:
    """`synapse spend` and `synapse limits`."""
    cli.add_typer(spend_app, name='spend')
    cli.add_typer(limits_app, name='limits')


@hookimpl
def register_tables() -> Sequence[Table]:
    """The ledger and the spending limits with their reservations."""
    from ..store.schema import tables_declared_in
    from . import tables

    return tables_declared_in(tables.__name__)
