"""Access control: local mode for this machine only, token mode, the authorize callable, CSRF,
malformed headers, limits."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.requests import Request

from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.web.access import (
    AccessPolicy,
    SynapseDisabled,
    ensure_enabled,
    is_loopback_host,
    policy_for,
)
from synapse_agents.web.app import create_app
from synapse_agents.web.hardening import CONTENT_SECURITY_POLICY, SECURITY_HEADERS
from synapse_agents.web.origin import parse_host
from synapse_agents.web.throttle import FailureThrottle, throttle_key

pytestmark = pytest.mark.any_database(
    reason='access control decides on the request (host, peer, origin, token) before any query'
)

TOKEN = 'test-token-0123456789'


def app_client(
    context: SynapseContext,
    policy: AccessPolicy,
    host: str = 'localhost',
    peer: tuple[str, int] = ('127.0.0.1', 50000),
) -> TestClient:
    return TestClient(create_app(context, access=policy), base_url=f'http://{host}', client=peer)


def assert_json_refusal(response: Any, status: int) -> dict[str, Any]:
    """A refusal: the status, a JSON error body and every security header."""
    assert response.status_code == status, response.text
    assert response.headers['content-type'] == 'application/json'
    for name, value in SECURITY_HEADERS.items():
        assert response.headers[name] == value
    error: dict[str, Any] = response.json()['error']
    assert error['code'] and error['message']
    return error


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
    staging = policy_for(env='staging', bind_host='127.0.0.1', token=TOKEN)
    assert staging.mode == 'token' and staging.token == TOKEN and not staging.token_generated
    assert policy_for(env=' Local ', bind_host='::1', token=None).mode == 'local'


def test_a_short_token_is_refused() -> None:
    with pytest.raises(SynapseDisabled, match='at least 16'):
        policy_for(env='staging', bind_host='127.0.0.1', token='a')
    assert policy_for(env='staging', bind_host='127.0.0.1', token='x' * 16).token == 'x' * 16


def test_production_needs_explicit_opt_in() -> None:
    with pytest.raises(SynapseDisabled, match='SYNAPSE_ENABLED=true'):
        ensure_enabled(env='production', enabled=None)
    with pytest.raises(SynapseDisabled):
        ensure_enabled(env='Production', enabled=False)
    with pytest.raises(SynapseDisabled, match='disabled'):
        ensure_enabled(env='local', enabled=False)
    with pytest.raises(SynapseDisabled, match='SYNAPSE_ENABLED=true'):
        ensure_enabled(env=' production', enabled=None)
    ensure_enabled(env='production', enabled=True)
    ensure_enabled(env='local', enabled=None)


# -- local mode ---------------------------------------------------------------------------


def test_local_mode_is_open_on_loopback(local: TestClient) -> None:
    assert local.get('/api/health').status_code == 200


@pytest.mark.parametrize('peer', ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1'])
def test_local_mode_admits_loopback_peers(context: SynapseContext, peer: str) -> None:
    with app_client(context, AccessPolicy.local(), peer=(peer, 4000)) as client:
        assert client.get('/api/agents').status_code == 200


@pytest.mark.parametrize('peer', ['192.0.2.7', '10.0.0.1', '2001:db8::1', '::ffff:192.0.2.7', 'example.net'])
def test_local_mode_refuses_other_machines_whatever_the_host_header(
    context: SynapseContext, peer: str
) -> None:
    with app_client(context, AccessPolicy.local(), peer=(peer, 4000)) as client:
        for path in ('/api/agents', '/api/health', '/'):
            error = assert_json_refusal(client.get(path, headers={'Host': 'localhost'}), 403)
            assert peer in error['message'] and 'only to this machine' in error['message']
        chat = client.post(
            '/api/agents/synapse_agents.demo.agents.support-agent/chat', data={'message': 'hi'}
        )
        assert_json_refusal(chat, 403)
    assert context.store.counts()['messages'] == 0


@pytest.mark.parametrize(
    'headers',
    [
        {'X-Forwarded-For': '203.0.113.9'},
        {'X-Forwarded-For': '127.0.0.1, 203.0.113.9'},
        {'Forwarded': 'for=203.0.113.9;proto=https'},
        {'Forwarded': 'for="[2001:db8::1]:4711"'},
        {'X-Real-IP': '203.0.113.9'},
        {'X-Forwarded-For': 'unknown'},
    ],
)
def test_a_proxy_relaying_another_machine_is_not_local(local: TestClient, headers: dict[str, str]) -> None:
    assert_json_refusal(local.get('/api/agents', headers=headers), 403)


def test_forwarded_headers_never_make_a_request_local(context: SynapseContext) -> None:
    with app_client(context, AccessPolicy.local(), peer=('192.0.2.7', 4000)) as client:
        for headers in ({'X-Forwarded-For': '127.0.0.1'}, {'Forwarded': 'for=127.0.0.1'}):
            assert_json_refusal(client.get('/api/agents', headers=headers), 403)
    with app_client(context, AccessPolicy.local()) as client:
        # A dev proxy on this machine relaying this machine's browser is still local.
        assert client.get('/api/agents', headers={'X-Forwarded-For': '127.0.0.1'}).status_code == 200


@pytest.mark.parametrize('host', ['evil.com', 'evil.com:8765', '192.168.0.5', 'localhost.evil.com'])
def test_local_mode_refuses_other_hosts(local: TestClient, host: str) -> None:
    response = local.get('/api/health', headers={'Host': host})
    assert response.status_code == 403
    assert 'allowed_hosts' in response.json()['error']['message']


def test_allowlisted_host_is_accepted(local: TestClient) -> None:
    assert local.get('/api/health', headers={'Host': 'dev.example.test:8765'}).status_code == 200


@pytest.mark.parametrize(
    'host',
    ['[::1', '[::1]x', '[zz]:80', 'a:b:c', '', 'localhost:abc', 'localhost:0', 'localhost:99999', 'a b'],
)
def test_malformed_host_is_a_400(local: TestClient, host: str) -> None:
    error = assert_json_refusal(local.get('/api/health', headers={'Host': host}), 400)
    assert 'Malformed Host' in error['message']


@pytest.mark.parametrize(
    ('value', 'expected'),
    [
        ('localhost', ('localhost', None)),
        ('LocalHost.:8765', ('localhost', 8765)),
        ('[::1]:8765', ('::1', 8765)),
        ('[::1]', ('::1', None)),
        ('127.0.0.1:80', ('127.0.0.1', 80)),
        ('::1', None),
        ('[::1', None),
        ('host:', None),
        ('user@host', None),
    ],
)
def test_host_header_parsing(value: str, expected: tuple[str, int | None] | None) -> None:
    assert parse_host(value) == expected


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


@pytest.mark.parametrize(
    'origin',
    [
        'http://127.0.0.1:abc',
        'http://localhost:99999',
        'http://[::1',
        'http://[::1]:x',
        'http://',
        'file://',
        'javascript:alert(1)',
        'http://localhost/path',
        'http://user@localhost',
    ],
)
def test_malformed_origin_is_a_cross_site_refusal(context: SynapseContext, origin: str) -> None:
    for policy, host in ((AccessPolicy.local(), 'localhost'), (AccessPolicy.with_token(TOKEN), 'localhost')):
        with app_client(context, policy, host=host) as client:
            headers = {'Origin': origin, 'Authorization': f'Bearer {TOKEN}'}
            error = assert_json_refusal(client.post('/api/conversations/clear', headers=headers), 403)
            assert 'Cross-site request refused' in error['message']


def test_malformed_host_with_an_origin_in_token_mode_is_no_500(context: SynapseContext) -> None:
    with app_client(context, AccessPolicy.with_token(TOKEN)) as client:
        for host in ('[::1', 'a:b:c', ''):
            headers = {'Host': host, 'Origin': 'http://localhost', 'Authorization': f'Bearer {TOKEN}'}
            assert_json_refusal(client.post('/api/conversations/clear', headers=headers), 403)


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


def test_a_token_in_a_page_url_is_no_login(token_client: TestClient) -> None:
    response = token_client.get(f'/login?token={TOKEN}', follow_redirects=False)
    assert response.status_code == 200 and '<form' in response.text
    assert 'set-cookie' not in response.headers
    assert token_client.get('/api/health').status_code == 401


def test_cross_site_bearer_attempts_are_refused_uncounted(token_client: TestClient) -> None:
    for headers in ({'Sec-Fetch-Site': 'cross-site'}, {'Origin': 'https://evil.example'}):
        for _ in range(10):
            refused = token_client.get('/api/health', headers={**headers, 'Authorization': 'Bearer bad'})
            assert 'Cross-site' in assert_json_refusal(refused, 403)['message']
    ok = token_client.get('/api/health', headers={'Authorization': f'Bearer {TOKEN}'})
    assert ok.status_code == 200


def test_repeated_failures_lock_out(token_client: TestClient) -> None:
    for _ in range(5):
        assert token_client.get('/api/health', headers={'Authorization': 'Bearer bad'}).status_code == 401
    locked = token_client.get('/api/health', headers={'Authorization': f'Bearer {TOKEN}'})
    assert locked.status_code == 429
    assert int(locked.headers['retry-after']) > 0
    assert token_client.post('/login', data={'token': TOKEN}).status_code == 429
    assert_json_refusal(locked, 429)


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


def test_ipv6_clients_are_throttled_per_64() -> None:
    assert throttle_key('2001:db8:1:2::5') == throttle_key('2001:db8:1:2:ffff::9') == '2001:db8:1:2::/64'
    assert throttle_key('2001:db8:1:3::5') != throttle_key('2001:db8:1:2::5')
    assert throttle_key('::ffff:192.0.2.7') == '192.0.2.7' == throttle_key('192.0.2.7')


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


@pytest.mark.parametrize('answer', ['false', 'yes', 1, [True], object()])
def test_authorize_admits_only_true(context: SynapseContext, answer: Any) -> None:
    policy = AccessPolicy.with_authorize(lambda request: answer)
    with app_client(context, policy, host='app.example') as client:
        error = assert_json_refusal(client.get('/api/health'), 403)
        assert error['message'] == 'Not authorised to use Synapse.'


def test_an_authorize_that_raises_is_a_logged_403(
    context: SynapseContext, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(request: Request) -> bool:
        raise LookupError('session store is down')

    async def reads_the_body(request: Request) -> bool:
        return bool(await request.body())

    for check in (broken, reads_the_body):
        policy = AccessPolicy.with_authorize(check)
        with app_client(context, policy, host='app.example') as client, caplog.at_level(logging.ERROR):
            assert_json_refusal(client.post('/api/conversations/clear', content=b'{}'), 403)
    assert 'session store is down' in caplog.text
    assert caplog.text.count('the authorize check raised') == 2


# -- headers and limits -------------------------------------------------------------------


def test_security_headers_on_every_response(local: TestClient) -> None:
    responses = (
        local.get('/api/health'),
        local.get('/api/nope'),
        local.get('/', headers={'Host': 'x.y'}),
        local.get('/', headers={'Host': '[::1'}),
        local.get('/', headers={'X-Forwarded-For': '203.0.113.9'}),
    )
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
