"""`synapse db`: upgrade and inspect the schema (a Typer sub-app, registered as a built-in plugin).

Outside `store/` so that building the command line (`synapse --version`) imports no database code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import pluggy
import typer
from rich.console import Console
from rich.table import Table as RichTable

from .plugins.manager import plugin_manager
from .settings import load_settings

if TYPE_CHECKING:
    from .runtime.assembled import SynapseRuntime

console = Console()

db_app = typer.Typer(help='Database schema: upgrade and inspect migrations.', no_args_is_help=True)


def plugins_of(ctx: typer.Context) -> pluggy.PluginManager:
    """The plugin manager the `synapse` command was built with (`cli.command_line`); a sub-app run
    on its own (a test) has none, so its root runs no plugin's jobs."""
    found = ctx.find_root().obj
    return found if isinstance(found, pluggy.PluginManager) else plugin_manager((), entry_points=False)


def _runtime(ctx: typer.Context) -> SynapseRuntime:
    from .runtime.assembled import SynapseRuntime

    return SynapseRuntime.open(load_settings(), agents=False, schema='as-is', plugins=plugins_of(ctx))


@db_app.command('upgrade')
def db_upgrade(
    ctx: typer.Context,
    revision: Annotated[str, typer.Argument(help='Target revision.')] = 'head',
) -> None:
    """Create or migrate Synapse's tables to the newest revision."""
    from .store import current_revision, upgrade

    with _runtime(ctx) as runtime:
        store = runtime.store
        before = current_revision(store.engine)
        after = upgrade(store.engine, revision)
    if before == after:
        console.print(f'{store.dialect}: already at revision {after}.')
    else:
        console.print(f'{store.dialect}: upgraded from {before or "an empty database"} to {after}.')


@db_app.command('current')
def db_current(ctx: typer.Context) -> None:
    """Show the database's revision and the newest one this Synapse knows."""
    from .store import current_revision, head_revision

    with _runtime(ctx) as runtime:
        store = runtime.store
        current = current_revision(store.engine)
    head = head_revision()
    state = 'up to date' if current == head else 'run `synapse db upgrade`'
    console.print(f'{store.dialect}: revision {current or "none"} (newest {head}) — {state}.')


@db_app.command('tables')
def db_tables(ctx: typer.Context) -> None:
    """List the tables on the store's metadata: Synapse's own and those plugins declare."""
    from .plugins.answers import area_tables, plugin_tables
    from .store.schema import Base

    plugins = plugins_of(ctx)
    area_tables(plugins)  # every area's tables, Synapse's own too (the store imports no area)
    owners = {table.name: plugin for plugin, table in plugin_tables(plugins)}
    listing = RichTable(title='Tables', show_lines=False)
    listing.add_column('Table', style='bold')
    listing.add_column('Declared by')
    listing.add_column('Columns', overflow='fold')
    for table in Base.metadata.sorted_tables:
        columns = ', '.join(column.name for column in table.columns)
        listing.add_row(table.name, owners.get(table.name, 'synapse'), columns)
    console.print(listing)
