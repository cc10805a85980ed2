"""Access control: loopback-only local mode, token mode, the authorize callable, CSRF, limits."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.requests import Request

from synapse_agents.web import SynapseContext, create_app
from synapse_agents.web.access import (
    SESSION_COOKIE,
    AccessPolicy,
    SynapseDisabled,
    ensure_enabled,
    is_loopback_host,
    policy_for,
    session_value,
)
from synapse_agents.web.hardening import CONTENT_SECURITY_POLICY
from synapse_agents.web.throttle import FailureThrottle

TOKEN = 'test-token-0123456789'


def app_client(context: SynapseContext, policy: AccessPolicy, host: str = 'localhost') -> TestClient:
    return TestClient(create_app(context, access=policy), base_url=f'http://{host}')


@pytest.fixture
def local(context: SynapseContext) -> Iterator[TestClient]:
    with app_client(context, AccessPolicy.local(['dev.example.test'])) as client:
        yield client


@pytest.fixture
def token_client(context: SynapseContext) -> Iterator[TestClient]:
    policy = AccessPolicy.with_token(TOKEN)
    policy.throttle = FailureThrottle(base_delay=0, limit=5)
    with app_client(context, policy, host='synapse.internal') as client:
        yield client


# -- mode selection -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ('host', 'expected'),
    [
        ('localhost', True),
        ('127.0.0.1', True),
        ('127.0.0.2', True),
        ('::1', True),
        ('[::1]', True),
        ('app.localhost', True),
        ('0.0.0.0', False),
        ('192.168.1.10', False),
        ('evil.com', False),
        ('localhost.evil.com', False),
    ],
)
def test_loopback_names(host: str, expected: bool) -> None:
    assert is_loopback_host(host) is expected


def test_policy_follows_bind_and_env() -> None:
    assert policy_for(env='local', bind_host='127.0.0.1', token=None).mode == 'local'
    remote = policy_for(env='local', bind_host='0.0.0.0', token=None)
    assert remote.mode == 'token' and remote.token_generated and len(remote.token or '') >= 32
    staging = policy_for(env='staging', bind_host='127.0.0.1', token='abc')
    assert staging.mode == 'token' and staging.token == 'abc' and not staging.token_generated


def test_production_needs_explicit_opt_in() -> None:
    with pytest.raises(SynapseDisabled, match='SYNAPSE_ENABLED=true'):
        ensure_enabled(env='production', enabled=None)
    with pytest.raises(SynapseDisabled):
        ensure_enabled(env='Production', enabled=False)
    with pytest.raises(SynapseDisabled, match='disabled'):
        ensure_enabled(env='local', enabled=False)
    ensure_enabled(env='production', enabled=True)
    ensure_enabled(env='local', enabled=None)


# -- local mode ---------------------------------------------------------------------------


def test_local_mode_is_open_on_loopback(local: TestClient) -> None:
    assert local.get('/api/health').status_code == 200


@pytest.mark.parametrize('host', ['evil.com', 'evil.com:8765', '192.168.0.5', 'localhost.evil.com'])
def test_local_mode_refuses_other_hosts(local: TestClient, host: str) -> None:
    response = local.get('/api/health', headers={'Host': host})
    assert response.status_code == 403
    assert 'allowed_hosts' in response.json()['error']['message']


def test_allowlisted_host_is_accepted(local: TestClient) -> None:
    assert local.get('/api/health', headers={'Host': 'dev.example.test:8765'}).status_code == 200


@pytest.mark.parametrize(
    'headers',
    [
        {'Origin': 'https://evil.example'},
        {'Origin': 'null'},
        {'Sec-Fetch-Site': 'cross-site', 'Origin': 'https://evil.example'},
        {'Sec-Fetch-Site': 'same-site'},
        {'Origin': 'http://localhost:9999'},
    ],
)
def test_cross_site_writes_are_refused(local: TestClient, headers: dict[str, str]) -> None:
    response = local.post('/api/conversations/clear', headers=headers)
    assert response.status_code == 403
    assert 'Cross-site request refused' in response.json()['error']['message']


def test_same_origin_and_non_browser_writes_pass_the_origin_check(local: TestClient) -> None:
    # 404/405/200 all mean the request got past the access middleware.
    for headers in ({'Origin': 'http://localhost'}, {'Sec-Fetch-Site': 'same-origin'}, {}):
        assert local.post('/api/conversations/clear', headers=headers).status_code != 403


def test_cross_site_reads_are_allowed(local: TestClient) -> None:
    assert local.get('/api/health', headers={'Origin': 'https://evil.example'}).status_code == 200


# -- token mode ---------------------------------------------------------------------------


def test_token_mode_requires_authorisation_everywhere(token_client: TestClient) -> None:
    response = token_client.get('/api/health')
    assert response.status_code == 401
    assert response.headers['www-authenticate'] == 'Bearer'
    assert response.json()['error']['code'] == 'unauthorized'
    page = token_client.get('/agents/x', headers={'Accept': 'text/html'}, follow_redirects=False)
    assert page.status_code == 303
    assert page.headers['location'] == '/login?next=%2Fagents%2Fx'


def test_bearer_token(token_client: TestClient) -> None:
    ok = token_client.get('/api/health', headers={'Authorization': f'Bearer {TOKEN}'})
    assert ok.status_code == 200
    bad = token_client.get('/api/health', headers={'Authorization': 'Bearer wrong'})
    assert bad.status_code == 401


def test_login_form_sets_a_strict_httponly_cookie(token_client: TestClient) -> None:
    page = token_client.get('/login')
    assert page.status_code == 200 and '<form' in page.text and '<script' not in page.text
    wrong = token_client.post('/login', data={'token': 'nope', 'next': '/'}, follow_redirects=False)
    assert wrong.status_code == 401 and SESSION_COOKIE not in wrong.cookies
    response = token_client.post('/login', data={'token': TOKEN, 'next': '/history'}, follow_redirects=False)
    assert response.status_code == 303 and response.headers['location'] == '/history'
    cookie = response.headers['set-cookie']
    assert 'HttpOnly' in cookie and 'SameSite=strict' in cookie
    assert token_client.cookies[SESSION_COOKIE] == session_value(TOKEN)
    assert TOKEN not in cookie
    assert token_client.get('/api/health').status_code == 200


def test_login_url_with_token(token_client: TestClient) -> None:
    response = token_client.get(f'/login?token={TOKEN}', follow_redirects=False)
    assert response.status_code == 303 and response.headers['location'] == '/'
    assert token_client.get('/api/health').status_code == 200


@pytest.mark.parametrize('target', ['https://evil.example/', '//evil.example', '/\\evil.example'])
def test_login_never_redirects_off_site(token_client: TestClient, target: str) -> None:
    response = token_client.post('/login', data={'token': TOKEN, 'next': target}, follow_redirects=False)
    assert response.headers['location'] == '/'


def test_the_cookie_is_not_the_token(token_client: TestClient) -> None:
    token_client.cookies.set(SESSION_COOKIE, TOKEN)
    assert token_client.get('/api/health').status_code == 401


def test_cookie_sessions_still_need_same_origin_writes(token_client: TestClient) -> None:
    token_client.cookies.set(SESSION_COOKIE, session_value(TOKEN))
    response = token_client.post('/api/conversations/clear', headers={'Origin': 'https://evil.example'})
    assert response.status_code == 403


def test_repeated_failures_lock_out(token_client: TestClient) -> None:
    for _ in range(5):
        assert token_client.get('/api/health', headers={'Authorization': 'Bearer bad'}).status_code == 401
    locked = token_client.get('/api/health', headers={'Authorization': f'Bearer {TOKEN}'})
    assert locked.status_code == 429
    assert int(locked.headers['retry-after']) > 0
    assert token_client.post('/login', data={'token': TOKEN}).status_code == 429


@pytest.mark.anyio
async def test_failure_delay_grows() -> None:
    now = [0.0]
    throttle = FailureThrottle(base_delay=0, limit=3, window=10, clock=lambda: now[0])
    for _ in range(3):
        await throttle.fail('a')
    assert await throttle.blocked('a')
    assert not await throttle.blocked('b')
    now[0] = 11
    assert not await throttle.blocked('a')


# -- authorize callable -------------------------------------------------------------------


def test_authorize_callable_decides(context: SynapseContext) -> None:
    seen: list[str] = []

    async def authorize(request: Request) -> bool:
        seen.append(request.url.path)
        return request.headers.get('x-user') == 'admin'

    with app_client(context, AccessPolicy.with_authorize(authorize), host='app.example') as client:
        assert client.get('/api/health').status_code == 403
        assert client.get('/api/health', headers={'X-User': 'admin'}).status_code == 200
    assert seen == ['/api/health', '/api/health']


# -- headers and limits -------------------------------------------------------------------


def test_security_headers_on_every_response(local: TestClient) -> None:
    responses = (local.get('/api/health'), local.get('/api/nope'), local.get('/', headers={'Host': 'x.y'}))
    for response in responses:
        assert response.headers['x-content-type-options'] == 'nosniff'
        assert response.headers['content-security-policy'] == CONTENT_SECURITY_POLICY
        assert "script-src 'self';" in response.headers['content-security-policy']
        assert response.headers['x-frame-options'] == 'DENY'


def test_request_body_cap(context: SynapseContext, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(type(context.settings), 'request_limit', property(lambda self: 1000))
    with app_client(context, AccessPolicy.local()) as client:
        chat = '/api/agents/synapse_agents.demo.agents.support-agent/chat'
        response = client.post(chat, files={'attachments': ('big.bin', b'x' * 5000)}, data={'message': 'hi'})
        assert response.status_code == 413
        assert response.json()['error']['code'] == 'too_large'

        boundary = 'synapse-test-boundary'

        def chunks() -> Any:
            yield f'--{boundary}\r\nContent-Disposition: form-data; name="message"\r\n\r\nhi\r\n'.encode()
            yield (
                f'--{boundary}\r\nContent-Disposition: form-data; name="attachments"; filename="a.bin"\r\n'
                'Content-Type: application/octet-stream\r\n\r\n'
            ).encode()
            for _ in range(10):
                yield b'y' * 500
            yield f'\r\n--{boundary}--\r\n'.encode()

        streamed = client.post(
            chat, content=chunks(), headers={'Content-Type': f'multipart/form-data; boundary={boundary}'}
        )
        assert streamed.status_code == 413
        assert streamed.json()['error']['code'] == 'too_large'
    assert context.store.counts()['messages'] == 0
