"""The FastAPI application factory, and the API contract it makes (its OpenAPI document)."""

from __future__ import annotations

import json
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from starlette.middleware.gzip import GZipMiddleware

from .._version import __version__
from ..plugins.answers import plugin_routers
from ..plugins.defaults import DEFAULT_PLUGINS
from ..plugins.manager import plugin_dashboard_areas, plugin_manager
from ..settings import load_settings
from ..store import Store
from .access import AccessMiddleware, AccessPolicy, policy_for
from .context import SynapseContext
from .errors import install_error_handlers
from .hardening import BodyLimitMiddleware, SecurityHeadersMiddleware
from .json_body import StorableJsonMiddleware
from .routes.lifecycle import runtime_lifespan
from .spa import mount_spa


def default_policy(context: SynapseContext) -> AccessPolicy:
    """The access policy the settings call for (see docs/security.md)."""
    settings = context.settings
    return policy_for(
        env=settings.env,
        bind_host=settings.host,
        token=settings.token.get_secret_value() if settings.token else None,
        allowed_hosts=settings.allowed_hosts,
        session_ttl=settings.session_ttl,
    )


def create_app(context: SynapseContext, *, access: AccessPolicy | None = None) -> FastAPI:
    """Build the Synapse app around `context`, the runtime root; its lifespan starts and stops it.

    The routes are the plugins' (`register_routes`), Synapse's own first. `access` decides who may
    use it — every route, a plugin's too; by default the settings decide (local mode on a loopback
    bind in a local environment, a token anywhere else).
    """
    policy = access or default_policy(context)
    routers = plugin_routers(context.plugins)
    plugin_dashboard_areas(context.plugins)  # a plugin's bad area fails here, not on a request

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        async with runtime_lifespan(context):
            yield

    app = FastAPI(
        lifespan=lifespan,
        title='Synapse',
        version=__version__,
        summary='Workbench API for pydantic-ai agents.',
        docs_url=None,  # served by api_docs: local assets, no inline script
        redoc_url=None,
        openapi_url='/api/openapi.json',
    )
    app.state.synapse = context
    app.state.access_policy = policy
    install_error_handlers(app)
    for router in routers:
        app.include_router(router)
    mount_spa(app)  # last: the dashboard answers every path no API route claimed
    # The last added is the outermost: headers go on every answer, refusals included.
    # Compression: the dashboard bundle and the large JSON answers (a replay is ~150 KB) shrink
    # several times. Starlette never compresses `text/event-stream`, so chat streams are not held
    # in a compressor's buffer (tests/e2e/test_compression.py).
    app.add_middleware(GZipMiddleware, minimum_size=1024, compresslevel=6)
    app.add_middleware(StorableJsonMiddleware)  # inside the body limit: it reads bounded bodies only
    app.add_middleware(BodyLimitMiddleware, max_bytes=context.settings.request_limit)
    app.add_middleware(AccessMiddleware, policy=policy)
    app.add_middleware(SecurityHeadersMiddleware)
    return app


def openapi_document() -> dict[str, Any]:
    """The OpenAPI document of an app with default settings (the schema depends on no setting).

    Only Synapse's own routes: an installed plugin's routes are not part of the contract.
    `scripts/export_openapi.py` (`make api-types`) writes it to `frontend/openapi.json`, from which
    the dashboard's TypeScript types are generated (docs/api.md); tests/unit/test_api_contract.py
    fails when the committed file is not what the app generates now.
    """
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / 'pyproject.toml').write_text('[project]\nname = "contract"\n')
        loaded = load_settings({'database_url': 'sqlite://'}, cwd=root, load_dotenv=False)
        store = Store.open('sqlite://', root / 'attachments')
        try:
            manager = plugin_manager(DEFAULT_PLUGINS, entry_points=False)
            return create_app(SynapseContext(loaded=loaded, store=store, plugins=manager)).openapi()
        finally:
            store.close()


def openapi_json() -> str:
    """`openapi_document()` as the committed file holds it: indented, UTF-8, a final newline."""
    return json.dumps(openapi_document(), indent=2, ensure_ascii=False) + '\n'
