"""The web layer's own routes as a plugin: sign-in, the API docs, health and `GET /api/extensions`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..plugins.hookspecs import hookimpl

if TYPE_CHECKING:
    from fastapi import APIRouter


@hookimpl
def register_routes() -> Sequence[APIRouter]:
    """Sign-in, the API docs, `GET /api/health` and `GET /api/extensions`."""
    from . import api_docs, login
    from .routes import extensions, health

    return [login.router, api_docs.router, health.router, extensions.router]
