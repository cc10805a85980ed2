"""Maintenance as a plugin: the root's own jobs (the start-up sweep, the heartbeat, the daily
auto-prune) and `synapse db`."""

from __future__ import annotations

from collections.abc import Sequence

import typer

from ..cli_db import db_app
from ..plugins.hookspecs import Job, Root, hookimpl


@hookimpl
def register_jobs(runtime: Root) -> Sequence[Job]:
    """The start-up sweep and the heartbeat on every root; the auto-prune on one doing the
    background work when `auto_prune` is on."""
    from .maintenance import maintenance_jobs

    return maintenance_jobs(runtime)


@hookimpl
def register_commands(cli: typer.Typer) -> None:
    """`synapse db`."""
    cli.add_typer(db_app, name='db')
