"""What every route reads: the runtime root serving the app (`SynapseRuntime`, here `SynapseContext`)."""

from __future__ import annotations

from fastapi import Request

from ..runtime.assembled import SynapseRuntime

SynapseContext = SynapseRuntime
"""The web layer's name for the root it serves: settings, store, catalog, chat service, plugins."""


async def get_context(request: Request) -> SynapseContext:
    """FastAPI dependency: the root of the app serving this request.

    `async` on purpose: FastAPI runs a plain `def` dependency in the thread pool, a thread hop on
    every request for what is an attribute lookup.
    """
    context: SynapseContext = request.app.state.synapse
    context.refresh_settings()  # one stat; a changed pyproject.toml's live settings apply now
    return context
