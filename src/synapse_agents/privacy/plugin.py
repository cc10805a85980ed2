"""Privacy as a plugin: the `privacy_vaults` table, `/api/conversations/{id}/privacy`,
`synapse privacy`, and `Privacy` on every turn
when the `privacy_enabled` setting is on (`turns.install`, done when the plugin is loaded: a root that
loads Synapse's plugins never runs a turn without it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import typer

from ..plugins.hookspecs import hookimpl
from ..store.schema import tables_declared_in
from . import tables, turns
from .cli import privacy_app

if TYPE_CHECKING:
    from fastapi import APIRouter
    from sqlalchemy import Table

turns.install()


@hookimpl
def register_routes() -> Sequence[APIRouter]:
    """A conversation's privacy status and its opt-out."""
    from .routes import router

    return [router]


@hookimpl
def register_tables() -> Sequence[Table]:
    """The conversations' vaults."""
    return tables_declared_in(tables.__name__)


@hookimpl
def register_commands(cli: typer.Typer) -> None:
    """`synapse privacy`."""
    cli.add_typer(privacy_app, name='privacy')
