"""Synapse's own areas, registered through the same hooks a third-party plugin uses.

Imports happen inside the hooks: `synapse --version` builds the command line without loading the
web app, and a CLI command that never serves loads no route.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .hookspecs import DashboardArea, hookimpl

if TYPE_CHECKING:
    import typer
    from fastapi import APIRouter

    from ..runtime.jobs import Job
    from ..runtime.root import SynapseRuntime


@hookimpl(tryfirst=True)
def register_routes() -> Sequence[APIRouter]:
    """Login, the API docs, health, agents, chat, conversations, attachments, the registry, spend."""
    from ..accounting.routes import router as accounting_router
    from ..registry.routes import router as registry_router
    from ..tasks.routes import router as tasks_router
    from ..traces.routes import router as traces_router
    from ..web import api_docs, login
    from ..web.routes import agents, attachments, chat, conversations, extensions, health, mcp, model_tools

    return [
        login.router,
        api_docs.router,
        health.router,
        agents.router,
        model_tools.router,
        mcp.router,
        chat.router,
        conversations.router,
        attachments.router,
        extensions.router,
        registry_router,
        accounting_router,
        tasks_router,
        traces_router,
    ]


@hookimpl(tryfirst=True)
def register_dashboard_areas() -> Sequence[DashboardArea]:
    """The dashboard's own nav entries."""
    return [
        DashboardArea(name='agents', path='/', label='Agents'),
        DashboardArea(name='history', path='/history', label='History'),
        DashboardArea(name='registry', path='/registry', label='Registry'),
        DashboardArea(name='spend', path='/spend', label='Spend'),
        DashboardArea(name='tasks', path='/tasks', label='Tasks'),
        DashboardArea(name='traces', path='/traces', label='Traces'),
    ]


@hookimpl(tryfirst=True)
def register_jobs(runtime: SynapseRuntime) -> Sequence[Job]:
    """The start-up sweep; when the root does the background work, the daily auto-prune, the
    scheduler and the in-process task worker."""
    from ..runtime.maintenance import maintenance_jobs
    from ..tasks.jobs import task_jobs

    return [*maintenance_jobs(runtime), *task_jobs(runtime)]


@hookimpl(tryfirst=True)
def register_commands(cli: typer.Typer) -> None:
    """`synapse db`, `synapse registry`, `synapse spend`, `synapse limits`, `synapse tasks`,
    `synapse worker`, `synapse scheduler` and `synapse traces`."""
    from ..accounting.cli import limits_app, spend_app
    from ..cli_db import db_app
    from ..registry.cli import registry_app
    from ..tasks.cli import tasks_app
    from ..tasks.processes import scheduler_command, worker_command
    from ..traces.cli import traces_app

    cli.add_typer(db_app, name='db')
    cli.add_typer(registry_app, name='registry')
    cli.add_typer(spend_app, name='spend')
    cli.add_typer(limits_app, name='limits')
    cli.add_typer(tasks_app, name='tasks')
    cli.add_typer(traces_app, name='traces')
    cli.command('worker')(worker_command)
    cli.command('scheduler')(scheduler_command)
