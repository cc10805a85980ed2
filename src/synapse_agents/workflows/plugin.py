"""Workflows as a plugin: its tables, `/api/workflows` and `/api/workflow-runs`, `synapse workflows`,
the Workflows area, the `workflows.run` task job and the `workflows.reconcile` job."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import typer

from ..plugins.hookspecs import DashboardArea, Job, Root, TaskJob, hookimpl
from .cli import workflows_app

RECONCILE_JOB = 'workflows.reconcile'

if TYPE_CHECKING:
    from fastapi import APIRouter
    from sqlalchemy import Table


@hookimpl
def register_dashboard_areas() -> Sequence[DashboardArea]:
    """Workflows."""
    return [DashboardArea(name='workflows', path='/workflows', label='Workflows')]


@hookimpl
def register_routes() -> Sequence[APIRouter]:
    """The workflows API and the workflow runs API."""
    from .routes import router
    from .run_routes import router as runs_router

    return [router, runs_router]


@hookimpl
def register_commands(cli: typer.Typer) -> None:
    """`synapse workflows`."""
    cli.add_typer(workflows_app, name='workflows')


@hookimpl
def register_tables() -> Sequence[Table]:
    """Workflows, their versions, runs and run steps."""
    from ..store.schema import tables_declared_in
    from . import tables

    return tables_declared_in(tables.__name__)


@hookimpl
def register_task_jobs() -> Mapping[str, TaskJob]:
    """`workflows.run`: run one workflow run."""
    from .execute import KIND, run_job

    return {KIND: run_job}


@hookimpl
def register_jobs(runtime: Root) -> Sequence[Job]:
    """On every running root (like the heartbeat): `workflows.reconcile`, which fails the runs whose
    task ended without them (a worker that died, failed by the task sweep), as often as that sweep
    runs. A read query that finds nothing, most ticks."""
    from ..tasks.jobs import sweep_interval
    from .runs import reconcile

    store = runtime.store
    return [
        Job(
            RECONCILE_JOB,
            lambda: reconcile(store),
            sweep_interval(runtime.settings.task_stale_seconds),
            # Not at start: a root's first requests are served without a query of its own beside
            # them (a run read before the first tick is reconciled by the read itself).
            run_at_start=False,
        )
    ]
