"""The plugin manager: the default plugins the root names, plus those installed under the entry point.

The manager imports no plugin module of its own accord: the composition root names the default
ones (`plugins.defaults.DEFAULT_PLUGINS`), and the manager loads them by name, as Datasette loads
its default plugins and pluggy the installed ones. Each function here asks one hook, the default plugins first
in their list's order and then the others, and checks what they answered, so a plugin's mistake is
a clear error at start-up rather than a failure on some later request.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pluggy

from . import hookspecs
from .hookspecs import PROJECT, DashboardArea, Job, Root

if TYPE_CHECKING:
    import typer

ENTRY_POINT_GROUP = 'synapse_agents.plugins'
_CONNECTOR_KIND = re.compile(r'^[a-z][a-z0-9-]{0,39}$')


class PluginError(RuntimeError):
    """A plugin answered a hook with something Synapse cannot use."""


class PluginManager(pluggy.PluginManager):
    """A pluggy manager that knows which of its plugins are the defaults (Synapse's own areas)."""

    def __init__(self) -> None:
        super().__init__(PROJECT)
        self.defaults: list[str] = []


def plugin_manager(defaults: Sequence[ModuleType | str], *, entry_points: bool = True) -> PluginManager:
    """A new manager with `defaults` (modules or their dotted names, imported here as pluggy imports
    an entry point's; registered under their module names, asked first and in this order), and the
    installed plugins unless `entry_points=False`."""
    manager = PluginManager()
    manager.add_hookspecs(hookspecs)
    for named in defaults:
        plugin = importlib.import_module(named) if isinstance(named, str) else named
        manager.register(plugin, name=plugin.__name__)
        manager.defaults.append(plugin.__name__)
    if entry_points:
        manager.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
    return manager


def _defaults(manager: pluggy.PluginManager) -> list[str]:
    return list(getattr(manager, 'defaults', []))


def plugin_names(manager: pluggy.PluginManager) -> list[str]:
    """The names of the registered plugins other than the default ones, sorted."""
    defaults = set(_defaults(manager))
    return sorted(
        name for name, plugin in manager.list_name_plugin() if plugin is not None and name not in defaults
    )


def _answers(manager: pluggy.PluginManager, hook: str, **arguments: Any) -> list[tuple[str, Any]]:
    """Each implementation's answer as (plugin name, answer): the default plugins in their order,
    then the others in pluggy's call order."""
    implementations = getattr(manager.hook, hook).get_hookimpls()
    rank = {name: index for index, name in enumerate(_defaults(manager))}
    first = sorted((i for i in implementations if i.plugin_name in rank), key=lambda i: rank[i.plugin_name])
    rest = [i for i in reversed(implementations) if i.plugin_name not in rank]
    return [
        (impl.plugin_name, impl.function(**{name: arguments[name] for name in impl.argnames}))
        for impl in [*first, *rest]
    ]


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


def plugin_dashboard_areas(manager: pluggy.PluginManager) -> list[DashboardArea]:
    """Every dashboard area, the default plugins' first; two areas may not share a name or a path."""
    areas: list[DashboardArea] = _checked(
        _flat(
            (answer for _, answer in _answers(manager, 'register_dashboard_areas')),
            'register_dashboard_areas',
        ),
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


def plugin_rag_connectors(manager: pluggy.PluginManager) -> list[Any]:
    """Every retrieval connector the plugins register, the default plugins' first: each has a `kind`
    (lowercase letters, digits and -), a `label`, and `check` and `files` methods; two may not share
    a kind."""
    hook = 'register_rag_connectors'
    found: list[Any] = []
    owners: dict[str, str] = {}
    for name, answer in _answers(manager, hook):
        for connector in _flat([answer], hook):
            kind = getattr(connector, 'kind', None)
            if not isinstance(kind, str) or not _CONNECTOR_KIND.match(kind):
                raise PluginError(
                    f'plugin {name!r}: {hook} returned {connector!r}, whose kind {kind!r} is not '
                    'lowercase letters, digits and -'
                )
            label = getattr(connector, 'label', None)
            if not isinstance(label, str) or not label.strip():
                raise PluginError(f'plugin {name!r}: the RAG connector {kind!r} needs a label')
            for method in ('check', 'files'):
                if not callable(getattr(connector, method, None)):
                    raise PluginError(f'plugin {name!r}: the RAG connector {kind!r} has no {method}() method')
            if kind in owners:
                raise PluginError(
                    f'two RAG connectors have the kind {kind!r} (plugins {owners[kind]!r} and {name!r})'
                )
            owners[kind] = name
            found.append(connector)
    return found


def plugin_jobs(manager: pluggy.PluginManager, runtime: Root) -> list[Job]:
    """Every job for `runtime`, the default plugins' first."""
    found = _flat(
        (answer for _, answer in _answers(manager, 'register_jobs', runtime=runtime)), 'register_jobs'
    )
    return _checked(found, Job, 'register_jobs')


def plugin_commands(manager: pluggy.PluginManager, cli: typer.Typer) -> None:
    """Let every plugin add its commands and sub-apps to `cli`, the default plugins first."""
    _answers(manager, 'register_commands', cli=cli)
