"""Evals as a plugin: its tables, `/api/evals` and `synapse eval`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import typer

from ..plugins.hookspecs import hookimpl
from .cli import eval_app

if TYPE_CHECKING:
    from fastapi import APIRouter
    from sqlalchemy import Table


@hookimpl
def register_routes() -> Sequence[APIRouter]:
    """The eval datasets API."""
    from .routes import router

    return [router]


@hookimpl
def register_commands(cli: typer.Typer) -> None:
    """`synapse eval`."""
    cli.add_typer(eval_app, name='eval')


@hookimpl
def register_tables() -> Sequence[Table]:
    """Eval datasets and their versions."""
    from ..store.schema import tables_declared_in
    from . import tables

    return tables_declared_in(tables.__name__)
