"""The `synapse` command line."""

from __future__ import annotations

import contextlib
import json
import sys
import traceback
from pathlib import Path
from typing import Annotated, Any

import pluggy
import typer
from rich.console import Console
from rich.table import Table
from typer.core import TyperGroup

from ._version import __version__
from .cli_common import open_root
from .mcp_server.cli import mcp_command
from .plugins.defaults import default_manager
from .plugins.manager import plugin_commands
from .redaction import mask_password
from .settings import LoadedSettings, SettingValue, load_settings

console = Console()
err_console = Console(stderr=True)
_state = {'debug': False}


def _fresh_consoles() -> None:
    """New consoles for each command run: Rich fixes the width from `COLUMNS` when a console is made,
    so consoles made at import would keep the width of whatever environment imported this module."""
    global console, err_console
    console, err_console = Console(), Console(stderr=True)


class _OneLineErrors(TyperGroup):
    """Turn any unexpected exception into one clear line (a traceback with --debug)."""

    def invoke(self, ctx: Any) -> Any:
        _fresh_consoles()
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, typer.TyperException, KeyboardInterrupt):
            raise
        except Exception as exc:
            if _state['debug']:
                err_console.print(traceback.format_exc(), highlight=False, markup=False)
            else:
                text = str(exc).strip()
                message = text.splitlines()[0] if text else type(exc).__name__
                err_console.print(f'[red]Error:[/red] {_escape(message)}', highlight=False, soft_wrap=True)
                err_console.print('[dim]Run with --debug for the full traceback.[/dim]', highlight=False)
            raise typer.Exit(1) from exc


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def _version(value: bool) -> None:
    if value:
        console.print(f'synapse {__version__}')
        raise typer.Exit()


def _settings(**overrides: Any) -> LoadedSettings:
    return load_settings(overrides)


def _confirm(question: str, yes: bool) -> bool:
    if yes:
        return True
    try:
        return typer.confirm(question, default=False)
    except typer.Abort:  # end of input: nobody is there to answer
        err_console.print('Not confirmed; pass --yes to go ahead without a question.')
        return False


# The ledger (`llm_calls`) is never deleted with a conversation: it is named in the closing words.
_REPORTED = {'conversations', 'messages', 'tool_invocations', 'llm_calls'}


def _report_deletion(report: Any, what: str) -> None:
    # Tables a feature or plugin registered are named after Synapse's own.
    others = ''.join(
        f'{count} {table} rows, ' for table, count in report.rows_by_table.items() if table not in _REPORTED
    )
    console.print(
        f'Removed {report.conversations} conversations, {report.messages} messages, '
        f'{report.tool_invocations} tool invocations, {others}'
        f'and {report.files} attachment files ({_human_bytes(report.bytes)}) {what}; '
        'their ledger rows are kept.',
        soft_wrap=True,
    )


def _human_bytes(size: int) -> str:
    value = float(size)
    for unit in ('B', 'KB', 'MB', 'GB'):
        if value < 1024 or unit == 'GB':
            return f'{value:.0f} {unit}' if unit == 'B' else f'{value:.1f} {unit}'
        value /= 1024
    return f'{size} B'


# -- serve --------------------------------------------------------------------------------


def serve(
    targets: Annotated[
        list[str] | None,
        typer.Argument(help='Where to find agents: modules, module:attr, .py files, folders, spec files.'),
    ] = None,
    host: Annotated[str | None, typer.Option(help='Interface to bind (setting: host).')] = None,
    port: Annotated[int | None, typer.Option(help='Port to listen on (setting: port).')] = None,
    demo: Annotated[
        bool,
        typer.Option(
            '--demo',
            help='Serve the offline demo agents (no API key needed); memories are distilled by the demo '
            'distiller unless memory_model names another model.',
        ),
    ] = False,
    open_browser: Annotated[bool, typer.Option('--open', help='Open the dashboard in a browser.')] = False,
    env_file: Annotated[Path | None, typer.Option(help='Extra dotenv file to load before agents.')] = None,
) -> None:
    """Start the dashboard and API server."""
    from .web.server import run_server

    options: dict[str, Any] = {'host': host, 'port': port, 'env_file': env_file}
    options['agents'] = list(targets) if targets else None
    loaded = _settings(**options)
    if demo and loaded.settings.memory_model is None:
        # Offline, the demo distiller fills the Memory page; a named memory_model is kept.
        loaded = _settings(**options, memory_model='demo')
    run_server(loaded, demo=demo, open_browser=open_browser, console=console)


# -- agents -------------------------------------------------------------------------------


def agents_command(
    targets: Annotated[
        list[str] | None,
        typer.Argument(help='Where to find agents: modules, module:attr, .py files, folders, spec files.'),
    ] = None,
    as_json: Annotated[bool, typer.Option('--json', help='Print the JSON of GET /api/agents.')] = False,
    demo: Annotated[bool, typer.Option('--demo', help='Include the offline demo agents.')] = False,
    env_file: Annotated[Path | None, typer.Option(help='Extra dotenv file to load before agents.')] = None,
    tracebacks: Annotated[bool, typer.Option('--tracebacks', help="Show each problem's traceback.")] = False,
) -> None:
    """List the agents Synapse discovers, with their model, tools and problems."""
    from .discovery import Catalog
    from .discovery.report import print_report
    from .runtime.assembled import DEMO_TARGET

    loaded = _settings(env_file=env_file, agents=list(targets) if targets else None)
    chosen = list(loaded.settings.agents)
    if demo and DEMO_TARGET not in chosen:
        chosen.append(DEMO_TARGET)
    if as_json:
        # What agent modules print while they are imported goes to stderr: stdout is the JSON alone.
        with contextlib.redirect_stdout(sys.stderr):
            snapshot = Catalog(chosen, loaded.project_root, deps=loaded.settings.deps).scan()
        typer.echo(json.dumps(snapshot.listing().model_dump(mode='json'), indent=2))
        return
    snapshot = Catalog(chosen, loaded.project_root, deps=loaded.settings.deps).scan()
    print_report(snapshot, console, tracebacks=tracebacks)


# -- settings -----------------------------------------------------------------------------


def settings_command(
    as_json: Annotated[bool, typer.Option('--json', help='Print JSON instead of a table.')] = False,
) -> None:
    """Print every setting, its value and where the value came from (the registry's stored values win)."""
    loaded = _settings()
    stored = _registry_values(loaded)
    if as_json:
        payload = {
            v.name: {'value': v.display() if v.name == 'token' else _jsonable(_masked(v)), 'source': v.source}
            for v in loaded.values
        }
        payload.update({name: {'value': value, 'source': 'registry'} for name, value in stored.items()})
        console.print_json(json.dumps(payload))
        return
    table = Table(title=f'Synapse settings for {loaded.project_root}', show_lines=False)
    table.add_column('Setting', style='bold')
    table.add_column('Value')
    table.add_column('Source')
    table.add_column('Help', style='dim', overflow='fold')
    for value in loaded.values:
        if value.name in stored:
            table.add_row(value.name, str(stored[value.name]), 'registry (database)', value.help)
            continue
        origin = value.source if not value.origin else f'{value.source} ({value.origin})'
        shown = _masked(value) if isinstance(value.value, str) else value.display()
        table.add_row(value.name, str(shown), origin, value.help)
    console.print(table)


def _masked(value: SettingValue) -> Any:
    """A setting's value with the password of a URL (`database_url`, `queue_url`) masked."""
    if isinstance(value.value, str) and '://' in value.value:
        return mask_password(value.value)
    return value.value


def _registry_values(loaded: LoadedSettings) -> dict[str, Any]:
    """The values stored in the registry; none (and a note) when the database cannot be read."""
    from sqlalchemy.exc import SQLAlchemyError

    from .registry.cli import stored_overrides
    from .store.engine import StoreConfigError

    try:
        return stored_overrides(loaded)
    except (SQLAlchemyError, StoreConfigError) as exc:
        said = (str(getattr(exc, 'orig', None) or exc).strip().splitlines() or [type(exc).__name__])[0]
        err_console.print(
            f'[dim]The registry could not be read ({_escape(said)}): its values are left out.[/dim]'
        )
        return {}


def _jsonable(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    return value


# -- prune / clear ------------------------------------------------------------------------


def prune(
    ctx: typer.Context,
    days: Annotated[
        int | None, typer.Option(min=1, help='Remove conversations not updated for this many days.')
    ] = None,
    yes: Annotated[bool, typer.Option('--yes', '-y', help='Do not ask for confirmation.')] = False,
) -> None:
    """Delete old conversations with their messages, tool rows, ledger rows and files."""
    from .conversations.repository import ConversationRepository

    with open_root(ctx) as runtime:
        store = runtime.store
        if days is None:
            from .registry.settings_store import effective

            days = effective(store, runtime.settings).retention_days
        count = ConversationRepository(store).count_older_than(days)
        if count == 0:
            console.print(f'Nothing to prune: no conversation is older than {days} days.')
            return
        if not _confirm(f'Delete {count} conversations not updated in {days} days?', yes):
            raise typer.Exit(1)
        _report_deletion(ConversationRepository(store).prune(days), f'(older than {days} days)')
        from datetime import UTC, datetime, timedelta

        from .traces.read import prune_older

        prune_older(store, datetime.now(UTC) - timedelta(days=days))


def clear(
    ctx: typer.Context,
    yes: Annotated[bool, typer.Option('--yes', '-y', help='Do not ask for confirmation.')] = False,
) -> None:
    """Delete all conversation history, including attachment files."""
    from .conversations.repository import ConversationRepository

    with open_root(ctx) as runtime:
        store = runtime.store
        count = store.counts()['conversations']
        if not _confirm(f'Delete all {count} conversations and their attachments?', yes):
            raise typer.Exit(1)
        _report_deletion(ConversationRepository(store).clear(), 'in all')


# -- init ---------------------------------------------------------------------------------


def init() -> None:
    """Add a commented \\[tool.synapse] section to pyproject.toml and an example agent."""
    from .project_init import init_project

    for line in init_project(Path.cwd()):
        console.print(line, markup=False, highlight=False)


# -- the command line ----------------------------------------------------------------------


def command_line(plugins: pluggy.PluginManager | None = None) -> typer.Typer:
    """The `synapse` command: the core commands plus what the plugins add (`register_commands`)."""
    manager = plugins or default_manager()
    cli = typer.Typer(
        cls=_OneLineErrors,
        name='synapse',
        help='Synapse: a workbench and runtime for pydantic-ai agents.',
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode='rich',
    )

    @cli.callback()
    def _root(
        ctx: typer.Context,
        version: Annotated[
            bool,
            typer.Option('--version', callback=_version, is_eager=True, help='Print the version and exit.'),
        ] = False,
        debug: Annotated[bool, typer.Option('--debug', help='Show full tracebacks on errors.')] = False,
    ) -> None:
        _state['debug'] = debug
        ctx.obj = manager  # the commands open the root with the same plugins

    cli.command()(serve)
    cli.command('agents')(agents_command)
    cli.command('settings')(settings_command)
    cli.command()(prune)
    cli.command()(clear)
    cli.command()(init)
    cli.command('mcp')(mcp_command)
    plugin_commands(manager, cli)
    return cli


app = command_line()


def main() -> None:
    """Run the `synapse` command."""
    app()
