"""An answer after an error card stays on screen: Debian's Chromium against a real
`synapse serve --demo`.

The demo model refuses "rate limit" prompts as a provider would (HTTP 429). The store keeps that
turn as an error row of its own id; the next question's answer streams in and then must stay in the
thread once the playground hands the finished turns to the stored replay, exactly as a reload
shows them.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from browser_helpers import finished, last_answer, send, shoot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

AGENT = 'synapse_agents.demo.agents.support-agent'


@pytest.fixture
def server(live_server: Any) -> Any:
    return live_server(['--demo'])


def test_the_answer_after_a_rate_limit_card_stays_without_a_reload(browser_page: Page, server: Any) -> None:
    page = browser_page
    page.goto(f'{server.url}/agents/{AGENT}')
    send(page, 'rate limit please')
    card = page.get_by_test_id('error-card')
    expect(card.get_by_test_id('error-title')).to_have_text('Rate limited · 429')
    expect(page.get_by_role('button', name='Stop (Esc)')).to_have_count(0)

    send(page, 'Where is order A-1001?')
    finished(page)
    answer = last_answer(page).inner_text()
    assert answer.strip()
    # The hand-over to the stored replay reads the thread again once the turn is stored: give it
    # time to happen, then the thread must still hold both turns as they streamed.
    page.wait_for_timeout(3000)
    expect(page.get_by_test_id('user-message')).to_have_count(2)
    expect(page.get_by_test_id('error-card')).to_have_count(1)
    expect(page.get_by_test_id('assistant-message')).to_have_count(1)
    assert last_answer(page).inner_text() == answer
    shoot(page, 'playground-answer-after-error-card')

    conversation_id = page.url.rsplit('/', 1)[1]
    stored = httpx.get(f'{server.url}/api/conversations/{conversation_id}').json()
    assert [m['role'] for m in stored['messages']] == ['user', 'error', 'user', 'assistant']
    page.reload()
    expect(page.get_by_test_id('user-message')).to_have_count(2)
    expect(page.get_by_test_id('error-card')).to_have_count(1)
    assert last_answer(page).inner_text() == answer
