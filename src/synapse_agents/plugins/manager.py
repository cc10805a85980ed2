"""The plugin manager: built-in areas plus the plugins installed under the entry-point group.

Each function here asks one hook and checks what the plugins answered, so a plugin's mistake is a
clear error at start-up rather than a failure on some later request.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import pluggy

from . import hookspecs
from .hookspecs import PROJECT, DashboardArea

if TYPE_CHECKING:
    import typer
    from fastapi import APIRouter
    from sqlalchemy import Table

    from ..runtime.jobs import Job
    from ..runtime.root import SynapseRuntime

ENTRY_POINT_GROUP = 'synapse_agents.plugins'
BUILTIN = 'synapse_agents.builtin'


class PluginError(RuntimeError):
    """A plugin answered a hook with something Synapse cannot use."""


def plugin_manager(*, entry_points: bool = True) -> pluggy.PluginManager:
    """A new manager with the built-in areas, and the installed plugins unless `entry_points=False`."""
    from . import builtin

    manager = pluggy.PluginManager(PROJECT)
    manager.add_hookspecs(hookspecs)
    manager.register(builtin, name=BUILTIN)
    if entry_points:
        manager.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
    return manager


@functools.cache
def default_manager() -> pluggy.PluginManager:
    """The process's manager (built once): what `synapse serve`, `mount()` and the CLI use."""
    return plugin_manager()


def plugin_names(manager: pluggy.PluginManager) -> list[str]:
    """The names of the registered plugins other than the built-in areas, sorted."""
    return sorted(
        name for name, plugin in manager.list_name_plugin() if plugin is not None and name != BUILTIN
    )


def _flat(answers: Iterable[Any], hook: str) -> list[Any]:
    items: list[Any] = []
    for answer in answers:
        if answer is None:
            continue
        if isinstance(answer, str | bytes) or not isinstance(answer, Iterable):
            raise PluginError(f'{hook} must return a list, not {type(answer).__name__}')
        items.extend(answer)
    return items


def _checked(items: list[Any], kind: type, hook: str) -> list[Any]:
    for item in items:
        if not isinstance(item, kind):
            raise PluginError(f'{hook} returned {item!r}, which is not a {kind.__name__}')
    return items


def plugin_routers(manager: pluggy.PluginManager) -> list[APIRouter]:
    """Every router, the built-in ones first."""
    from fastapi import APIRouter

    found = _flat(manager.hook.register_routes(), 'register_routes')
    return _checked(found, APIRouter, 'register_routes')


def plugin_dashboard_areas(manager: pluggy.PluginManager) -> list[DashboardArea]:
    """Every dashboard area, the built-in ones first; two areas may not share a name or a path."""
    areas: list[DashboardArea] = _checked(
        _flat(manager.hook.register_dashboard_areas(), 'register_dashboard_areas'),
        DashboardArea,
        'register_dashboard_areas',
    )
    for attribute in ('name', 'path'):
        seen: set[str] = set()
        for area in areas:
            value = getattr(area, attribute)
            if value in seen:
                raise PluginError(f'two dashboard areas have the {attribute} {value!r}')
            seen.add(value)
    return areas


def plugin_jobs(manager: pluggy.PluginManager, runtime: SynapseRuntime) -> list[Job]:
    """Every job for `runtime`, the built-in ones first."""
    from ..runtime.jobs import Job

    found = _flat(manager.hook.register_jobs(runtime=runtime), 'register_jobs')
    return _checked(found, Job, 'register_jobs')


def plugin_tables(manager: pluggy.PluginManager) -> list[tuple[str, Table]]:
    """Each plugin's tables as (plugin name, table); each must be on the store's metadata."""
    from sqlalchemy import Table

    from ..store.schema import Base

    found: list[tuple[str, Table]] = []
    for impl in manager.hook.register_tables.get_hookimpls():
        answer = _checked(_flat([impl.function()], 'register_tables'), Table, 'register_tables')
        for table in answer:
            if table.metadata is not Base.metadata:
                raise PluginError(
                    f'plugin {impl.plugin_name!r}: table {table.name!r} is not on the store metadata '
                    '(declare it on synapse_agents.store.schema.Base.metadata)'
                )
            found.append((impl.plugin_name, table))
    return found


def plugin_commands(manager: pluggy.PluginManager, cli: typer.Typer) -> None:
    """Let every plugin add its commands and sub-apps to `cli`."""
    manager.hook.register_commands(cli=cli)
