"""Error cards, end to end: Debian's Chromium against a real `synapse serve --demo`.

The demo model refuses "rate limit" prompts as a provider would: HTTP 429 with a Retry-After of 20
seconds and an error body. The card shows the status, the exception class, the provider's error type
and code, its own message (not the exception's summary), the model and a countdown; its traceback
opens with the library frames folded. Retry sends the question again in the same conversation;
Regenerate on an answer asks the question again in a branch, and the original is left as it was.
The empty playground's suggestions send themselves.
"""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from browser_helpers import composer, finished, last_answer, shoot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

AGENT = 'synapse_agents.demo.agents.support-agent'


@pytest.fixture
def server(live_server: Any) -> Any:
    return live_server(['--demo'])


def thread(server: Any, conversation_id: str) -> dict[str, Any]:
    response = httpx.get(f'{server.url}/api/conversations/{conversation_id}')
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_a_provider_refusal_card_then_retry(browser_page: Page, server: Any) -> None:
    page = browser_page
    page.goto(f'{server.url}/agents/{AGENT}')
    suggestions = page.get_by_test_id('suggestions')
    expect(suggestions.get_by_role('button')).not_to_have_count(0)
    suggestions.get_by_role('button', name='Rate limit me, please').click()

    card = page.get_by_test_id('error-card').last
    expect(card.get_by_test_id('error-title')).to_have_text('Rate limited · 429')
    for fact in ('ModelRateLimitError', 'rate_limit_exceeded', 'synapse-demo'):
        expect(card).to_contain_text(fact)
    expect(card.get_by_test_id('error-message')).to_contain_text('Rate limit reached')
    expect(card.get_by_test_id('error-message')).not_to_contain_text('status_code')
    expect(card.get_by_test_id('retry-after')).to_contain_text(
        re.compile(r'wait 20 s before retrying · \d+ s left')
    )
    card.get_by_role('button', name='Traceback').click()
    expect(card.get_by_test_id('traceback')).to_contain_text('ModelRateLimitError')
    expect(card.get_by_test_id('folded-frames').first).to_contain_text('library frames')
    shoot(page, 'playground-provider-error')

    conversation_id = page.url.rsplit('/', 1)[1]
    card.get_by_role('button', name='Retry').click()
    expect(page.get_by_test_id('user-message')).to_have_count(2)
    expect(page.get_by_test_id('error-card')).to_have_count(2)
    assert page.url.rsplit('/', 1)[1] == conversation_id, 'retried in the same conversation'
    stored = thread(server, conversation_id)
    questions = [m['content'] for m in stored['messages'] if m['role'] == 'user']
    assert questions == ['Rate limit me, please', 'Rate limit me, please']


def test_regenerate_asks_again_in_a_branch(browser_page: Page, server: Any) -> None:
    page = browser_page
    page.goto(f'{server.url}/agents/{AGENT}')
    composer(page).fill('Where is order A-1001?')
    composer(page).press('Enter')
    finished(page)
    expect(page).to_have_url(re.compile(r'/c/[0-9a-f-]{36}$'))
    original = page.url.rsplit('/', 1)[1]
    expect(last_answer(page).get_by_test_id('regenerate')).to_be_visible()
    last_answer(page).get_by_test_id('regenerate').click()
    expect(page).not_to_have_url(re.compile(re.escape(original) + '$'))
    finished(page)
    expect(page.get_by_test_id('user-message')).to_have_count(1)
    fork = page.url.rsplit('/', 1)[1]
    assert fork != original
    # The page shows the answer as it streams; the branch's rows are written as the turn ends.
    deadline = time.monotonic() + 15
    branch = thread(server, fork)
    while len(branch['messages']) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
        branch = thread(server, fork)
    assert [m['role'] for m in branch['messages']][-2:] == ['user', 'assistant']
    assert [m['content'] for m in branch['messages'] if m['role'] == 'user'] == ['Where is order A-1001?']
    assert len(thread(server, original)['messages']) == 2, 'the original is left as it was'
