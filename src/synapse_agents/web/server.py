"""Running the app under uvicorn for `synapse serve`."""

from __future__ import annotations

import errno
import gc
import logging
import socket
import threading
import time
import webbrowser

import uvicorn
from rich.console import Console
from rich.markup import escape
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .._version import __version__
from .._words import plural
from ..runtime.root import DEMO_TARGET, SynapseRuntime, env_files
from ..settings import LoadedSettings
from .access import AccessPolicy, ensure_enabled, policy_for
from .app import create_app
from .context import SynapseContext

__all__ = ['DEMO_TARGET', 'PortUnavailable', 'StartupFailed', 'env_files', 'run_server']


GC_YOUNG_THRESHOLD = 10_000
"""Allocations between two collections of the youngest generation while `synapse serve` runs."""


class StartupFailed(RuntimeError):
    """The app's start-up work (the lifespan) raised: the server never answered a request."""


class PortUnavailable(RuntimeError):
    """The address to serve on cannot be bound (most often: another process listens there)."""


def run_server(loaded: LoadedSettings, *, demo: bool, open_browser: bool, console: Console) -> None:
    """Serve until interrupted; raises `StartupFailed` (one line) when start-up work fails."""
    settings = loaded.settings
    ensure_enabled(env=settings.env, enabled=settings.enabled)
    policy = policy_for(
        env=settings.env,
        bind_host=settings.host,
        token=settings.token.get_secret_value() if settings.token else None,
        allowed_hosts=settings.allowed_hosts,
        session_ttl=settings.session_ttl,
    )
    ensure_port_free(settings.host, settings.port)
    # `synapse serve` runs the maintenance jobs (the daily auto-prune when it is on).
    context = SynapseRuntime.open(loaded, demo=demo, maintenance=True)
    try:
        guard = _StartupGuard(create_app(context, access=policy))
        # The client address is the connecting socket's unless a proxy is named: uvicorn's
        # default would believe X-Forwarded-For from 127.0.0.1, letting a local caller pick any
        # address for the login throttle.
        proxies = ','.join(settings.trusted_proxies)
        config = uvicorn.Config(
            guard,
            host=settings.host,
            port=settings.port,
            log_level='warning',
            access_log=False,
            timeout_graceful_shutdown=3,
            proxy_headers=bool(proxies),
            forwarded_allow_ips=proxies or None,
        )
        server = uvicorn.Server(config)
        url = _print_banner(context, policy, console)
        # Everything imported so far (the app, pydantic-ai, the agents) lives as long as the server:
        # moved out of the collector's generations, a full collection no longer walks it.
        gc.collect()
        gc.freeze()
        # At the default threshold (700) a chat turn costs about one young collection, whose
        # survivors are promoted into ever older generations, and a full collection follows every
        # ~140 turns; at 10,000 the collector runs a tenth as often and for half the time per turn
        # (0.74 -> 0.37 ms; docs/benchmarks.md). Garbage in cycles lives a little longer.
        gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])
        if open_browser:
            threading.Thread(target=_open_when_started, args=(server, url), daemon=True).start()
        _serve(server, guard)
    finally:
        context.close()


def ensure_port_free(host: str, port: int) -> None:
    """Bind `host:port` once and let go, so a taken port is one line before any banner is printed.

    `SO_REUSEADDR` as uvicorn sets it: a port left in TIME_WAIT by a stopped server is free, one
    another process listens on is not.
    """
    family = socket.AF_INET6 if ':' in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise PortUnavailable(
                    f'port {port} on {host} is already in use: pass --port, or stop what is using it'
                ) from None
            raise PortUnavailable(f'cannot listen on {host}:{port}: {exc.strerror or exc}') from None


def _print_banner(context: SynapseContext, policy: AccessPolicy, console: Console) -> str:
    """Print where the server is and how to get in; returns the URL to open in a browser."""
    settings = context.settings
    url = f'http://{_display_host(settings.host)}:{settings.port}/'
    database = context.store.engine.url.render_as_string(hide_password=True)
    console.print(f'[bold]Synapse {__version__}[/bold] serving on {_link(url)}')
    console.print(f'  database  {escape(database)}')
    assert context.catalog is not None
    snapshot = context.catalog.scan()  # imports the agents now, so the first page load is warm
    problems = (
        f', {plural(len(snapshot.problems), "problem")} (run `synapse agents`)' if snapshot.problems else ''
    )
    console.print(
        f'  agents    {len(snapshot.agents)} found in {", ".join(snapshot.targets)}{problems}', markup=False
    )
    if policy.mode != 'token':
        console.print('  access    local only (this machine, same-origin)')
        return url
    console.print(
        f'  access    token required (env {settings.env!r}, bound to {settings.host})', markup=False
    )
    if not policy.token_generated:
        console.print(f'  log in    {_link(url + "login")} with the token from SYNAPSE_TOKEN')
        return url
    # Printed once, here only: the generated token lives in this process's memory. It travels in
    # the URL's fragment, which the browser keeps to itself: the login page fills it in.
    login = f'{url}login#token={policy.token}'
    console.print(f'  token     {policy.token}', markup=False, highlight=False)
    console.print(f'  log in    {_link(login)}', soft_wrap=True)
    return login


def _link(url: str) -> str:
    """Rich markup for a clickable URL (`[::1]` and other brackets are escaped, not markup)."""
    target = url.replace(' ', '%20').replace(']', '%5D').replace('[', '%5B')
    return f'[link={target}]{escape(url)}[/link]'


def _serve(server: uvicorn.Server, guard: _StartupGuard) -> None:
    startup_log = logging.getLogger('uvicorn.error')
    quiet = _DropStartupFailure()
    startup_log.addFilter(quiet)
    try:
        server.run()
    except SystemExit:
        if guard.error is not None:
            raise StartupFailed(f'could not start the server: {_first_line(guard.error)}') from guard.error
        raise
    finally:
        startup_log.removeFilter(quiet)
    if guard.error is not None:
        raise StartupFailed(f'could not start the server: {_first_line(guard.error)}') from guard.error


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


class _StartupGuard:
    """Keeps a failing start-up to one line: remembers the exception, hides uvicorn's traceback.

    Starlette reports a lifespan error to the server as a formatted traceback, which uvicorn
    logs whole; `run_server` raises the remembered exception instead, which the CLI prints as
    one line (the traceback with --debug).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.error: BaseException | None = None
        self.started = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope['type'] != 'lifespan':
            await self.app(scope, receive, send)
            return

        async def quiet_send(message: Message) -> None:
            if message['type'] == 'lifespan.startup.complete':
                self.started = True
            elif message['type'] == 'lifespan.startup.failed':
                message = {'type': 'lifespan.startup.failed', 'message': ''}
            await send(message)

        try:
            await self.app(scope, receive, quiet_send)
        except Exception as exc:
            if not self.started and self.error is None:
                self.error = exc
            raise


class _DropStartupFailure(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != 'Application startup failed. Exiting.'


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
