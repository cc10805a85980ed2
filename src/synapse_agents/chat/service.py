"""The chat side of a running server: one write queue and engine per store, and agent lookup.

Agent lookup is one path for every front door, and never blocks the event loop:

- `find_agent(source, slug)`: what a slug names, a code agent from the discovery catalog or a
  configured agent (`config:<key>`, sandboxes included) from the registry of the runtime's store;
- `lookup_target(runtime, agent_or_slug, key=...)`: the engine's target for what a front door was
  handed (the Python API, a task): an agent object (the discovered agent it is, else itself), a code
  agent's slug, `config:<key>`, or a configured agent's bare key; `UnknownAgent` naming the closest
  known slugs otherwise.

A catalog scan (which may import modules) and a registry read run in a worker thread; when nothing
changed since the last scan (`Catalog.fresh`: a few stats) the snapshot is used at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio.to_thread
from pydantic_ai.agent import AbstractAgent

from ..errors import AgentLookupError, UnknownAgent
from ..events import Compressed
from ..registry.agents_runtime import CONFIG_PREFIX, config_key, find_configured
from ..settings import Settings
from ..store import Store
from ..store.write_queue import WriteQueue
from ..targets.target import TurnTarget
from .engine import ChatEngine


class ChatService:
    """Owns the store's `WriteQueue` and the `ChatEngine`; closed when the app stops."""

    def __init__(
        self,
        store: Store,
        settings: Settings | None = None,
        *,
        on_compressed: Callable[[Compressed], None] | None = None,
    ) -> None:
        self.writes = WriteQueue(store)
        self.engine = ChatEngine(store, self.writes, settings, on_compressed=on_compressed)

    def close(self) -> None:
        self.writes.close()


async def find_agent(source: Any, slug: str) -> Any:
    """The agent with `slug` (None when unknown): a `DiscoveredAgent`, or a configured agent.

    `source` is the runtime (`SynapseRuntime`: its catalog, and its store's configured agents) or a
    bare `Catalog` (code agents only). When nothing changed since the last scan (`Catalog.fresh`: a
    few stats) the snapshot is used at once; otherwise the scan, which may import modules, runs in a
    thread, as does reading a configured agent.
    """
    store: Store | None = getattr(source, 'store', None)
    catalog = getattr(source, 'catalog', None) if store is not None else source
    if slug.startswith(CONFIG_PREFIX):
        if store is None:
            return None
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


async def lookup_target(
    runtime: Any, agent: AbstractAgent[Any, Any] | str, *, key: str | None = None
) -> TurnTarget:
    """The turn target for an agent object or a slug (see the module docstring).

    An agent object discovery found is its discovered agent (stored under its slug, so the
    playground can continue its conversations); any other is stored under `key`, else its `name`.
    A configured agent that cannot run raises its own error here."""
    catalog = runtime.catalog
    if not isinstance(agent, str):
        if not isinstance(agent, AbstractAgent):
            raise TypeError(f'agent: expected a pydantic-ai agent or a slug, got {type(agent).__name__}.')
        return await _target_of_object(catalog, agent, key)
    slug = agent
    found = None
    if not slug.startswith(CONFIG_PREFIX) and catalog is not None:
        found = await find_agent(catalog, slug)
    if found is None and slug:
        configured = slug if slug.startswith(CONFIG_PREFIX) else f'{CONFIG_PREFIX}{slug}'
        found = await find_agent(runtime, configured)
        if found is not None and found.setup_error is not None:
            raise found.setup_error
    if found is not None:
        return target_for(found)
    if catalog is None and not slug.startswith(CONFIG_PREFIX):
        raise UnknownAgent(
            f'No agent with slug {slug!r}: discovery is off (discover=False) and the registry '
            'has no configured agent with that key.'
        )
    known = [a.slug for a in (await current_snapshot(catalog)).agents] if catalog is not None else []
    raise UnknownAgent.for_slug(slug, known)


async def _target_of_object(catalog: Any, agent: AbstractAgent[Any, Any], key: str | None) -> TurnTarget:
    if key is None and catalog is not None:
        for found in (await current_snapshot(catalog)).agents:
            if found.agent is agent:
                return target_for(found)
    slug = key or agent.name
    if not slug:
        raise ValueError(
            'This agent has no name and discovery does not know it: pass key="..." '
            '(the name its conversations are stored under) or give the agent a name.'
        )
    if len(slug) > 255:
        raise ValueError(f'key: {len(slug)} characters is more than 255.')
    return TurnTarget.for_agent(agent, slug=slug)
