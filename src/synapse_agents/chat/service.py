"""The chat side of a running server: one write queue and engine per store, and agent lookup.

`find_agent` resolves a slug for every front door: a code agent from the discovery catalog, a
configured agent (`config:<key>`, sandboxes included) from the registry of the runtime's store.
"""

from __future__ import annotations

from typing import Any

import anyio.to_thread

from ..settings import Settings
from ..store import Store
from ..store.write_queue import WriteQueue
from ..targets.target import TurnTarget
from .engine import ChatEngine


class ChatService:
    """Owns the store's `WriteQueue` and the `ChatEngine`; closed when the app stops."""

    def __init__(self, store: Store, settings: Settings | None = None) -> None:
        self.writes = WriteQueue(store)
        self.engine = ChatEngine(store, self.writes, settings)

    def close(self) -> None:
        self.writes.close()


class AgentLookupError(Exception):
    """The catalog could not be scanned (an agent module failed to build), or the registry read."""


async def find_agent(source: Any, slug: str) -> Any:
    """The agent with `slug` (None when unknown): a `DiscoveredAgent`, or a configured agent.

    `source` is the runtime (`SynapseRuntime`: its catalog, and its store's configured agents) or a
    bare `Catalog` (code agents only). When nothing changed since the last scan (`Catalog.fresh`: a
    few stats) the snapshot is used at once; otherwise the scan, which may import modules, runs in a
    thread, as does reading a configured agent.
    """
    store: Store | None = getattr(source, 'store', None)
    catalog = getattr(source, 'catalog', None) if store is not None else source
    if slug.startswith('config:'):
        if store is None:
            return None
        from ..registry.agents_runtime import config_key, find_configured

        key = config_key(slug)
        if key is None:
            return None
        try:
            return await find_configured(store, source.settings.secret_key, catalog, key)
        except Exception as exc:
            raise AgentLookupError(f'The configured agent {slug!r} could not be read: {exc}') from exc
    if catalog is None:
        return None
    return (await current_snapshot(catalog)).get(slug)


async def current_snapshot(catalog: Any) -> Any:
    """The catalog's snapshot: at once when nothing changed (`Catalog.fresh`), else scanned in a
    thread; `AgentLookupError` when the scan fails."""
    snapshot = catalog.fresh()
    if snapshot is not None:
        return snapshot
    try:
        return await anyio.to_thread.run_sync(catalog.scan)
    except Exception as exc:
        raise AgentLookupError(str(exc)) from exc


def target_for(found: Any) -> TurnTarget:
    """The engine's view of a discovered (or configured) agent."""
    return TurnTarget.from_discovered(found)
