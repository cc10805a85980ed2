"""The default plugins: Synapse's own areas, each one plugin module, in nav and route order.

The one list of them (as Datasette's `DEFAULT_PLUGINS`). The root passes it to the plugin manager;
nothing below the root imports it, so the hooks, the areas and the front doors never import the
composition that puts them together.
"""

from __future__ import annotations

import functools
from types import ModuleType

from ..accounting import plugin as accounting
from ..chat import plugin as playground
from ..registry import plugin as registry
from ..runtime import plugin as maintenance
from ..tasks import plugin as tasks
from ..traces import plugin as traces
from ..web import plugin as web
from .manager import PluginManager, plugin_manager

DEFAULT_PLUGINS: tuple[ModuleType, ...] = (
    web,  # sign-in, API docs, health, extensions
    playground,  # Agents and History: agents, chat, conversations, attachments
    maintenance,  # the sweep, the heartbeat, auto-prune; `synapse db`
    registry,
    accounting,  # Spend
    tasks,
    traces,
)


@functools.cache
def default_manager() -> PluginManager:
    """The process's manager (built once): the default plugins and the installed ones; what
    `synapse serve`, `mount()`, `Synapse` and the command line use."""
    return plugin_manager(DEFAULT_PLUGINS)
