"""The FastAPI application factory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from .. import __version__
from .context import SynapseContext
from .errors import install_error_handlers
from .routes import agents, attachments, chat, conversations, health
from .routes.lifecycle import chat_lifespan
from .spa import mount_spa


def create_app(context: SynapseContext) -> FastAPI:
    """Build the Synapse app around `context` (settings, store, agent catalog)."""

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        async with chat_lifespan(context):
            yield

    app = FastAPI(
        lifespan=lifespan,
        title='Synapse',
        version=__version__,
        summary='Workbench API for pydantic-ai agents.',
        docs_url='/api/docs',
        redoc_url=None,
        openapi_url='/api/openapi.json',
    )
    app.state.synapse = context
    install_error_handlers(app)
    app.include_router(health.router)
    app.include_router(agents.router)
    app.include_router(chat.router)
    app.include_router(conversations.router)
    app.include_router(attachments.router)
    mount_spa(app)  # last: the dashboard answers every path no API route claimed
    return app
