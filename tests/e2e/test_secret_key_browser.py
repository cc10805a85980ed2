"""A fresh home with no `secret_key`: the Registry's API-key field works on the first Create.

Debian's Chromium against a real `synapse serve --demo`. The key Synapse makes lands in
`SYNAPSE_HOME/secret_key` (mode 0600), the server says so once, and a restarted server still
reads the stored API key (its last four characters are shown). Screenshots at 1280 and 390 px go
to test-artifacts/screenshots/ (not committed).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SCREENSHOTS = Path(__file__).resolve().parents[2] / 'test-artifacts' / 'screenshots'
API_KEY = 'sk-local-first-run-4Kd8sPq2Vn'
LAST4 = API_KEY[-4:]
ANNOUNCEMENT = 'No secret_key is configured: made one in'


def field(container: Any, label: str) -> Any:
    return container.get_by_label(re.compile(rf'^{re.escape(label)}( \*)?$'))


def test_the_first_api_key_on_a_fresh_home_is_stored(browser_page: Page, live_server: Any) -> None:
    home = Path(os.environ['SYNAPSE_HOME'])
    server = live_server(['--demo'])
    page = browser_page
    page.goto(server.url + '/registry')
    page.get_by_role('button', name='New provider').click()
    new = page.get_by_role('form', name='New provider')
    field(new, 'Key').fill('local-llm')
    field(new, 'Kind').select_option('openai-compatible')
    field(new, 'Base URL').fill('http://127.0.0.1:9/v1')
    field(new, 'API key').fill(API_KEY)
    with page.expect_response(
        lambda r: r.url.endswith('/api/registry/providers') and r.request.method == 'POST'
    ) as created:
        new.get_by_role('button', name='Create').click()
    assert created.value.status == 201, created.value.text()
    provider = page.locator('[data-testid="registry-row"][data-key="local-llm"]')
    expect(provider.get_by_test_id('secret-status')).to_have_text(f'set · ••••{LAST4}')
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({'width': width, 'height': height})
        page.screenshot(path=str(SCREENSHOTS / f'registry-first-api-key-{width}.png'))

    key_file = home / 'secret_key'
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    # A second provider with a key: no second key is made, nor announced.
    response = httpx.post(
        server.url + '/api/registry/providers',
        json={'key': 'other', 'kind': 'openai', 'api_key': API_KEY + 'x'},
        headers={'Origin': server.url},
    )
    assert response.status_code == 201, response.text
    server.stop()
    assert server.output().count(ANNOUNCEMENT) == 1, server.output()

    # A restarted server on the same home reads the key back: the stored API key still opens.
    again = live_server(['--demo'])
    assert ANNOUNCEMENT not in again.output()
    page.goto(again.url + '/registry')
    row = page.locator('[data-testid="registry-row"][data-key="local-llm"]')
    expect(row.get_by_test_id('secret-status')).to_have_text(f'set · ••••{LAST4}')
    # Its test decrypts the key to build the client; nothing listens on port 9, so it fails there.
    tried = httpx.post(
        again.url + '/api/registry/providers/local-llm/test',
        json={'model': 'm'},
        headers={'Origin': again.url},
        timeout=30,
    )
    assert tried.status_code == 200, tried.text
    failure = tried.json()['error']
    assert tried.json()['ok'] is False and 'Connect' in failure['class'], failure
