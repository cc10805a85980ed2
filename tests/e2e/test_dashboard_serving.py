"""How `synapse serve` hands out the dashboard: files, client-route fallback, caching, the API's
own 404s, the page shown when the build is missing, and the wheel check that requires the build."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from chat_helpers import LOCAL_PEER
from synapse_agents.web.errors import install_error_handlers
from synapse_agents.web.spa import IMMUTABLE, mount_spa

pytestmark = pytest.mark.any_database(
    reason="serving the dashboard's files and fallbacks reads nothing stored"
)

ROOT = Path(__file__).resolve().parents[2]


def spa_client(static: Path) -> TestClient:
    app = FastAPI()
    install_error_handlers(app)

    @app.get('/api/ping')
    def ping() -> dict[str, bool]:
        return {'ok': True}

    mount_spa(app, static)
    return TestClient(app, client=LOCAL_PEER)


@pytest.fixture
def built(tmp_path: Path) -> Path:
    static = tmp_path / 'static'
    (static / 'assets').mkdir(parents=True)
    (static / 'index.html').write_text('<!doctype html><div id="root"></div>')
    (static / 'theme.js').write_text('/* theme */')
    (static / 'assets' / 'index-abc123.js').write_text('console.log(1)')
    (static / 'assets' / 'index-abc123.css').write_text('body{}')
    (tmp_path / 'secret.txt').write_text('not for the browser')
    return static


def test_files_and_client_routes(built: Path) -> None:
    client = spa_client(built)
    for path in ('/', '/agents', '/agents/app.agents.support-agent/c/0193', '/history?page=2&agents=a.b'):
        response = client.get(path)
        assert response.status_code == 200, path
        assert response.text.startswith('<!doctype html>'), path
        assert response.headers['content-type'].startswith('text/html')
        assert response.headers['cache-control'] == 'no-cache'
    script = client.get('/assets/index-abc123.js')
    assert script.headers['content-type'].startswith('text/javascript')
    assert script.headers['cache-control'] == IMMUTABLE
    assert client.get('/assets/index-abc123.css').headers['content-type'].startswith('text/css')
    theme = client.get('/theme.js')
    assert theme.text == '/* theme */'
    assert theme.headers['cache-control'] == 'no-cache'
    assert client.head('/').status_code == 200


def test_missing_files_are_404_not_the_app(built: Path) -> None:
    client = spa_client(built)
    assert client.get('/assets/index-gone.js').status_code == 404
    assert client.get('/favicon.ico').status_code == 404
    for path in ('/../secret.txt', '/assets/../../secret.txt', '/%2e%2e/secret.txt'):
        assert 'not for the browser' not in client.get(path).text, path


def test_the_api_keeps_its_json_errors(built: Path) -> None:
    client = spa_client(built)
    assert client.get('/api/ping').json() == {'ok': True}
    missing = client.get('/api/nope')
    assert missing.status_code == 404
    assert missing.json()['error']['code'] == 'not_found'
    assert client.post('/api/ping').status_code == 405
    refused = client.post('/agents')
    assert refused.status_code == 405
    assert refused.json()['error']['code'] == 'method_not_allowed'


def test_a_missing_build_explains_how_to_make_one(tmp_path: Path) -> None:
    client = spa_client(tmp_path / 'nothing-built')
    for path in ('/', '/agents/x'):
        response = client.get(path)
        assert response.status_code == 503
        assert 'make frontend' in response.text
        assert 'pip install synapse-agents' in response.text
        assert '<script' not in response.text
    assert client.get('/api/nope').status_code == 404


def test_the_real_app_serves_the_dashboard_last(client: TestClient) -> None:
    assert client.get('/api/health').status_code == 200
    assert client.get('/api/agents/no.such.agent').json()['error']['code'] == 'not_found'
    assert client.get('/agents/whatever').status_code in (200, 503)


def load_check_wheel() -> ModuleType:
    spec = importlib.util.spec_from_file_location('check_wheel', ROOT / 'scripts' / 'check_wheel.py')
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules['check_wheel'] = module
    spec.loader.exec_module(module)
    return module


def test_the_wheel_check_requires_the_dashboard() -> None:
    check = load_check_wheel()
    complete = {
        *check.REQUIRED,
        'synapse_agents/web/static/assets/index-abc.js',
        'synapse_agents/web/static/assets/index-abc.css',
    }
    assert check.missing_files(complete) == []
    without_build = {name for name in complete if '/web/static/' not in name}
    missing = check.missing_files(without_build)
    assert 'synapse_agents/web/static/index.html' in missing
    assert any('*.js' in item for item in missing)
    assert any('*.css' in item for item in missing)
    no_css = complete - {'synapse_agents/web/static/assets/index-abc.css'}
    assert check.missing_files(no_css) == [
        'synapse_agents/web/static/assets/*.css (the dashboard styles: run `make frontend`)'
    ]


def test_under_a_mount_prefix(built: Path) -> None:
    child = FastAPI()
    install_error_handlers(child)

    @child.get('/api/ping')
    def ping() -> dict[str, bool]:
        return {'ok': True}

    mount_spa(child, built)
    (built / 'index.html').write_text(
        '<!doctype html><html><head><script src="/theme.js"></script>'
        '<script type="module" src="/assets/index-abc123.js"></script>'
        '<link rel="icon" href="/favicon.svg"><a href="//cdn.example/x"></a></head>'
        '<body><div id="root"></div></body></html>'
    )
    parent = FastAPI()
    parent.mount('/synapse', child)
    client = TestClient(parent, client=LOCAL_PEER)
    page = client.get('/synapse/agents/app.support/c/1').text
    assert '<meta name="synapse-base" content="/synapse">' in page
    assert 'src="/synapse/theme.js"' in page
    assert 'src="/synapse/assets/index-abc123.js"' in page
    assert 'href="/synapse/favicon.svg"' in page
    assert 'href="//cdn.example/x"' in page
    assert client.get('/synapse/assets/index-abc123.js').headers['cache-control'] == IMMUTABLE
    assert client.get('/synapse/api/ping').json() == {'ok': True}
    assert client.get('/synapse/api/nope').json()['error']['code'] == 'not_found'
    # At the root, the same page says so with an empty base.
    assert '<meta name="synapse-base" content="">' in spa_client(built).get('/').text
