"""`synapse_agents.mount`: Synapse inside another application, and the production opt-in."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient

import synapse_agents
from synapse_agents.store import head_revision
from synapse_agents.web.access import SynapseDisabled


def host_app() -> tuple[FastAPI, list[str]]:
    events: list[str] = []

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        events.append('host start')
        yield
        events.append('host stop')

    app = FastAPI(lifespan=lifespan)

    @app.get('/hello')
    def hello() -> dict[str, str]:
        return {'from': 'host'}

    return app, events


def admin_only(request: Request) -> bool:
    return request.headers.get('x-role') == 'admin'


def test_mount_with_authorize(isolated_env: Path) -> None:
    app, events = host_app()
    synapse_agents.mount(app, '/synapse', authorize=admin_only, demo=True)
    admin = {'X-Role': 'admin'}
    with TestClient(app, base_url='http://app.example') as client:
        assert events == ['host start']
        assert client.get('/hello').json() == {'from': 'host'}
        assert client.get('/synapse/api/health').status_code == 403
        health = client.get('/synapse/api/health', headers=admin)
        assert health.status_code == 200 and health.json()['revision'] == head_revision()
        agents = client.get('/synapse/api/agents', headers=admin).json()['agents']
        assert any(agent['name'] == 'support_agent' for agent in agents)
        missing = client.get('/synapse/api/nope', headers=admin)
        assert missing.status_code == 404 and missing.json()['error']['code'] == 'not_found'
        page = client.get('/synapse/agents/x', headers=admin)
        assert page.status_code in (200, 503) and page.headers['content-type'].startswith('text/html')
        assert client.post('/synapse/api/conversations/clear', headers=admin).status_code == 200
        assert (
            client.post(
                '/synapse/api/conversations/clear', headers={**admin, 'Origin': 'https://evil.example'}
            ).status_code
            == 403
        )
    assert events == ['host start', 'host stop']


def test_mount_refuses_production_without_opt_in(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('SYNAPSE_ENV', 'production')
    app, _ = host_app()
    with pytest.raises(SynapseDisabled, match='SYNAPSE_ENABLED=true'):
        synapse_agents.mount(app, authorize=admin_only)
    monkeypatch.setenv('SYNAPSE_ENABLED', 'true')
    synapse_agents.mount(app, authorize=admin_only)


def test_mount_outside_local_needs_a_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('SYNAPSE_ENV', 'staging')
    app, _ = host_app()
    with pytest.raises(SynapseDisabled, match=r'authorize=\.\.\. or SYNAPSE_TOKEN'):
        synapse_agents.mount(app)
    monkeypatch.setenv('SYNAPSE_TOKEN', 'staging-token')
    synapse_agents.mount(app, '/tools/synapse')
    with TestClient(app) as client:
        assert client.get('/tools/synapse/api/health').status_code == 401
        ok = client.get('/tools/synapse/api/health', headers={'Authorization': 'Bearer staging-token'})
        assert ok.status_code == 200
