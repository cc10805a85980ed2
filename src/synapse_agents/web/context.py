"""What a running Synapse server holds: settings, the store, and the agent catalog."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fastapi import Request

from ..settings import LoadedSettings
from ..store import Store

if TYPE_CHECKING:
    from ..discovery import Catalog


@dataclass
class SynapseContext:
    """Shared state of one app instance, reachable from every route via `get_context`."""

    loaded: LoadedSettings
    store: Store
    targets: list[str] = field(default_factory=list)
    catalog: Catalog | None = None
    """The agent catalog (`synapse_agents.discovery.Catalog`); None serves no agents."""
    started_at: float = field(default_factory=time.time)
    chat: Any = None
    """The `ChatService` (write queue and turn engine), created on first use."""
    maintenance: bool = False
    """Run background upkeep (the daily auto-prune): set by `synapse serve` only."""

    @property
    def settings(self) -> Any:
        return self.loaded.settings


async def get_context(request: Request) -> SynapseContext:
    """FastAPI dependency: the context of the app serving this request.

    `async` on purpose: FastAPI runs a plain `def` dependency in the thread pool, a thread hop on
    every request for what is an attribute lookup.
    """
    context: SynapseContext = request.app.state.synapse
    return context
