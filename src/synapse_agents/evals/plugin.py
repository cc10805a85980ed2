"""Evals as a plugin: its tables, `/api/evals`, `synapse eval`, the Evals area and the `evals.run`
task job."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import typer

from ..plugins.hookspecs import DashboardArea, TaskJob, hookimpl
from .cli import eval_app
from .cli_runs import add_run_commands

if TYPE_CHECKING:
    from fastapi import APIRouter
    from sqlalchemy import Table


@hookimpl
def register_routes() -> Sequence[APIRouter]:
    """The eval datasets, runs and evaluators API."""
    from .evaluator_routes import router as evaluators_router
    from .routes import router
    from .run_routes import router as runs_router

    return [router, runs_router, evaluators_router]


@hookimpl
def register_dashboard_areas() -> Sequence[DashboardArea]:
    """Evals."""
    return [DashboardArea(name='evals', path='/evals', label='Evals')]


@hookimpl
def register_commands(cli: typer.Typer) -> None:
    """`synapse eval`."""
    add_run_commands(eval_app)
    cli.add_typer(eval_app, name='eval')


@hookimpl
def register_tables() -> Sequence[Table]:
    """Eval datasets and their versions."""
    from ..store.schema import tables_declared_in
    from . import tables

    return tables_declared_in(tables.__name__)


@hookimpl
def register_task_jobs() -> Mapping[str, TaskJob]:
    """`evals.run`: run one eval."""
    from .execute import KIND, run_job

    return {KIND: run_job}
