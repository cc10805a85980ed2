"""In Chromium, under the app's own Content-Security-Policy: the printed login URL logs in with one
press, and `/api/docs` renders Swagger UI from this server's own files."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from browser_helpers import problems

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def printed(server: Any, label: str) -> str:
    line: str = next(line for line in server.output().splitlines() if line.strip().startswith(label))
    return line.split()[-1]


def test_the_printed_login_url_fills_the_form_and_logs_in(live_server: Any, browser_page: Any) -> None:
    server = live_server(['--demo'], env={'SYNAPSE_ENV': 'staging'}, ready_status=401)
    login = printed(server, 'log in')
    assert '#token=' in login
    page = browser_page
    requests: list[str] = []
    page.on('request', lambda request: requests.append(request.url))
    page.goto(login)
    field = page.locator('input[name="token"]')
    expect(field).to_have_value(printed(server, 'token'))
    assert '#' not in page.url, 'the token leaves the address bar'
    assert page.context.cookies() == [], 'opening the URL alone does not log in'
    page.locator('button[type="submit"]').click()
    page.wait_for_url(f'{server.url}/')
    cookie = next(c for c in page.context.cookies() if c['name'].startswith('synapse_session_'))
    assert cookie['httpOnly'] and cookie['sameSite'] == 'Strict'
    assert page.evaluate("() => fetch('/api/agents').then(r => r.status)") == 200
    assert not any('token=' in url for url in requests), 'the token never travels in a URL'
    assert [p for p in problems(page) if 'Content Security Policy' in p] == []


def test_api_docs_render_offline_under_the_csp(live_server: Any, browser_page: Any) -> None:
    server = live_server(['--demo'])
    page = browser_page
    requests: list[str] = []
    page.on('request', lambda request: requests.append(request.url))
    page.goto(server.url + '/api/docs')
    expect(page.locator('.swagger-ui .info .title')).to_contain_text('Synapse')
    expect(page.locator('.opblock-summary-path').first).to_be_visible()
    assert all(url.startswith(server.url) for url in requests), requests
    assert problems(page) == []
