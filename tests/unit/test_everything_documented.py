"""Every hook, setting and command is documented: a new one without its line in the docs fails here.

Hooks: the plugins table of docs/architecture.md. Settings: the generated table of
docs/configuration.md (tests/unit/test_docs.py checks it is the settings as declared). Commands:
the Commands table of README.md, for every command and sub-command of the `synapse` Typer app,
built-in areas' and all.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer

from synapse_agents.cli import command_line
from synapse_agents.plugins import hookspecs
from synapse_agents.plugins.defaults import DEFAULT_PLUGINS
from synapse_agents.plugins.manager import plugin_manager
from synapse_agents.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


def _section(path: Path, heading: str) -> str:
    text = path.read_text(encoding='utf-8')
    start = text.index(f'\n{heading}\n')
    end = text.find('\n## ', start + len(heading) + 2)
    return text[start : end if end >= 0 else len(text)]


def hook_names() -> list[str]:
    return [
        name
        for name, fn in inspect.getmembers(hookspecs, inspect.isfunction)
        if getattr(fn, 'synapse_agents_spec', None) is not None
    ]


def undocumented_hooks(table: str) -> list[str]:
    return [name for name in hook_names() if not re.search(rf'^\| `{name}\(', table, re.M)]


def command_paths(app: typer.Typer) -> Iterator[tuple[str, ...]]:
    """Every command of `app` as its words (`('db', 'upgrade')`), groups included."""

    def walk(command: Any, path: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
        if path:
            yield path
        for name, sub in sorted(getattr(command, 'commands', {}).items()):
            if not getattr(sub, 'hidden', False):
                yield from walk(sub, (*path, name))

    yield from walk(typer.main.get_command(app), ())


def undocumented_commands(app: typer.Typer, table: str) -> list[str]:
    """The commands no row of the Commands table names: `synapse <group>` in a row, and each
    sub-command's name as a word of that row (`list|show|add`, "`new-key`", `synapse spend reprice`)."""
    rows = [line for line in table.splitlines() if line.startswith('| `synapse ')]
    missing = []
    for path in command_paths(app):
        group, rest = path[0], path[1:]
        named = [row for row in rows if re.search(rf'`synapse {re.escape(group)}[ `]', row)]
        if not any(
            all(re.search(rf'(?<![\w-]){re.escape(word)}(?![\w-])', row) for word in rest) for row in named
        ):
            missing.append(' '.join(path))
    return missing


def test_every_hook_is_in_the_plugins_table() -> None:
    table = _section(ROOT / 'docs' / 'architecture.md', '## Plugins')
    assert hook_names(), 'no hooks found: hookspecs are marked differently now'
    assert undocumented_hooks(table) == []


def test_every_setting_is_in_the_configuration_table() -> None:
    text = (ROOT / 'docs' / 'configuration.md').read_text(encoding='utf-8')
    table = text[text.index('<!-- settings-table') : text.index('<!-- /settings-table -->')]
    assert [name for name in Settings.model_fields if f'`{name}`' not in table] == []


def test_every_command_and_sub_command_is_in_the_readme() -> None:
    app = command_line(plugin_manager(DEFAULT_PLUGINS, entry_points=False))
    paths = list(command_paths(app))
    assert ('db', 'upgrade') in paths and ('tasks', 'fire') in paths  # the areas' sub-apps are walked
    assert undocumented_commands(app, _section(ROOT / 'README.md', '## Commands')) == []


def test_an_undocumented_hook_or_command_is_found() -> None:
    table = '| Hook |\n| `register_routes()` | x |\n'
    assert 'register_jobs' in undocumented_hooks(table)
    assert 'register_routes' not in undocumented_hooks(table)
    app = typer.Typer()
    notes = typer.Typer()
    notes.command('count')(lambda: None)
    notes.command('purge')(lambda: None)
    app.add_typer(notes, name='notes')
    app.command('hello')(lambda: None)
    rows = '| `synapse notes count` | Count. |\n| `synapse hello` | Hi. |\n'
    assert undocumented_commands(app, rows) == ['notes purge']
