"""`synapse_agents.mount`: Synapse inside another application, and the production opt-in."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient
from starlette.types import ASGIApp, Receive, Scope, Send

import synapse_agents
from chat_helpers import LOCAL_PEER
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
    with TestClient(app, base_url='http://app.example', client=LOCAL_PEER) as client:
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
    monkeypatch.setenv('SYNAPSE_TOKEN', 'short-token')
    with pytest.raises(SynapseDisabled, match='at least 16'):
        synapse_agents.mount(app)
    monkeypatch.setenv('SYNAPSE_TOKEN', 'staging-token-0123456789')
    synapse_agents.mount(app, '/tools/synapse')
    with TestClient(app, client=LOCAL_PEER) as client:
        assert client.get('/tools/synapse/api/health').status_code == 401
        bearer = {'Authorization': 'Bearer staging-token-0123456789'}
        assert client.get('/tools/synapse/api/health', headers=bearer).status_code == 200


def test_mount_without_authorize_answers_only_this_machine(isolated_env: Path) -> None:
    app, _ = host_app()
    synapse_agents.mount(app, '/synapse', demo=True)
    with TestClient(app, base_url='http://localhost', client=('192.0.2.7', 4000)) as remote:
        assert remote.get('/hello').json() == {'from': 'host'}
        for path in ('/synapse/api/agents', '/synapse/api/health', '/synapse/'):
            refused = remote.get(path, headers={'Host': 'localhost', 'X-Forwarded-For': '127.0.0.1'})
            assert refused.status_code == 403
            assert refused.headers['x-frame-options'] == 'DENY'
            message = refused.json()['error']['message']
            assert 'authorize=' in message and 'mount()' in message and '192.0.2.7' in message
        chat = remote.post(
            '/synapse/api/agents/synapse_agents.demo.agents.support-agent/chat', data={'message': 'hi'}
        )
        assert chat.status_code == 403
    with TestClient(app, base_url='http://localhost', client=('127.0.0.1', 4000)) as local:
        assert local.get('/synapse/api/agents').status_code == 200
        relayed = local.get('/synapse/api/agents', headers={'X-Forwarded-For': '203.0.113.9'})
        assert relayed.status_code == 403


class HostSession:
    """The host application's own session middleware: the role comes from a header here."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope['type'] == 'http':
            role = dict(scope['headers']).get(b'x-role', b'').decode()
            scope['session'] = {'role': role}
        await self.app(scope, receive, send)


def test_authorize_sees_the_host_apps_session_and_only_true_admits(
    isolated_env: Path, caplog: pytest.LogCaptureFixture
) -> None:
    answers: dict[str, Any] = {'admin': True, 'text': 'false', 'one': 1}

    def check(request: Request) -> Any:
        role = request.session['role']
        if role == 'boom':
            raise RuntimeError('role lookup failed')
        return answers.get(role, False)

    app, _ = host_app()
    app.add_middleware(HostSession)
    synapse_agents.mount(app, '/synapse', authorize=check, demo=True)
    with TestClient(app, base_url='http://app.example', client=('192.0.2.7', 4000)) as client:
        assert client.get('/synapse/api/health', headers={'X-Role': 'admin'}).status_code == 200
        for role in ('text', 'one', 'nobody'):
            assert client.get('/synapse/api/health', headers={'X-Role': role}).status_code == 403
        with caplog.at_level(logging.ERROR, logger='synapse.web'):
            refused = client.get('/synapse/api/health', headers={'X-Role': 'boom'})
        assert refused.status_code == 403 and refused.json()['error']['code'] == 'forbidden'
    assert 'role lookup failed' in caplog.text
