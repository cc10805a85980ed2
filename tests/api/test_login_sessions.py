"""Token mode's login: POST only, server-side sessions that expire and end at logout, cookies
scoped to one server, and no way for another site to log in or lock the user out."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chat_helpers import LOCAL_PEER
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.web.access import AccessPolicy
from synapse_agents.web.app import create_app, default_policy
from synapse_agents.web.hardening import SECURITY_HEADERS
from synapse_agents.web.sessions import SessionStore
from synapse_agents.web.throttle import FailureThrottle

pytestmark = pytest.mark.any_database(
    reason="login sessions live in the server process's memory, not in the store"
)

TOKEN = 'test-token-0123456789'
BASE = 'http://synapse.internal:8765'
COOKIE = 'synapse_session_8765'
PAGE = {'Accept': 'text/html'}


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def policy(clock: Clock) -> AccessPolicy:
    policy = AccessPolicy.with_token(TOKEN)
    policy.throttle = FailureThrottle(base_delay=0, limit=5)
    policy.sessions = SessionStore(ttl=3600, clock=clock)
    return policy


@pytest.fixture
def app(context: SynapseContext, policy: AccessPolicy) -> Any:
    return create_app(context, access=policy)


@pytest.fixture
def browser(app: Any) -> Iterator[TestClient]:
    with TestClient(app, base_url=BASE, client=('192.0.2.7', 4000)) as client:
        yield client


def log_in(client: TestClient, token: str = TOKEN, **headers: str) -> Any:
    return client.post(
        '/login', data={'token': token, 'next': '/history'}, headers=headers, follow_redirects=False
    )


def assert_refusal(response: Any, status: int) -> str:
    assert response.status_code == status, response.text
    assert response.headers['content-type'] == 'application/json'
    for name, value in SECURITY_HEADERS.items():
        assert response.headers[name] == value
    message: str = response.json()['error']['message']
    return message


def test_login_sets_a_strict_httponly_session_cookie_for_this_port(browser: TestClient) -> None:
    wrong = log_in(browser, 'nope', **PAGE)
    assert wrong.status_code == 401 and 'not right' in wrong.text and 'set-cookie' not in wrong.headers
    response = log_in(browser)
    assert response.status_code == 303 and response.headers['location'] == '/history'
    cookie = response.headers['set-cookie']
    assert cookie.startswith(f'{COOKIE}=')
    assert 'HttpOnly' in cookie and 'SameSite=strict' in cookie and 'Max-Age=3600' in cookie
    assert 'Path=/' in cookie
    value = browser.cookies[COOKIE]
    assert TOKEN not in value and len(value) >= 40
    assert browser.get('/api/health').status_code == 200


def test_each_login_is_a_new_random_session(browser: TestClient, app: Any) -> None:
    log_in(browser)
    first = browser.cookies[COOKIE]
    with TestClient(app, base_url=BASE, client=LOCAL_PEER) as other:
        log_in(other)
        assert other.cookies[COOKIE] != first


def test_logout_ends_the_session_on_the_server(browser: TestClient) -> None:
    log_in(browser)
    stolen = browser.cookies[COOKIE]
    response = browser.post('/logout', follow_redirects=False)
    assert response.status_code == 303
    assert f'{COOKIE}=""' in response.headers['set-cookie'] and 'Max-Age=0' in response.headers['set-cookie']
    browser.cookies.set(COOKIE, stolen)
    assert_refusal(browser.get('/api/health'), 401)


def test_sessions_expire(browser: TestClient, clock: Clock) -> None:
    log_in(browser)
    clock.now += 3599
    assert browser.get('/api/health').status_code == 200
    clock.now += 2
    assert_refusal(browser.get('/api/health'), 401)


def test_a_cookie_of_another_port_is_not_this_servers(browser: TestClient, app: Any) -> None:
    log_in(browser)
    value = browser.cookies[COOKIE]
    with TestClient(app, base_url='http://synapse.internal:8766', client=LOCAL_PEER) as other:
        other.cookies.set(COOKIE, value)
        assert_refusal(other.get('/api/health'), 401)
        other.cookies.set('synapse_session_8766', 'forged')
        assert_refusal(other.get('/api/health'), 401)


def test_neither_the_token_nor_a_made_up_value_is_a_session(browser: TestClient) -> None:
    for value in (TOKEN, 'x' * 43, ''):
        browser.cookies.set(COOKIE, value)
        assert_refusal(browser.get('/api/health'), 401)


def test_cookie_sessions_still_need_same_origin_writes(browser: TestClient) -> None:
    log_in(browser)
    response = browser.post('/api/conversations/clear', headers={'Origin': 'https://evil.example'})
    assert 'Cross-site' in assert_refusal(response, 403)
    assert browser.post('/api/conversations/clear', headers={'Origin': BASE}).status_code == 200


@pytest.mark.parametrize('target', ['https://evil.example/', '//evil.example', '/\\evil.example'])
def test_login_never_redirects_off_site(browser: TestClient, target: str) -> None:
    response = browser.post('/login', data={'token': TOKEN, 'next': target}, follow_redirects=False)
    assert response.headers['location'] == '/'


def test_a_get_never_logs_in_nor_counts(browser: TestClient) -> None:
    for token in [TOKEN] + ['wrong'] * 25:
        page = browser.get(f'/login?token={token}', headers={'Sec-Fetch-Site': 'cross-site'})
        assert page.status_code == 200 and 'set-cookie' not in page.headers
    assert_refusal(browser.get('/api/health'), 401)
    assert log_in(browser).status_code == 303


@pytest.mark.parametrize(
    'headers',
    [
        {'Sec-Fetch-Site': 'cross-site'},
        {'Sec-Fetch-Site': 'same-site'},
        {'Origin': 'https://evil.example'},
        {'Origin': 'null'},
        {'Origin': 'http://synapse.internal:9999'},
    ],
)
def test_cross_site_logins_are_refused_before_they_count(
    browser: TestClient, headers: dict[str, str]
) -> None:
    for token in ['wrong'] * 25 + [TOKEN]:
        response = log_in(browser, token, **headers)
        assert 'Cross-site' in assert_refusal(response, 403)
        assert 'set-cookie' not in response.headers
    assert log_in(browser, Origin=BASE).status_code == 303
    assert browser.get('/api/health', headers={'Authorization': f'Bearer {TOKEN}'}).status_code == 200


def test_failed_logins_from_a_script_are_json(browser: TestClient) -> None:
    assert 'not right' in assert_refusal(log_in(browser, 'nope'), 401)
    for _ in range(4):
        log_in(browser, 'nope')
    locked = log_in(browser)
    assert 'Too many failed attempts' in assert_refusal(locked, 429)
    assert int(locked.headers['retry-after']) > 0
    page = log_in(browser, **PAGE)
    assert page.status_code == 429 and '<form' in page.text and int(page.headers['retry-after']) > 0


def test_the_login_page_runs_only_its_own_script(browser: TestClient) -> None:
    page = browser.get('/login', headers=PAGE)
    assert page.status_code == 200 and '<form method="post"' in page.text
    scripts = re.findall(r'<script[^>]*>(.*?)</script>', page.text, re.S)
    assert scripts == [''], 'no inline script'
    assert '<script src="/login.js" defer>' in page.text
    script = browser.get('/login.js')
    assert script.status_code == 200 and script.headers['content-type'].startswith('text/javascript')
    assert '#token=' in script.text and 'submit()' not in script.text


def test_a_page_request_without_a_session_goes_to_the_login_form(browser: TestClient) -> None:
    for path in ('/agents/x', '/api/docs'):
        response = browser.get(path, headers=PAGE, follow_redirects=False)
        assert response.status_code == 303
        assert response.headers['location'].startswith('/login?next=')


def test_the_session_lifetime_comes_from_the_settings(
    context: SynapseContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(context.settings, 'env', 'staging')
    monkeypatch.setattr(context.settings, 'session_ttl', 60)
    policy = default_policy(context)
    assert policy.mode == 'token' and policy.sessions.ttl == 60
    with TestClient(create_app(context, access=policy), base_url=BASE, client=LOCAL_PEER) as client:
        assert policy.token is not None
        response = log_in(client, policy.token)
        assert 'Max-Age=60' in response.headers['set-cookie']


def test_session_store_limits_and_revocation(clock: Clock) -> None:
    store = SessionStore(ttl=10, max_sessions=3, clock=clock)
    sessions = [store.create() for _ in range(4)]
    assert not store.valid(sessions[0]) and all(store.valid(s) for s in sessions[1:])
    store.revoke(sessions[1])
    assert not store.valid(sessions[1]) and len(store) == 2
    clock.now += 10
    assert len(store) == 0 and not store.valid(sessions[3])
