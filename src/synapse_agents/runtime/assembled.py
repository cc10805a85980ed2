"""`SynapseRuntime`: the parts of one assembled Synapse and their life (open, start, stop, close).

The front doors (routes as `SynapseContext`, the command line's sub-apps, `Synapse`) type the
root with this class and are handed one; which plugins a root is opened with is the composition's
choice (`runtime/root.py`, `plugins/defaults.py`), so this module names none.

    runtime = SynapseRuntime.open(load_settings(), plugins=manager)
    async with runtime.running():   # start-up jobs, then the periodic ones
        ...
    runtime.close()                 # the store
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Self, TypeVar

import anyio.to_thread
import pluggy

from ..chat.service import ChatService
from ..discovery import Catalog
from ..events import Compressed
from ..plugins.answers import area_tables, plugin_tables
from ..plugins.manager import plugin_jobs, plugin_manager
from ..settings import LoadedSettings, Settings, remember_settings
from ..settings_reload import SettingsReloader
from ..store import Store
from ..store.setup import open_store
from ..traces.provider import flush
from .jobs import JobRunner

DEMO_TARGET = 'synapse_agents.demo'

Schema = Literal['ready', 'as-is']
Area = TypeVar('Area')


@dataclass
class SynapseRuntime:
    """One assembled Synapse; reachable from every route (as `SynapseContext`) via `get_context`."""

    loaded: LoadedSettings
    store: Store
    targets: list[str] = field(default_factory=list)
    catalog: Catalog | None = None
    """The agent catalog; None serves no agents."""
    plugins: pluggy.PluginManager = field(default_factory=lambda: plugin_manager((), entry_points=False))
    """The plugins whose jobs and tables this root runs and checks (none unless given)."""
    jobs: JobRunner = field(default_factory=JobRunner)
    maintenance: bool = False
    """Run the background work: the daily auto-prune when `auto_prune` is on, the scheduler and
    the in-process task worker (see docs/tasks.md)."""
    started_at: float = field(default_factory=time.time)
    chat: ChatService | None = None
    """The chat service once `chat_service()` made it; closed (and forgotten) by `stop()`."""
    areas: dict[str, Any] = field(default_factory=dict, repr=False)
    """The feature areas' own state, made on first use (`area`), such as the task dispatcher."""
    reloader: SettingsReloader | None = field(default=None, repr=False)
    """Follows `pyproject.toml` for the settings that apply without a restart."""
    _registered: list[str] = field(default_factory=list, repr=False)
    _starts: int = field(default=0, repr=False)

    @classmethod
    def open(
        cls,
        loaded: LoadedSettings,
        *,
        demo: bool = False,
        agents: bool = True,
        maintenance: bool = False,
        schema: Schema = 'ready',
        plugins: pluggy.PluginManager,
    ) -> Self:
        """Open the store and build the catalog of the settings' discovery targets.

        `schema='ready'` migrates the SQLite default and refuses a PostgreSQL schema that is not at
        the newest revision (`StoreNotReady`); `'as-is'` opens the database as it is (`synapse db`).
        `--demo` adds the demo agents; `agents=False` builds no catalog (and imports no agent).
        `plugins`: the root's (`runtime.root.default_manager()` for Synapse's own and the installed ones).
        """
        settings = loaded.settings
        remember_settings(settings)
        area_tables(plugins)  # every area's tables on the metadata before the store checks them
        if schema == 'ready':
            store = open_store(settings, auto_upgrade=True)
        else:
            store = Store.open(settings.resolved_database_url, settings.attachments_dir)
        reloader = SettingsReloader(loaded)
        targets = list(settings.agents)
        if demo and DEMO_TARGET not in targets:
            targets.append(DEMO_TARGET)
        catalog: Catalog | None = None
        if agents:
            catalog = Catalog(
                targets,
                loaded.project_root,
                env_files=env_files(loaded),
                deps=settings.deps,
                pyproject=deps_file(loaded),
                refresh_settings=reloader.refresh,
            )
        return cls(
            loaded=loaded,
            store=store,
            targets=targets,
            catalog=catalog,
            plugins=plugins,
            maintenance=maintenance,
            reloader=reloader,
        )

    @property
    def settings(self) -> Settings:
        return self.loaded.settings

    def refresh_settings(self) -> Settings:
        """The settings, with the live ones re-read first if `pyproject.toml` changed
        (`settings_reload.py`): every request calls it, so an edit applies on the next one."""
        if self.reloader is not None:
            self.reloader.refresh()
        return self.loaded.settings

    def chat_service(self) -> ChatService:
        """The chat service (the write queue and the turn engine), made on first use."""
        if self.chat is None:
            self.chat = ChatService(self.store, self.settings, on_compressed=self._compressed)
        return self.chat

    def _compressed(self, compressed: Compressed) -> None:
        """Tell the plugins that a conversation was compressed (their `conversation_compressed`)."""
        self.plugins.hook.conversation_compressed(runtime=self, compressed=compressed)

    def area(self, name: str, make: Callable[[SynapseRuntime], Area]) -> Area:
        """The feature area `name`'s state on this root, made by `make(root)` on first use."""
        if name not in self.areas:
            self.areas[name] = make(self)
        found: Area = self.areas[name]
        return found

    async def start(self) -> None:
        """Add the plugins' jobs to the runner and start it (start-up jobs finish first).

        Two apps may share a root (each starts it in its lifespan): only the first start runs the
        jobs, only the last matching `stop()` stops them.
        """
        self._starts += 1
        if self._starts > 1:
            return
        try:
            plugin_tables(self.plugins)  # a plugin table off the store's metadata fails here
            for job in plugin_jobs(self.plugins, self):
                self.jobs.add(job)
                self._registered.append(job.name)
            await self.jobs.start()
        except BaseException:
            await self.stop()
            raise

    async def stop(self) -> None:
        """Stop the jobs and drain and close the write queue; the root may be started again."""
        self._starts = max(0, self._starts - 1)
        if self._starts:
            return
        await self.jobs.stop()
        for name in self._registered:
            self.jobs.remove(name)
        self._registered.clear()
        if self.chat is not None:
            chat, self.chat = self.chat, None
            await chat.engine.close_deps()  # the `server`-lifetime deps (chat/deps.py)
            await anyio.to_thread.run_sync(chat.close)
        await anyio.to_thread.run_sync(flush)  # spans waiting for the OTLP exporter go out now

    @asynccontextmanager
    async def running(self) -> AsyncIterator[SynapseRuntime]:
        """`start()` on entry, `stop()` on exit."""
        await self.start()
        try:
            yield self
        finally:
            await self.stop()

    def close(self) -> None:
        """Close the store (after `stop()`, or when the root never started)."""
        self.store.close()

    def __enter__(self) -> SynapseRuntime:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


def env_files(loaded: LoadedSettings) -> list[Path]:
    """The dotenv files discovery re-reads when they change: the project's `.env` and `env_file`."""
    files = [loaded.project_root / '.env']
    if loaded.settings.env_file is not None:
        files.append(loaded.settings.env_file)
    return files


def deps_file(loaded: LoadedSettings) -> Path | None:
    """The `pyproject.toml` whose `[tool.synapse.deps]` discovery re-reads when it changes: the
    project's, unless the `deps` setting came from the command line or the environment."""
    source = next((value.source for value in loaded.values if value.name == 'deps'), 'default')
    if loaded.pyproject is None or source not in ('pyproject', 'default'):
        return None
    return loaded.pyproject
