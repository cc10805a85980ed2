"""Mounting Synapse into an existing FastAPI or Starlette application."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from starlette.applications import Starlette

from ..runtime.root import SynapseRuntime
from ..settings import load_settings
from .access import AccessPolicy, Authorize, SynapseDisabled, ensure_enabled
from .app import create_app


def mount(
    app: Starlette,
    path: str = '/synapse',
    *,
    authorize: Authorize | None = None,
    agents: Sequence[str] | None = None,
    demo: bool = False,
    project_dir: Path | None = None,
    maintenance: bool = False,
) -> FastAPI:
    """Serve Synapse (dashboard and API) under `path` of `app`; returns the mounted sub-app.

    `authorize(request)` (sync or async) decides who may use it — pass your own check, e.g. "is
    this an admin session". Only the bool `True` lets a request in; anything else, or an
    exception (logged), is a 403. It receives a Starlette `Request` for the incoming request
    before any route runs: method, URL, headers, cookies, `client`, and whatever your own
    middleware put in the scope (`request.session`, `request.user`, `request.state`); its body
    cannot be read (that raises, hence a 403).

    Without `authorize`, the settings decide: with `env = local`, Synapse answers only to clients
    on this machine (a loopback connection; any other gets a 403 saying to pass `authorize`),
    since a mounted app cannot know what address its server listens on; with another `env`, the
    token from SYNAPSE_TOKEN. With `env = production` it refuses to mount unless
    `enabled = true`. Synapse's start-up and shutdown work joins `app`'s lifespan.

    `maintenance=True` runs the maintenance jobs as `synapse serve` does (the daily auto-prune when
    `auto_prune` is on); off by default, since an app served by several worker processes would
    run them in each, and the app may schedule `synapse prune` its own way.
    """
    overrides: dict[str, Any] = {'agents': list(agents) if agents else None}
    loaded = load_settings(overrides, cwd=project_dir)
    settings = loaded.settings
    ensure_enabled(env=settings.env, enabled=settings.enabled)
    if authorize is not None:
        policy = AccessPolicy.with_authorize(authorize, settings.allowed_hosts)
    elif settings.env == 'local':
        policy = AccessPolicy.local(settings.allowed_hosts, mounted=True)
    elif settings.token is not None:
        policy = AccessPolicy.with_token(
            settings.token.get_secret_value(), settings.allowed_hosts, session_ttl=settings.session_ttl
        )
    else:
        raise SynapseDisabled(
            f'mounting Synapse with env {settings.env!r} needs authorize=... or SYNAPSE_TOKEN'
        )
    context = SynapseRuntime.open(loaded, demo=demo, maintenance=maintenance)
    synapse_app = create_app(context, access=policy)
    app.mount(path.rstrip('/') or '/', synapse_app)
    _join_lifespan(app, synapse_app)
    return synapse_app


def _join_lifespan(parent: Starlette, child: FastAPI) -> None:
    """Run the child's lifespan inside the parent's: Starlette does not run a mounted app's own."""
    parent_lifespan = parent.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[Any]:
        async with parent_lifespan(app) as state, child.router.lifespan_context(child):
            yield state

    parent.router.lifespan_context = lifespan
