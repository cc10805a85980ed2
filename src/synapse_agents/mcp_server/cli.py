"""`synapse mcp [TARGETS]`: Synapse as an MCP server for a coding assistant, on standard input and
output (the default) or as streamable HTTP (`--http`, at `/mcp`, with the dashboard's access rules).

A client configuration, for a project whose agents are in `agents/`:

    {"mcpServers": {"synapse": {"command": "synapse", "args": ["mcp", "agents"]}}}
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..cli_common import fail
from ..cli_db import plugins_of
from ..settings import SettingsError, load_settings


def mcp_command(
    ctx: typer.Context,
    targets: Annotated[
        list[str] | None,
        typer.Argument(help='Where to find agents: modules, module:attr, .py files, folders, spec files.'),
    ] = None,
    demo: Annotated[bool, typer.Option('--demo', help='Serve the offline demo agents too.')] = False,
    http: Annotated[
        bool,
        typer.Option('--http', help='Serve streamable HTTP at /mcp instead of standard input and output.'),
    ] = False,
    host: Annotated[
        str | None, typer.Option(help='With --http: the interface to bind (setting: host).')
    ] = None,
    port: Annotated[int | None, typer.Option(help='With --http: the port (setting: port).')] = None,
    env_file: Annotated[Path | None, typer.Option(help='Extra dotenv file to load before agents.')] = None,
) -> None:
    """Serve Synapse's sandbox tools to an MCP client (a coding assistant): list agents, build sandbox
    agents and presets, run them, inspect what they did, clean up."""
    # The server's machinery is imported when it runs, so that `synapse --help` stays fast.
    import anyio
    import uvicorn

    from ..runtime.assembled import SynapseRuntime
    from ..web.access import ensure_enabled, policy_for
    from ..web.server import PortUnavailable, ensure_port_free
    from .server import http_app, run_stdio

    options: dict[str, Any] = {'host': host, 'port': port, 'env_file': env_file}
    options['agents'] = list(targets) if targets else None
    try:
        loaded = load_settings(options)
    except SettingsError as exc:
        fail(str(exc))
    settings = loaded.settings
    if http:
        ensure_enabled(env=settings.env, enabled=settings.enabled)
        try:
            ensure_port_free(settings.host, settings.port)
        except PortUnavailable as exc:
            fail(str(exc))
    runtime = SynapseRuntime.open(loaded, demo=demo, plugins=plugins_of(ctx))
    try:
        if not http:
            anyio.run(run_stdio, runtime)
            return
        policy = policy_for(
            env=settings.env,
            bind_host=settings.host,
            token=settings.token.get_secret_value() if settings.token else None,
            allowed_hosts=settings.allowed_hosts,
            session_ttl=settings.session_ttl,
        )
        typer.echo(f'Synapse MCP server on http://{settings.host}:{settings.port}/mcp', err=True)
        uvicorn.run(
            http_app(runtime, policy),
            host=settings.host,
            port=settings.port,
            log_level='warning',
            access_log=False,
        )
    finally:
        runtime.close()
