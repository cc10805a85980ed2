"""One agent lookup for every front door, and it never blocks the event loop (`chat/service.py`)."""

from __future__ import annotations

import time
from typing import Any

import anyio
import pytest

from synapse_agents import Synapse, UnknownAgent
from synapse_agents.demo.agents import support_agent
from synapse_agents.discovery import Catalog

pytestmark = pytest.mark.anyio

SCAN_SECONDS = 0.4


def slow_scans(syn: Synapse, monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on every lookup finds the catalog stale and scans it, slowly (as importing a big
    project does); the scan itself is the one already made, so only the wait is left to block."""
    catalog = syn.runtime.catalog
    assert catalog is not None
    snapshot = catalog.scan()

    def scan(self: Catalog) -> Any:
        time.sleep(SCAN_SECONDS)
        return snapshot

    monkeypatch.setattr(Catalog, 'scan', scan)
    monkeypatch.setattr(Catalog, 'fresh', lambda self: None)


async def longest_pause_while(work: Any) -> float:
    """Run `work()` beside a ticker; the longest the event loop kept the ticker waiting (seconds)."""
    longest = 0.0
    done = anyio.Event()

    async def tick() -> None:
        nonlocal longest
        last = time.perf_counter()
        while not done.is_set():
            await anyio.sleep(0.01)
            now = time.perf_counter()
            longest = max(longest, now - last)
            last = now

    async with anyio.create_task_group() as group:
        group.start_soon(tick)
        try:
            await work()
        finally:
            done.set()
    return longest


async def test_an_unknown_slug_is_looked_up_without_blocking_the_loop(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with Synapse(database_url=database_url, agents=['synapse_agents.demo']) as syn:
        slow_scans(syn, monkeypatch)

        async def unknown() -> None:
            with pytest.raises(UnknownAgent, match='Did you mean'):
                await syn.conversation('synapse_agents.demo.agents.suport-agent')

        longest = await longest_pause_while(unknown)
    assert longest < SCAN_SECONDS / 2, f'the loop stood still for {longest:.3f} s'


async def test_an_agent_object_is_found_without_blocking_the_loop(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with Synapse(database_url=database_url, agents=['synapse_agents.demo']) as syn:
        slow_scans(syn, monkeypatch)
        conversations: list[Any] = []

        async def by_object() -> None:
            conversations.append(await syn.conversation(support_agent))

        longest = await longest_pause_while(by_object)
    assert conversations[0].agent_key == 'synapse_agents.demo.agents.support-agent'
    assert longest < SCAN_SECONDS / 2, f'the loop stood still for {longest:.3f} s'
