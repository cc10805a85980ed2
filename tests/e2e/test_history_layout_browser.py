"""History's rows at a desktop and a phone width: Debian's Chromium against a real
`synapse serve --demo` whose store holds conversations with a long first message and a long scope
(tenant, actor and subject), written before the server starts.

At 1280x800 the message takes the width the other columns leave: its cell is at least 400 px
wide and its link shows at least 50 characters of the message; at 1280x800 and at 390x844 the
scope line is whole (it wraps instead of being cut: its text is all there and its box holds it),
and nothing makes the page scroll sideways. Screenshots go to
test-artifacts/screenshots/history-layout-<width>.png (not committed); the test prints the path.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, ViewportSize, expect

from browser_helpers import DESKTOP, PHONE, SCREENSHOTS, problems
from synapse_agents.conversations.tables import Conversation
from synapse_agents.store import Store, upgrade

pytestmark = [pytest.mark.browser, pytest.mark.slow]

AGENT = 'synapse_agents.demo.agents.support-agent'
NOW = datetime.now(UTC).replace(microsecond=0)

MESSAGES = (
    'Where is my order A-1001? It should have come on Monday and the tracking page says nothing at all',
    'Please look into the quarterly logistics report for the northern warehouses and list each of the…',
    'Hello',
)
SCOPE = {
    'tenant_type': 'org',
    'tenant_id': 'acme-logistics-international',
    'actor_type': 'user',
    'actor_id': 'customer-success-lead-0042',
    'subject_type': 'ticket',
    'subject_id': 'refund-request-2026-000123',
}
SCOPE_TEXT = (
    'org:acme-logistics-international · user:customer-success-lead-0042 · ticket:refund-request-2026-000123'
)


def seed(home: Path) -> None:
    """One conversation per message, the first two in the long scope, before the server starts."""
    home.mkdir(parents=True, exist_ok=True)
    store = Store.open(f'sqlite:///{home / "synapse.db"}', home / 'attachments')
    upgrade(store.engine)
    with store.write() as session:
        for index, message in enumerate(MESSAGES):
            at = NOW - timedelta(minutes=len(MESSAGES) - index)
            session.add(
                Conversation(
                    agent_key=AGENT,
                    agent_name='support-agent',
                    title=message,
                    origin='app',
                    **(SCOPE if index < 2 else {}),
                    message_count=2,
                    input_tokens=1200,
                    output_tokens=340,
                    created_at=at,
                    updated_at=at,
                )
            )
    store.close()


@pytest.fixture
def server(live_server: Any) -> Any:
    seed(Path(os.environ['SYNAPSE_HOME']))
    return live_server(['--demo'])


SIDEWAYS = '() => document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth'

CLIPPED = """(element) => ({
    scrollWidth: element.scrollWidth,
    clientWidth: element.clientWidth,
    scrollHeight: element.scrollHeight,
    clientHeight: element.clientHeight,
    text: element.innerText,
})"""


def open_history(page: Page, server: Any, viewport: ViewportSize) -> Locator:
    page.set_viewport_size(viewport)
    page.goto(f'{server.url}/history')
    expect(page.get_by_role('heading', name='History')).to_be_visible()
    rows = page.get_by_test_id('history-row')
    expect(rows).to_have_count(len(MESSAGES))
    page.wait_for_timeout(300)  # the sidebar's collapse is animated
    return rows


def shoot(page: Page, width: int) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f'history-layout-{width}.png'
    page.screenshot(path=str(path))
    print(f'screenshot: {path}')


def scope_is_whole(row: Locator) -> None:
    """The row's scope line holds all of its text, inside its own box (nothing cut or hidden)."""
    scope = row.get_by_test_id('scope')
    expect(scope).to_be_visible()
    box = scope.evaluate(CLIPPED)
    assert ' '.join(box['text'].split()) == SCOPE_TEXT, box
    assert box['scrollWidth'] <= box['clientWidth'], box
    assert box['scrollHeight'] <= box['clientHeight'] + 1, box
    cell, line = row.bounding_box(), scope.bounding_box()
    assert cell and line, (cell, line)
    assert cell['x'] - 1 <= line['x'] and line['x'] + line['width'] <= cell['x'] + cell['width'] + 1, (
        cell,
        line,
    )


def test_history_at_1280_gives_the_message_the_room(browser_page: Page, server: Any) -> None:
    page = browser_page
    rows = open_history(page, server, DESKTOP)
    # Newest first: 'Hello' (no scope), then the two long ones.
    row = rows.nth(1)
    link = row.get_by_role('link', name=MESSAGES[1], exact=True)
    expect(link).to_be_visible()
    width = link.evaluate("(element) => element.closest('td').getBoundingClientRect().width")
    assert width >= 400, f'the message cell is {width:.0f} px wide at 1280'
    # The characters the link shows: its visible width over the width of one average character.
    shown = link.evaluate(
        """(element) => {
            const range = document.createRange()
            range.selectNodeContents(element)
            const full = range.getBoundingClientRect().width
            return Math.floor(element.clientWidth / (full / element.textContent.length))
        }"""
    )
    assert shown >= 50, f'the message link shows about {shown} characters at 1280'
    scope_is_whole(rows.nth(1))
    scope_is_whole(rows.nth(2))
    assert page.evaluate(SIDEWAYS) <= 0
    shoot(page, DESKTOP['width'])
    assert problems(page) == []


def test_history_on_a_phone_keeps_the_cards(browser_page: Page, server: Any) -> None:
    page = browser_page
    rows = open_history(page, server, PHONE)
    row = rows.nth(1)
    link = row.get_by_role('link', name=MESSAGES[1], exact=True)
    expect(link).to_be_visible()
    # A card: the whole message wraps inside the row.
    box, card = link.bounding_box(), row.bounding_box()
    assert box and card, (box, card)
    assert box['x'] >= card['x'] - 1 and box['x'] + box['width'] <= card['x'] + card['width'] + 1, (box, card)
    assert link.evaluate('(element) => element.scrollWidth <= element.clientWidth')
    scope_is_whole(rows.nth(1))
    scope_is_whole(rows.nth(2))
    expect(row.get_by_test_id('history-date')).to_be_in_viewport()
    assert page.evaluate(SIDEWAYS) <= 0
    shoot(page, PHONE['width'])
    assert problems(page) == []
