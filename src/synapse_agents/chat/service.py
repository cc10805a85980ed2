"""The chat side of a running server: one write queue and engine per store, and agent lookup."""

from __future__ import annotations

from typing import Any

import anyio.to_thread

from ..store import Store
from ..store.write_queue import WriteQueue
from .engine import ChatEngine
from .target import TurnTarget


class ChatService:
    """Owns the store's `WriteQueue` and the `ChatEngine`; closed when the app stops."""

    def __init__(self, store: Store) -> None:
        self.writes = WriteQueue(store)
        self.engine = ChatEngine(store, self.writes)

    def close(self) -> None:
        self.writes.close()


class AgentLookupError(Exception):
    """The catalog could not be scanned (an agent module failed to build)."""


async def find_agent(catalog: Any, slug: str) -> Any:
    """The discovered agent with `slug` (None when unknown).

    When nothing changed since the last scan (`Catalog.fresh`: a few stats) the snapshot is used
    at once; otherwise the scan, which may import modules, runs in a thread.
    """
    if catalog is None:
        return None
    snapshot = catalog.fresh()
    if snapshot is not None:
        return snapshot.get(slug)
    try:
        snapshot = await anyio.to_thread.run_sync(catalog.scan)
    except Exception as exc:
        raise AgentLookupError(str(exc)) from exc
    return snapshot.get(slug)


def target_for(found: Any) -> TurnTarget:
    """The engine's view of a discovered agent."""
    return TurnTarget.from_discovered(found)
