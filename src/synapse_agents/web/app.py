"""The FastAPI application factory."""

from __future__ import annotations

from fastapi import FastAPI

from .. import __version__
from .context import SynapseContext
from .errors import install_error_handlers
from .routes import health


def create_app(context: SynapseContext) -> FastAPI:
    """Build the Synapse app around `context` (settings, store, agent catalog)."""
    app = FastAPI(
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
    return app
