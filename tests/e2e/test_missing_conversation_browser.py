"""An unknown conversation, end to end: Debian's Chromium against a real `synapse serve --demo`.

/agents/<slug>/c/<unknown id> → "Not found", and no composer to send into it, but an offer to start
a new conversation with the agent → the offer opens /agents/<slug> with an empty playground whose
composer sends, and the answer lands in a new, stored conversation.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from test_forks_browser import server

from browser_helpers import composer, finished, last_answer, problems, send, shoot, thread

pytestmark = [pytest.mark.browser, pytest.mark.slow]

__all__ = ['server']  # the fixture: a real `synapse serve --demo`

AGENT = 'synapse_agents.demo.agents.support-agent'
UNKNOWN = '0193ffff-0000-7000-8000-00000000dead'


def test_unknown_conversation_offers_a_new_one(browser_page: Page, server: Any) -> None:
    page = browser_page
    page.goto(f'{server.url}/agents/{AGENT}/c/{UNKNOWN}')
    expect(page.get_by_role('alert')).to_contain_text('Not found')
    offer = page.get_by_role('region', name='Conversation not found')
    start = offer.get_by_role('button', name=re.compile('^Start a new conversation'))
    expect(start).to_be_visible()
    expect(composer(page)).to_have_count(0)
    expect(page.get_by_role('button', name='Send (Enter)')).to_have_count(0)
    expect(page.get_by_role('button', name='Clear conversation')).to_be_disabled()
    shoot(page, 'playground-missing-conversation')

    start.click()
    expect(page).to_have_url(f'{server.url}/agents/{AGENT}')
    expect(page.get_by_test_id('playground-empty')).to_be_visible()
    expect(page.get_by_role('alert')).to_have_count(0)
    expect(page.get_by_test_id('conversation-title')).to_have_text('New conversation')
    expect(composer(page)).to_be_enabled()

    send(page, 'Where is my order A-1001?')
    expect(page).to_have_url(re.compile(rf'/agents/{re.escape(AGENT)}/c/[0-9a-f-]{{36}}$'))
    finished(page)
    expect(last_answer(page)).not_to_be_empty()
    expect(page.get_by_test_id('error-card')).to_have_count(0)
    created = page.url.rsplit('/', 1)[1]
    assert created != UNKNOWN
    stored = thread(server, created)
    assert [m['content'] for m in stored['messages'] if m['role'] == 'user'] == ['Where is my order A-1001?']
    # The one failed request is the read of the unknown conversation.
    assert problems(page) == [f'404 {server.url}/api/conversations/{UNKNOWN}']
