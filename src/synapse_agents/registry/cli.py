"""`synapse registry`: list, show, add, edit and remove registry entries; keys and the sandbox.

Entries are read from YAML or JSON (a file, or `-` for standard input) with the same fields as the
HTTP API's bodies, and shown as the API shows them. A refusal is one line on standard error with
exit code 1 (2 for input that cannot be read). Registered as a built-in plugin's command.
"""

from __future__ import annotations

import json
import sys
from contextlib import AbstractContextManager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from .. import cli_common
from ..cli_common import Json, echo_json, fail, warn
from ..cli_tables import Column, fitted_table

if TYPE_CHECKING:
    from ..runtime.assembled import SynapseRuntime
    from ..settings import LoadedSettings

console = Console()

registry_app = typer.Typer(help='The registry: providers, models, presets, tones, agents, settings.')
DROPPED_FIRST = {'version': 2, 'is_sandbox': 1}
"""The list columns that leave a terminal too narrow for every column (the highest first)."""


class Kind(StrEnum):
    providers = 'providers'
    models = 'models'
    presets = 'presets'
    tones = 'tones'
    agents = 'agents'
    settings = 'settings'


class SandboxChoice(StrEnum):
    only = 'only'
    include = 'include'


Source = Annotated[str, typer.Argument(help="A YAML or JSON file; '-' (the default) reads standard input.")]
KindArgument = Annotated[Kind, typer.Argument(help='What to work on.', case_sensitive=False)]


def _refused(exc: Exception) -> tuple[str, int] | None:
    from ..encryption import BadSecretKey, NoSecretKey
    from .errors import RegistryError

    if isinstance(exc, RegistryError):
        return exc.message.removeprefix('body.'), 1
    return (str(exc), 1) if isinstance(exc, NoSecretKey | BadSecretKey) else None


def opened(ctx: typer.Context) -> AbstractContextManager[SynapseRuntime]:
    """The root with the store (no agent catalog); every refusal as one line."""
    return cli_common.opened(ctx, refused=_refused)


def read_source(source: str) -> Any:
    """The YAML or JSON document in `source` (`-`: standard input)."""
    try:
        text = sys.stdin.read() if source == '-' else Path(source).read_text(encoding='utf-8')
    except OSError as exc:
        fail(f'cannot read {source}: {exc.strerror or exc}', 2)
    except UnicodeDecodeError:
        fail(f'{source} is not UTF-8 text', 2)
    try:
        # JSON first: YAML reads JSON too, but leaves an escaped surrogate pair (how `json.dumps`
        # writes an emoji) as two broken halves.
        data = json.loads(text)
    except ValueError:
        data = _yaml(text, source)
    if data is None:
        fail(f'{"standard input" if source == "-" else source} is empty', 2)
    return data


def _yaml(text: str, source: str) -> Any:
    import yaml  # type: ignore[import-untyped]

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        where = getattr(exc, 'problem_mark', None)
        line = f' (line {where.line + 1})' if where is not None else ''
        fail(f'{"standard input" if source == "-" else source} is not valid YAML or JSON{line}', 2)


def entry_of(data: Any, what: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        fail(f'{what}: expected a mapping of fields, got {type(data).__name__}', 2)
    return data


def kind_of(kind: Kind) -> Any:
    """What the commands do for `kind` (`cli_kinds.Kind`)."""
    from .cli_kinds import KINDS

    return KINDS[kind.value]


# -- commands ---------------------------------------------------------------------------------


@registry_app.command('list')
def list_command(
    ctx: typer.Context,
    kind: KindArgument,
    sandbox: Annotated[
        SandboxChoice | None,
        typer.Option(help='Sandboxes (agents, presets): `only` them, or `include` them.'),
    ] = None,
    as_json: Json = False,
) -> None:
    """List the entries of a kind, by key (sandboxes left out unless asked for)."""
    chosen = kind_of(kind)
    with opened(ctx) as runtime:
        rows = chosen.rows(runtime, sandbox.value if sandbox else 'exclude')
    if as_json:
        echo_json({kind.value: rows})
        return
    if not rows:
        console.print(f'No {kind.value}.')
        return
    columns = [Column(name, least=10, drop=DROPPED_FIRST.get(name, 0)) for name in chosen.columns]
    cells = [[_cell(row.get(column)) for column in chosen.columns] for row in rows]
    console.print(fitted_table(None, columns, cells, width=console.width))


def _cell(value: Any) -> str:
    """A value as plain text (`fitted_table` escapes it)."""
    if value is None:
        return '—'
    if isinstance(value, bool):
        return 'yes' if value else 'no'
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False) if value else '—'
    return str(value)


@registry_app.command('show')
def show_command(ctx: typer.Context, kind: KindArgument, key: Annotated[str, typer.Argument()]) -> None:
    """Print one entry as the HTTP API shows it (a provider's secret never: its last four only)."""
    with opened(ctx) as runtime:
        echo_json(kind_of(kind).one(runtime, key))


@registry_app.command('add')
def add_command(ctx: typer.Context, kind: KindArgument, source: Source = '-') -> None:
    """Add entries from YAML or JSON: one mapping of fields, or a list of them."""
    data = read_source(source)
    entries = (
        [entry_of(item, f'entry {i + 1}') for i, item in enumerate(data)]
        if isinstance(data, list)
        else [entry_of(data, 'the entry')]
    )
    with opened(ctx) as runtime:
        for entry in entries:
            key = kind_of(kind).add(runtime, entry)
            console.print(f'Added {kind.value[:-1]} {escape(repr(key))}.', highlight=False)
            warning = kind_of(kind).warning(runtime, entry)
            if warning is not None:
                warn(warning)


@registry_app.command('edit')
def edit_command(
    ctx: typer.Context, kind: KindArgument, key: Annotated[str, typer.Argument()], source: Source = '-'
) -> None:
    """Change an entry: the fields given replace its values (for settings: `value: ...`)."""
    entry = entry_of(read_source(source), 'the changes')
    with opened(ctx) as runtime:
        kind_of(kind).edit(runtime, key, entry)
    console.print(f'Changed {kind.value[:-1]} {escape(repr(key))}.', highlight=False)


@registry_app.command('remove')
def remove_command(ctx: typer.Context, kind: KindArgument, key: Annotated[str, typer.Argument()]) -> None:
    """Remove an entry (for settings: the stored value)."""
    with opened(ctx) as runtime:
        kind_of(kind).remove(runtime, key)
    console.print(f'Removed {kind.value[:-1]} {escape(repr(key))}.', highlight=False)


@registry_app.command('new-key')
def new_key_command() -> None:
    """Print a fresh key for the secret_key setting."""
    from ..encryption import new_key

    typer.echo(new_key())


@registry_app.command('rotate-key')
def rotate_key_command(ctx: typer.Context) -> None:
    """Re-encrypt every stored secret under the first key of secret_key (all or nothing)."""
    from . import providers_store
    from .cli_kinds import box

    with opened(ctx) as runtime:
        count = providers_store.rotate(runtime.store, box(runtime))
    console.print(f'Re-encrypted {count} stored secrets under the first key of secret_key.')


@registry_app.command('cleanup-sandbox')
def cleanup_sandbox_command(ctx: typer.Context) -> None:
    """Remove every sandbox workflow (its runs first), every sandbox agent and every sandbox preset
    no other agent uses."""
    from ..workflows.book import cleanup_sandbox
    from . import agents_store

    with opened(ctx) as runtime:
        done = agents_store.cleanup_sandbox(runtime.store, [cleanup_sandbox])
    console.print(
        f'Removed {done.others.get("workflows", 0)} sandbox workflows (with their runs), '
        f'{done.agents} sandbox agents and {done.presets} sandbox presets.',
        soft_wrap=True,
    )


def stored_overrides(loaded: LoadedSettings) -> dict[str, Any]:
    """The registry's stored settings for `synapse settings`, without creating or migrating anything.

    Empty when there is no database yet, or it has no registry tables; an unreachable database
    is an `SQLAlchemyError` for the caller to report.
    """
    from sqlalchemy import inspect
    from sqlalchemy.engine import make_url

    from ..store import Store
    from .settings_store import stored_values

    settings = loaded.settings
    url = settings.resolved_database_url
    parsed = make_url(url)
    if parsed.get_backend_name() == 'sqlite' and not Path(parsed.database or '').is_file():
        return {}
    store = Store.open(url, settings.attachments_dir)
    try:
        if not inspect(store.engine).has_table('registry_settings'):
            return {}
        return stored_values(store)
    finally:
        store.close()
