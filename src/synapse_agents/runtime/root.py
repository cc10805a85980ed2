"""The composition root: the one place Synapse is assembled, for every front door.

`synapse serve`, `mount()`, the command line and `Synapse` open their root here, on the default
plugins (`plugins/defaults.py`: Synapse's own areas) and the installed ones. The root's parts and
their life are `runtime/assembled.py`'s `SynapseRuntime`; this module only says what it is made of.

    runtime = SynapseRuntime.open(load_settings())   # the default plugins
    async with runtime.running():   # start-up jobs, then the periodic ones
        ...
    runtime.close()                 # the store
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pluggy

from ..plugins.defaults import default_manager
from ..settings import LoadedSettings
from . import assembled, synapse
from .assembled import DEMO_TARGET, Schema, deps_file, env_files

__all__ = ['DEMO_TARGET', 'Synapse', 'SynapseRuntime', 'default_manager', 'deps_file', 'env_files']


@dataclass
class SynapseRuntime(assembled.SynapseRuntime):
    """An assembled Synapse on the default plugins unless given others."""

    plugins: pluggy.PluginManager = field(default_factory=default_manager)

    @classmethod
    def open(
        cls,
        loaded: LoadedSettings,
        *,
        demo: bool = False,
        agents: bool = True,
        maintenance: bool = False,
        schema: Schema = 'ready',
        plugins: pluggy.PluginManager | None = None,
    ) -> SynapseRuntime:
        """`assembled.SynapseRuntime.open` with the default plugins unless `plugins` is given."""
        opened = super().open(
            loaded,
            demo=demo,
            agents=agents,
            maintenance=maintenance,
            schema=schema,
            plugins=plugins or default_manager(),
        )
        return opened


class Synapse(synapse.Synapse):
    """`Synapse` (the app's front door, `runtime/synapse.py`) on the default plugins."""

    def default_plugins(self) -> pluggy.PluginManager:
        return default_manager()
