"""Tasks as a plugin: the task routes, `synapse tasks`, `synapse worker`, `synapse scheduler`, the
scheduler's and in-process worker's jobs, and the dashboard's Tasks area."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import typer

from ..plugins.hookspecs import DashboardArea, Job, Root, hookimpl
from .cli import tasks_app
from .cli_processes import scheduler_command, worker_command

if TYPE_CHECKING:
    from fastapi import APIRouter
    from sqlalchemy import Table


@hookimpl
def register_routes() -> Sequence[APIRouter]:
    """Standing agents, their tasks and events."""
    from .routes import router

    return [router]


@hookimpl
def register_dashboard_areas() -> Sequence[DashboardArea]:
    """Tasks."""
    return [DashboardArea(name='tasks', path='/tasks', label='Tasks')]


@hookimpl
def register_jobs(runtime: Root) -> Sequence[Job]:
    """On a root doing the background work: the scheduler's tick, the sweep, the in-process worker."""
    from .jobs import task_jobs

    root: Any = runtime  # the task area's functions still name the root's concrete class
    return task_jobs(root)


@hookimpl
def register_commands(cli: typer.Typer) -> None:
    """`synapse tasks`, `synapse worker` and `synapse scheduler`."""
    cli.add_typer(tasks_app, name='tasks')
    cli.command('worker')(worker_command)
    cli.command('scheduler')(scheduler_command)


@hookimpl
def register_tables() -> Sequence[Table]:
    """Standing agents, their tasks and logs."""
    from ..store.schema import tables_declared_in
    from . import tables

    return tables_declared_in(tables.__name__)
