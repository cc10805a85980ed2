"""What every `synapse` command shares: opening the root, refusals as one line, JSON and times.

A refusal is one line on standard error (`fail`: exit 1, or 2 for input the command cannot use); a
warning is one line there too, and the command goes on. `opened` opens the root for a command and
turns the settings' and the store's refusals, and those its area names (`refused`), into that line.
The machinery is imported when a command runs, so that `synapse --help` stays fast.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from .runtime.assembled import SynapseRuntime

Json = Annotated[bool, typer.Option('--json', help='Print the JSON the HTTP API answers.')]
"""The `--json` option of a command that prints what the HTTP API answers."""
Refusal = Callable[[Exception], tuple[str, int] | None]
"""The line and exit code for an error a command's area refuses with; None for any other error."""


def fail(message: str, code: int = 1) -> NoReturn:
    """One line on standard error, then exit."""
    Console(stderr=True).print(f'[red]Error:[/red] {escape(message)}', highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def warn(message: str) -> None:
    """One line on standard error; the command goes on."""
    Console(stderr=True).print(
        f'[yellow]Warning:[/yellow] {escape(message)}', highlight=False, soft_wrap=True
    )


def echo_json(value: Any) -> None:
    """`value` as indented JSON on standard output (what the HTTP API answers)."""
    typer.echo(json.dumps(value, indent=2, ensure_ascii=False, default=str))


def when(moment: datetime | None) -> str:
    """A moment in UTC to the second, or a dash."""
    return f'{moment:%Y-%m-%d %H:%M:%S} UTC' if moment is not None else '—'


def open_root(ctx: typer.Context, *, agents: bool = False, demo: bool = False) -> SynapseRuntime:
    """The root for a command, with the plugins the `synapse` command was built with (the agent
    catalog only when `agents`); the settings' and the store's refusals are raised."""
    from .cli_db import plugins_of
    from .runtime.assembled import SynapseRuntime
    from .settings import load_settings

    return SynapseRuntime.open(load_settings(), agents=agents, demo=demo, plugins=plugins_of(ctx))


def _nothing(_exc: Exception) -> None:
    return None


@contextmanager
def opened(
    ctx: typer.Context, *, agents: bool = False, demo: bool = False, refused: Refusal = _nothing
) -> Iterator[SynapseRuntime]:
    """The root for a command, closed when the block ends; a refusal of the settings or the store,
    and an error `refused` names, as one line."""
    from .errors import StoreNotReady
    from .settings import SettingsError

    try:
        runtime = open_root(ctx, agents=agents, demo=demo)
    except (SettingsError, StoreNotReady) as exc:
        fail(str(exc))
    try:
        with runtime:
            yield runtime
    except Exception as exc:
        said = refused(exc)
        if said is None:
            raise
        fail(*said)
