"""The app's lifespan: it starts the runtime root (its start-up and periodic jobs) and stops it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from ..context import SynapseContext


@asynccontextmanager
async def runtime_lifespan(context: SynapseContext) -> AsyncIterator[None]:
    """Start the root for as long as the app serves; stopping it drains the write queue."""
    async with context.running():
        yield
