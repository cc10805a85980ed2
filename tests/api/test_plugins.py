"""Plugins extend Synapse through the hooks: routes, dashboard areas, jobs, tables, CLI commands."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pluggy
import pytest
import typer
from fastapi import APIRouter
from fastapi.testclient import TestClient
from sqlalchemy import Column, Integer, MetaData, String, Table
from typer.testing import CliRunner

from chat_helpers import LOCAL_PEER, LOCAL_URL
from synapse_agents.cli import command_line
from synapse_agents.plugins import DashboardArea, PluginError, hookimpl, plugin_manager
from synapse_agents.plugins.answers import plugin_tables
from synapse_agents.plugins.defaults import DEFAULT_PLUGINS
from synapse_agents.plugins.manager import ENTRY_POINT_GROUP, plugin_names
from synapse_agents.runtime.jobs import Job
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.store.schema import Base
from synapse_agents.web.access import AccessPolicy
from synapse_agents.web.app import create_app

TOKEN = 'plugin-test-token-0123456789'


class NotesPlugin:
    """A feature package as a third party would write it."""

    def __init__(self) -> None:
        self.router = APIRouter()
        self.runs = 0

        @self.router.get('/api/notes/hello')
        async def hello() -> dict[str, str]:
            return {'hello': 'from a plugin'}

        @self.router.post('/api/notes')
        async def add() -> dict[str, bool]:
            return {'added': True}

        # Registered after the built-in routes: it must not replace the real health check.
        @self.router.get('/api/health')
        async def fake_health() -> dict[str, str]:
            return {'status': 'from a plugin'}

    @hookimpl
    def register_routes(self) -> Sequence[APIRouter]:
        return [self.router]

    @hookimpl
    def register_dashboard_areas(self) -> Sequence[DashboardArea]:
        return [DashboardArea(name='notes', path='/notes', label='Notes')]

    @hookimpl
    def register_jobs(self, runtime: SynapseContext) -> Sequence[Job]:
        def count() -> None:
            self.runs += 1

        return [Job('notes-count', count)]

    @hookimpl
    def register_commands(self, cli: typer.Typer) -> None:
        notes = typer.Typer(help='Notes.')

        @notes.command('count')
        def count(ctx: typer.Context) -> None:
            """Print how many plugins the command line was built with."""
            typer.echo(f'notes: {len(plugin_names(ctx.find_root().obj))} plugin(s)')

        cli.add_typer(notes, name='notes')


@pytest.fixture
def notes() -> NotesPlugin:
    return NotesPlugin()


@pytest.fixture
def manager(notes: NotesPlugin) -> pluggy.PluginManager:
    manager = plugin_manager(DEFAULT_PLUGINS, entry_points=False)
    manager.register(notes, name='notes')
    return manager


@pytest.fixture
def with_notes(context: SynapseContext, manager: pluggy.PluginManager) -> SynapseContext:
    context.plugins = manager
    return context


def client_of(
    context: SynapseContext, policy: AccessPolicy | None = None, host: str = LOCAL_URL
) -> TestClient:
    return TestClient(create_app(context, access=policy), base_url=host, client=LOCAL_PEER)


def test_a_plugin_route_answers_through_the_app_and_cannot_replace_a_built_in_one(
    with_notes: SynapseContext, notes: NotesPlugin
) -> None:
    """The plugin's route answers; its `/api/health` comes after Synapse's and never answers."""
    with client_of(with_notes) as client:
        assert client.get('/api/notes/hello').json() == {'hello': 'from a plugin'}
        assert client.get('/api/health').json()['status'] == 'ok'
        assert client.get('/api/agents').status_code == 200
    assert notes.runs == 1  # the plugin's start-up job ran once when the app started


def test_a_plugin_route_is_refused_cross_site_in_local_mode(with_notes: SynapseContext) -> None:
    """The access policy covers plugin routes: a cross-site write is refused before the route runs."""
    with client_of(with_notes, AccessPolicy.local()) as client:
        refused = client.post('/api/notes', headers={'Sec-Fetch-Site': 'cross-site'})
        assert refused.status_code == 403
        assert refused.json()['error']['code']
        assert client.post('/api/notes').json() == {'added': True}


def test_a_plugin_route_needs_the_token_in_token_mode(with_notes: SynapseContext) -> None:
    """Token mode: no token is a 401 JSON error on a plugin route too; the token lets it answer."""
    policy = AccessPolicy.with_token(TOKEN)
    with client_of(with_notes, policy, host='http://synapse.internal') as client:
        refused = client.get('/api/notes/hello')
        assert refused.status_code == 401
        assert refused.json()['error']['code'] == 'unauthorized'
        ok = client.get('/api/notes/hello', headers={'Authorization': f'Bearer {TOKEN}'})
        assert ok.json() == {'hello': 'from a plugin'}


def test_extensions_lists_the_plugins_and_the_dashboard_areas(with_notes: SynapseContext) -> None:
    """Built-in areas first, then the plugin's; the plugin by name, the built-ins not listed."""
    with client_of(with_notes) as client:
        body = client.get('/api/extensions').json()
    assert body['plugins'] == ['notes']
    assert body['areas'] == [
        {'name': 'agents', 'path': '/', 'label': 'Agents'},
        {'name': 'history', 'path': '/history', 'label': 'History'},
        {'name': 'registry', 'path': '/registry', 'label': 'Registry'},
        {'name': 'spend', 'path': '/spend', 'label': 'Spend'},
        {'name': 'tasks', 'path': '/tasks', 'label': 'Tasks'},
        {'name': 'traces', 'path': '/traces', 'label': 'Traces'},
        {'name': 'rules', 'path': '/rules', 'label': 'Rules'},
        {'name': 'memory', 'path': '/memory', 'label': 'Memory'},
        {'name': 'retrieval', 'path': '/sources', 'label': 'Sources'},
        {'name': 'evals', 'path': '/evals', 'label': 'Evals'},
        {'name': 'workflows', 'path': '/workflows', 'label': 'Workflows'},
        {'name': 'notes', 'path': '/notes', 'label': 'Notes'},
    ]


def test_without_plugins_extensions_lists_only_the_built_in_areas(context: SynapseContext) -> None:
    context.plugins = plugin_manager(DEFAULT_PLUGINS, entry_points=False)
    with client_of(context) as client:
        body = client.get('/api/extensions').json()
    assert body == {
        'plugins': [],
        'areas': [
            {'name': 'agents', 'path': '/', 'label': 'Agents'},
            {'name': 'history', 'path': '/history', 'label': 'History'},
            {'name': 'registry', 'path': '/registry', 'label': 'Registry'},
            {'name': 'spend', 'path': '/spend', 'label': 'Spend'},
            {'name': 'tasks', 'path': '/tasks', 'label': 'Tasks'},
            {'name': 'traces', 'path': '/traces', 'label': 'Traces'},
            {'name': 'rules', 'path': '/rules', 'label': 'Rules'},
            {'name': 'memory', 'path': '/memory', 'label': 'Memory'},
            {'name': 'retrieval', 'path': '/sources', 'label': 'Sources'},
            {'name': 'evals', 'path': '/evals', 'label': 'Evals'},
            {'name': 'workflows', 'path': '/workflows', 'label': 'Workflows'},
        ],
    }


class Broken:
    def __init__(self, routes: Any = None, areas: Any = None) -> None:
        self.routes, self.areas = routes, areas

    @hookimpl
    def register_routes(self) -> Any:
        return self.routes

    @hookimpl
    def register_dashboard_areas(self) -> Any:
        return self.areas


@pytest.mark.parametrize(
    ('plugin', 'message'),
    [
        (Broken(routes=['not a router']), 'is not a APIRouter'),
        (Broken(routes=APIRouter()), 'must return a list'),
        (Broken(areas=[DashboardArea('history', '/mine', 'Mine')]), "the name 'history'"),
        (Broken(areas=[DashboardArea('mine', '/history', 'Mine')]), "the path '/history'"),
    ],
)
def test_a_plugin_answering_a_hook_wrongly_fails_when_the_app_is_built(
    context: SynapseContext, plugin: Broken, message: str
) -> None:
    manager = plugin_manager(DEFAULT_PLUGINS, entry_points=False)
    manager.register(plugin, name='broken')
    context.plugins = manager
    with pytest.raises(PluginError, match=message):
        create_app(context)


@pytest.mark.parametrize(
    ('name', 'path', 'label'),
    [
        ('Notes', '/notes', 'N'),
        ('notes', 'notes', 'N'),
        ('notes', '//evil.example', 'N'),
        ('notes', '/n', ' '),
    ],
)
def test_a_dashboard_area_is_checked_when_declared(name: str, path: str, label: str) -> None:
    with pytest.raises(ValueError, match='dashboard area'):
        DashboardArea(name, path, label)


# -- CLI ----------------------------------------------------------------------------------


def test_a_plugin_cli_sub_command_runs(manager: pluggy.PluginManager) -> None:
    """`synapse notes count` exists on a command line built with the plugin, and not without."""
    result = CliRunner().invoke(command_line(manager), ['notes', 'count'])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == 'notes: 1 plugin(s)'
    plain = CliRunner().invoke(
        command_line(plugin_manager(DEFAULT_PLUGINS, entry_points=False)), ['notes', 'count']
    )
    assert plain.exit_code == 2 and 'No such command' in plain.output
    assert CliRunner().invoke(command_line(manager), ['db', '--help']).exit_code == 0


# -- tables -------------------------------------------------------------------------------


class TablePlugin:
    def __init__(self, table: Table) -> None:
        self.table = table

    @hookimpl
    def register_tables(self) -> Sequence[Table]:
        return [self.table]


@pytest.fixture
def notes_table() -> Iterator[Table]:
    table = Table(
        'plugin_notes', Base.metadata, Column('id', Integer, primary_key=True), Column('text', String)
    )
    try:
        yield table
    finally:
        Base.metadata.remove(table)


def test_a_plugin_table_is_on_the_store_metadata_and_synapse_db_tables_lists_it(notes_table: Table) -> None:
    manager = plugin_manager(DEFAULT_PLUGINS, entry_points=False)
    manager.register(TablePlugin(notes_table), name='notes')
    assert plugin_tables(manager) == [('notes', notes_table)]
    assert Base.metadata.tables['plugin_notes'] is notes_table
    result = CliRunner().invoke(command_line(manager), ['db', 'tables'])
    assert result.exit_code == 0, result.output
    rows = {line.split('│')[1].strip(): line for line in result.output.splitlines() if line.count('│') > 2}
    assert 'notes' in rows['plugin_notes'] and 'id, text' in rows['plugin_notes']
    assert 'synapse' in rows['conversations']


def test_a_plugin_table_on_another_metadata_stops_the_start(context: SynapseContext) -> None:
    """Only tables on the store's one metadata have migrations; another is refused at start-up."""
    manager = plugin_manager(DEFAULT_PLUGINS, entry_points=False)
    manager.register(TablePlugin(Table('loose', MetaData(), Column('id', Integer))), name='loose')
    context.plugins = manager
    app = create_app(context)
    with (
        pytest.raises(PluginError, match="plugin 'loose': table 'loose' is not on the store metadata"),
        TestClient(app, base_url=LOCAL_URL, client=LOCAL_PEER),
    ):
        pass


# -- entry points -------------------------------------------------------------------------


def test_an_installed_plugin_is_loaded_from_its_entry_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, context: SynapseContext
) -> None:
    """A distribution declaring the entry point is found and its route served."""
    site = tmp_path / 'site'
    site.mkdir()
    (site / 'synapse_hello_plugin.py').write_text(
        'from fastapi import APIRouter\n'
        'from synapse_agents.plugins import hookimpl\n'
        'router = APIRouter()\n'
        "@router.get('/api/hello-plugin')\n"
        'async def hello() -> dict[str, str]:\n'
        "    return {'hello': 'installed'}\n"
        '@hookimpl\n'
        'def register_routes() -> list[APIRouter]:\n'
        '    return [router]\n'
    )
    dist = site / 'synapse_hello_plugin-1.0.dist-info'
    dist.mkdir()
    (dist / 'METADATA').write_text('Metadata-Version: 2.1\nName: synapse-hello-plugin\nVersion: 1.0\n')
    (dist / 'entry_points.txt').write_text(f'[{ENTRY_POINT_GROUP}]\nhello = synapse_hello_plugin\n')
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, 'synapse_hello_plugin', raising=False)
    manager = plugin_manager(DEFAULT_PLUGINS)
    assert 'hello' in plugin_names(manager)
    assert 'hello' not in plugin_names(plugin_manager(DEFAULT_PLUGINS, entry_points=False))
    context.plugins = manager
    with client_of(context) as client:
        assert client.get('/api/hello-plugin').json() == {'hello': 'installed'}
    sys.modules.pop('synapse_hello_plugin', None)
