"""What filled the prompt and where compression happened, end to end: Debian's Chromium against a
real `synapse serve` on a fixture project (tests/fixtures/long_conversation_project) whose agent has
`Compression` with a scripted summariser and a small budget.

Four playground turns: the thread shows a compression marker whose summary opens on click; the last
answer's Context button draws one stacked bar per request, with the summary block among the
sources and the new message's text shown when its block is clicked; the trace sheet's model call
shows the same bar.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from browser_helpers import finished, last_answer, problems, send, shoot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / 'tests' / 'fixtures' / 'long_conversation_project'
AGENT = 'agents.long.keeper'
WORDS = 'the harbour master wants the tide tables for the whole week ' * 2


@pytest.fixture
def server(live_server: Any, isolated_env: Path) -> Any:
    shutil.copytree(PROJECT / 'agents', isolated_env / 'agents')
    return live_server(['agents'])


def test_the_context_bars_and_the_compression_marker(browser_page: Page, server: Any) -> None:
    page = browser_page
    page.goto(f'{server.url}/agents/{AGENT}')
    for index in range(4):
        send(page, f'Question {index}: {WORDS}')
        finished(page)
    marker = page.get_by_test_id('compression-marker').first
    expect(marker).to_contain_text('History compressed')
    marker.get_by_test_id('compression-summary-toggle').click()
    expect(marker.get_by_test_id('compression-summary')).to_have_text(
        'The user asked about the harbour tides several times.'
    )

    last = last_answer(page)
    last.get_by_test_id('context-button').click()
    panel = last.get_by_test_id('context-panel')
    expect(panel.get_by_test_id('context-request')).to_have_count(1)
    for kind in ('instructions', 'summary', 'history', 'message'):
        expect(panel.get_by_test_id(f'context-block-{kind}')).to_be_visible()
    panel.get_by_test_id('context-block-message').click()
    expect(panel.get_by_test_id('context-block-text')).to_contain_text(f'Question 3: {WORDS.strip()}')
    panel.get_by_test_id('context-block-summary').click()
    expect(panel.get_by_test_id('context-block-text')).to_contain_text(
        'The user asked about the harbour tides'
    )
    shoot(page, 'context-bars')

    last.get_by_test_id('trace-button').click()
    page.get_by_test_id('trace-node').filter(has_text='keeper-model').first.click()
    expect(page.get_by_test_id('call-context').get_by_test_id('context-block-summary')).to_be_visible()
    assert problems(page) == []
