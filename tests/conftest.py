"""Shared fixtures: an isolated home per test, the store on SQLite and/or PostgreSQL, apps.

`--db sqlite` (default), `--db postgresql` or `--db all` choose the databases the
`store`-based tests run on. PostgreSQL comes from SYNAPSE_TEST_POSTGRES_URL
(default postgresql://postgres@127.0.0.1:5432/test); each test run (each xdist worker) gets its
own database. The database fixtures live in `fixtures/databases.py`.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pydantic_ai.models
import pytest
from fastapi.testclient import TestClient

from chat_helpers import LOCAL_PEER, LOCAL_URL
from fixtures.projects import isolated_imports
from fuzz_helpers import OpenApiOnce
from synapse_agents.discovery import Catalog
from synapse_agents.redaction import forget_all
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.settings import LoadedSettings, load_settings
from synapse_agents.store import Store
from synapse_agents.web.app import create_app
from synapse_agents.web.server import DEMO_TARGET

pytest_plugins = ['fixtures.databases', 'fixtures.synapses']

# No test may reach a real provider; FunctionModel, TestModel and the demo model still work.
pydantic_ai.models.ALLOW_MODEL_REQUESTS = False

PROVIDER_KEYS = (
    'OPENAI_API_KEY',
    'ANTHROPIC_API_KEY',
    'GEMINI_API_KEY',
    'GOOGLE_API_KEY',
    'GROQ_API_KEY',
    'MISTRAL_API_KEY',
    'CO_API_KEY',
    'DEEPSEEK_API_KEY',
    'OPENROUTER_API_KEY',
    'XAI_API_KEY',
    'AWS_ACCESS_KEY_ID',
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        '--db',
        choices=('sqlite', 'postgresql', 'all'),
        default='sqlite',
        help='Databases to run store tests on (PostgreSQL from SYNAPSE_TEST_POSTGRES_URL).',
    )


def selected_dialects(config: pytest.Config) -> list[str]:
    choice = config.getoption('--db')
    return ['sqlite', 'postgresql'] if choice == 'all' else [choice]


def dialects_for(metafunc: pytest.Metafunc) -> list[str]:
    """The databases one test runs on: every selected one, or the first for `any_database` tests.

    `@pytest.mark.any_database(reason=...)` (on a test or a module) says the test proves nothing
    about SQL (what it checks is decided before any query, or by code no database changes), so a
    second database would run the same code again: it runs once, on SQLite under `--db all`. The
    reason is required: it is the module's claim that no dialect changes its outcome.
    """
    dialects = selected_dialects(metafunc.config)
    marker = metafunc.definition.get_closest_marker('any_database')
    if marker is None:
        if 'postgresql' in dialects and metafunc.definition.get_closest_marker('vectors') is not None:
            return [*dialects, 'pgvector']  # the vector index: pgvector as well as exact search
        return dialects
    if not marker.kwargs.get('reason'):
        raise pytest.UsageError(f'{metafunc.definition.nodeid}: any_database needs reason=...')
    return dialects[:1]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if 'dialect' in metafunc.fixturenames:
        dialects = dialects_for(metafunc)
        marks = {'postgresql': [pytest.mark.postgresql], 'pgvector': [pytest.mark.postgresql], 'sqlite': []}
        metafunc.parametrize(
            'dialect', [pytest.param(d, id=d, marks=marks[d]) for d in dialects], scope='session'
        )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked `postgresql` run only when PostgreSQL is selected (deselected, not skipped);
    the modules holding a `slow` test run first."""
    if 'postgresql' not in selected_dialects(config):
        keep = [item for item in items if item.get_closest_marker('postgresql') is None]
        if len(keep) != len(items):
            config.hook.pytest_deselected(items=[item for item in items if item not in keep])
            items[:] = keep
    items[:] = slow_modules_first(items)


def slow_modules_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """The modules holding a `slow` test (browsers, real servers), then the others, each in its order.

    xdist's `loadscope` hands whole modules to the workers in this order. Longest first: the long
    browser and server modules start early and the many short ones fill the gaps around them, instead
    of one long module running alone at the end while the other worker idles.
    """
    slow = {item.path for item in items if item.get_closest_marker('slow') is not None}
    return sorted(items, key=lambda item: item.path not in slow)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return int(sock.getsockname()[1])


# -- isolation ----------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test runs in its own empty project folder with its own SYNAPSE_HOME and no keys."""
    for name in list(os.environ):
        if name.startswith('SYNAPSE_') and name != 'SYNAPSE_TEST_POSTGRES_URL':
            monkeypatch.delenv(name)
    for name in PROVIDER_KEYS:
        monkeypatch.delenv(name, raising=False)
    project = tmp_path / 'project'
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv('SYNAPSE_HOME', str(tmp_path / 'home'))
    forget_all()  # secrets an earlier test's settings or keys taught this process
    return project


# -- apps ---------------------------------------------------------------------------------


@pytest.fixture
def settings(store: Store, monkeypatch: pytest.MonkeyPatch) -> LoadedSettings:
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
    return load_settings()


@pytest.fixture
def context(settings: LoadedSettings, store: Store) -> SynapseContext:
    """The app's shared state; its catalog serves the demo agents (a test may replace `catalog`)."""
    catalog = Catalog([DEMO_TARGET], settings.project_root)
    return SynapseContext(loaded=settings, store=store, targets=[DEMO_TARGET], catalog=catalog)


@pytest.fixture
def client(context: SynapseContext) -> Iterator[TestClient]:
    """An in-process client for the app (lifespan included)."""
    with TestClient(create_app(context), base_url=LOCAL_URL, client=LOCAL_PEER) as client:
        yield client


@pytest.fixture
def client_for(context: SynapseContext, tmp_path: Path) -> Iterator[Callable[..., TestClient]]:
    """A factory: `client_for(['agents'], root=project)` serves a `Catalog` of those targets.

    Modules imported from the test's folder are forgotten (and sys.path restored) afterwards.
    """
    with ExitStack() as stack:
        stack.enter_context(isolated_imports(tmp_path))

        def make(targets: list[str], root: Path | None = None) -> TestClient:
            context.catalog = Catalog(targets, root or context.loaded.project_root)
            context.targets = list(targets)
            return stack.enter_context(TestClient(create_app(context), base_url=LOCAL_URL, client=LOCAL_PEER))

        yield make


# -- real servers -------------------------------------------------------------------------


class LiveServer:
    """A `synapse serve` subprocess on a free port."""

    def __init__(self, process: subprocess.Popen[str], url: str, log: Path) -> None:
        self.process = process
        self.url = url
        self.log = log

    def output(self) -> str:
        return self.log.read_text(errors='replace') if self.log.exists() else ''

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


def start_server(
    args: list[str],
    *,
    cwd: Path,
    env: dict[str, str] | None = None,
    timeout: float = 30,
    ready_status: int = 200,
) -> LiveServer:
    """Start `synapse serve ARGS` and wait until /api/health answers (with `ready_status`)."""
    port = free_port()
    log = cwd / f'serve-{port}.log'
    full_env = {**os.environ, **(env or {}), 'PYTHONUNBUFFERED': '1'}
    with log.open('w') as handle:
        process = subprocess.Popen(
            [sys.executable, '-m', 'synapse_agents', 'serve', '--port', str(port), *args],
            cwd=cwd,
            env=full_env,
            stdout=handle,
            stderr=subprocess.STDOUT,
            text=True,
        )
    server = LiveServer(process, f'http://127.0.0.1:{port}', log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f'synapse serve exited with {process.returncode}:\n{server.output()}')
        try:
            if httpx.get(server.url + '/api/health', timeout=1).status_code == ready_status:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    server.stop()
    raise RuntimeError(f'synapse serve did not answer within {timeout}s:\n{server.output()}')


@pytest.fixture
def live_server(isolated_env: Path) -> Iterator[Any]:
    """A factory: `live_server(['--demo'])` starts a real server; all are stopped after the test."""
    servers: list[LiveServer] = []

    def start(args: list[str] | None = None, **kwargs: Any) -> LiveServer:
        kwargs.setdefault('cwd', isolated_env)
        server = start_server(args or [], **kwargs)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def anyio_backend() -> str:
    return 'asyncio'


@pytest.fixture(scope='module')
def openapi_once() -> OpenApiOnce:
    """The schemathesis tests' app document, generated by a module's first app (tests/fuzz_helpers.py)."""
    return OpenApiOnce()


# -- browser ------------------------------------------------------------------------------

CHROMIUM = '/usr/bin/chromium'
CHROMIUM_ARGS = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
]


@pytest.fixture(scope='module')
def chromium() -> Iterator[Any]:
    """Debian's Chromium through Playwright (never a downloaded browser), once per test module.

    Module scope, not session: Playwright's sync API keeps an event loop running while it lives,
    which would break every asyncio test collected after the browser tests.

    Fails (never skips: a skipped browser test hides a failure) without Chromium or a built
    dashboard; `make browser` and `make frontend` provide them.
    """
    from synapse_agents.web.spa import dashboard_built

    missing = [
        reason
        for ok, reason in (
            (os.access(CHROMIUM, os.X_OK), f'{CHROMIUM} is missing (make browser)'),
            (dashboard_built(), 'the dashboard is not built (make frontend)'),
        )
        if not ok
    ]
    if missing:
        pytest.fail('browser tests need: ' + '; '.join(missing))
    from playwright.sync_api import expect, sync_playwright

    # Assertions wait as long as actions (the page's default below): two test workers share two
    # cores, and a turn with a megabyte of output can take longer than Playwright's 5 s default to
    # settle. Bounds a test measures are asserted on their own numbers, never through this wait.
    expect.set_options(timeout=15_000)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def browser_page(chromium: Any) -> Iterator[Any]:
    """A fresh page (own storage) that records console errors and CSP violations in `.problems`."""
    context = chromium.new_context(viewport={'width': 1440, 'height': 900}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    problems: list[str] = []

    def failed(response: Any) -> None:
        if response.status >= 400:
            problems.append(f'{response.status} {response.url}')

    def said(message: Any) -> None:
        # A failed request is recorded with its URL by `failed`; the console's copy of it has none.
        if message.type == 'error' and not message.text.startswith('Failed to load resource'):
            problems.append(message.text)

    page.on('pageerror', lambda error: problems.append(f'page error: {error}'))
    page.on('response', failed)
    page.on('console', said)
    page.problems = problems
    yield page
    context.close()
