"""Running the app under uvicorn for `synapse serve`."""

from __future__ import annotations

import gc
import threading
import time
import webbrowser
from pathlib import Path

import uvicorn
from rich.console import Console

from .. import __version__
from ..discovery import Catalog
from ..settings import LoadedSettings
from ..store.setup import open_store
from .access import ensure_enabled
from .app import create_app, default_policy
from .context import SynapseContext

DEMO_TARGET = 'synapse_agents.demo'


def build_context(loaded: LoadedSettings, *, demo: bool = False) -> SynapseContext:
    """Open the store (migrating the SQLite default) and collect the discovery targets.

    `--demo` adds the demo agents; with no other target given, only they are served.
    """
    store = open_store(loaded.settings, auto_upgrade=True)
    targets = list(loaded.settings.agents)
    if demo and DEMO_TARGET not in targets:
        targets.append(DEMO_TARGET)
    catalog = Catalog(targets, loaded.project_root, env_files=env_files(loaded))
    return SynapseContext(loaded=loaded, store=store, targets=targets, catalog=catalog)


def env_files(loaded: LoadedSettings) -> list[Path]:
    """The dotenv files discovery re-reads when they change: the project's `.env` and `env_file`."""
    files = [loaded.project_root / '.env']
    if loaded.settings.env_file is not None:
        files.append(loaded.settings.env_file)
    return files


def run_server(loaded: LoadedSettings, *, demo: bool, open_browser: bool, console: Console) -> None:
    """Serve until interrupted."""
    settings = loaded.settings
    ensure_enabled(env=settings.env, enabled=settings.enabled)
    context = build_context(loaded, demo=demo)
    context.maintenance = True
    policy = default_policy(context)
    app = create_app(context, access=policy)
    url = f'http://{_display_host(settings.host)}:{settings.port}/'
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level='warning',
        access_log=False,
        timeout_graceful_shutdown=3,
    )
    server = uvicorn.Server(config)
    database = context.store.engine.url.render_as_string(hide_password=True)
    console.print(f'[bold]Synapse {__version__}[/bold] serving on [link={url}]{url}[/link]')
    console.print(f'  database  {database}')
    assert context.catalog is not None
    snapshot = context.catalog.scan()  # imports the agents now, so the first page load is warm
    problems = f', {len(snapshot.problems)} problems (run `synapse agents`)' if snapshot.problems else ''
    console.print(
        f'  agents    {len(snapshot.agents)} found in {", ".join(snapshot.targets)}{problems}', markup=False
    )
    if policy.mode == 'token':
        console.print(f'  access    token required (env {settings.env!r}, bound to {settings.host})')
        if policy.token_generated:
            # Printed once, here only: the generated token lives in this process's memory.
            login = f'{url}login?token={policy.token}'
            console.print(f'  log in    [link={login}]{login}[/link]', soft_wrap=True)
        else:
            console.print('  log in    with the token from SYNAPSE_TOKEN')
        url = f'{url}login?token={policy.token}' if policy.token_generated else url
    else:
        console.print('  access    local only (loopback, same-origin)')
    # Everything imported so far (the app, pydantic-ai, the agents) lives as long as the server:
    # moved out of the collector's generations, a full collection no longer walks it.
    gc.collect()
    gc.freeze()
    if open_browser:
        threading.Thread(target=_open_when_started, args=(server, url), daemon=True).start()
    try:
        server.run()
    finally:
        context.store.close()


def _display_host(host: str) -> str:
    if host in ('0.0.0.0', '::'):
        return '127.0.0.1'
    return f'[{host}]' if ':' in host else host


def _open_when_started(server: uvicorn.Server, url: str) -> None:
    for _ in range(200):
        if server.started:
            webbrowser.open(url)
            return
        time.sleep(0.05)
