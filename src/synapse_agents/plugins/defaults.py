"""The default plugins: Synapse's own areas, each one plugin module, in nav and route order.

The one list of them, by module name (as Datasette's `DEFAULT_PLUGINS`). The root passes it to
the plugin manager; nothing below the root imports it, so the hooks, the areas and the front doors
never import the composition that puts them together.
"""

from __future__ import annotations

import functools

from .manager import PluginManager, plugin_manager

DEFAULT_PLUGINS: tuple[str, ...] = (
    'synapse_agents.web.plugin',  # sign-in, API docs, health, extensions
    'synapse_agents.chat.plugin',  # Agents and History: agents, chat, conversations, attachments
    'synapse_agents.conversations.plugin',  # the conversations' tables
    'synapse_agents.runtime.plugin',  # the sweep, the heartbeat, auto-prune; `synapse db`
    'synapse_agents.registry.plugin',
    'synapse_agents.accounting.plugin',  # Spend
    'synapse_agents.tasks.plugin',
    'synapse_agents.traces.plugin',
    'synapse_agents.rules.plugin',
    'synapse_agents.compression.plugin',
    'synapse_agents.memory.plugin',
    'synapse_agents.retrieval.plugin',
    'synapse_agents.privacy.plugin',
    'synapse_agents.evals.plugin',
    'synapse_agents.workflows.plugin',
)
"""Named, not imported: a plugin module opens roots of its own (the task worker's), so the list that
the root is built on cannot import them without closing a circle; the manager imports each by name."""


@functools.cache
def default_manager() -> PluginManager:
    """The process's manager (built once): the default plugins and the installed ones; what
    `synapse serve`, `mount()`, `Synapse` and the command line use."""
    return plugin_manager(DEFAULT_PLUGINS)
