"""Vector memory's routes, table and `synapse people` in an app or a command line, as a plugin adds them.

The retrieval area's plugin module registers them for every app; while it is not among the default
plugins, these tests register the same three answers through a plugin of their own, so that they
run on apps and command lines built the way Synapse builds them.
"""

from __future__ import annotations

from collections.abc import Sequence

import pluggy
import typer
from fastapi import APIRouter
from fastapi.testclient import TestClient
from sqlalchemy import Table

from chat_helpers import LOCAL_PEER, LOCAL_URL
from synapse_agents.plugins import hookimpl, plugin_manager
from synapse_agents.plugins.defaults import DEFAULT_PLUGINS
from synapse_agents.retrieval import memory_tables
from synapse_agents.retrieval.memory_routes import router
from synapse_agents.retrieval.people_cli import people_app
from synapse_agents.runtime.root import SynapseRuntime
from synapse_agents.store.schema import tables_declared_in
from synapse_agents.web.app import create_app

RETRIEVAL_PLUGIN = 'synapse_agents.retrieval.plugin'


class VectorMemoryPlugin:
    """Vector memory's routes, table and commands."""

    @hookimpl
    def register_routes(self) -> Sequence[APIRouter]:
        return [router]

    @hookimpl
    def register_tables(self) -> Sequence[Table]:
        return tables_declared_in(memory_tables.__name__)

    @hookimpl
    def register_commands(self, cli: typer.Typer) -> None:
        cli.add_typer(people_app, name='people')


def with_vector_memory() -> pluggy.PluginManager:
    """The default plugins, and vector memory's when the retrieval plugin is not one of them."""
    manager = plugin_manager(DEFAULT_PLUGINS, entry_points=False)
    if RETRIEVAL_PLUGIN not in DEFAULT_PLUGINS:
        manager.register(VectorMemoryPlugin(), name='vector-memory')
    return manager


def vector_memory_app(context: SynapseRuntime) -> TestClient:
    """A client of the app of `context` with vector memory's routes (enter it to start the app)."""
    context.plugins = with_vector_memory()
    return TestClient(create_app(context), base_url=LOCAL_URL, client=LOCAL_PEER)
