"""History's order, titles and search snippets, end to end: Debian's Chromium against a real
`synapse serve --demo`, with conversations made through the chat API.

Renaming the oldest of three conversations from its History menu leaves "Newest first" as it was,
after a reload too, with the new title shown. A first message longer than 100 characters is titled
by its words up to the last that fits, then "…". A search for a word in the middle of a long
message shows, under the title, an excerpt around it with the word in a <mark>, and that word is on
screen, not clipped by the excerpt's truncation. Screenshots of the search at 1280x800 and
390x844, in both themes, go to test-artifacts/screenshots/ (not committed).

Rows are found by test id, role and text only, never by table structure: below a certain width
the rows are laid out as cards.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from playwright.sync_api import Locator, Page, ViewportSize, expect

from browser_helpers import DESKTOP, PHONE, problems, shoot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

AGENT = 'synapse_agents.demo.agents.support-agent'

OLDEST = 'Hello, what can you help me with?'
MIDDLE = 'Which payment methods do you take?'
NEWEST = 'Do you ship to Portugal?'
RENAMED = 'Payment questions (renamed)'

LONG = (
    'Please look into the quarterly logistics report for the northern warehouses and list each of '
    'the overdue consignments, carriers and customers affected'
)
"""138 characters; the word `overdue` runs from the 98th to the 104th, across the 100th."""
LONG_TITLE = (
    'Please look into the quarterly logistics report for the northern warehouses and list each of the…'
)

WORD = 'pomegranate'
STORY = (
    'I run a small grocery in the old town and we have been ordering from you for three years now, '
    'mostly dried fruit, nuts and spices for the shelves near the till. Last week the crate of '
    'Pomegranate molasses arrived with two bottles broken and the label on the third one was '
    'unreadable, so I could not sell any of it. Could you send a replacement or a refund, and tell '
    'me how to pack returns so that this does not happen again on the way back?'
)
"""The search word comes after the title's 100 characters and long before the end."""


@pytest.fixture
def server(live_server: Any) -> Any:
    return live_server(['--demo'])


@pytest.fixture
def page(browser_page: Page) -> Page:
    browser_page.set_viewport_size(DESKTOP)
    return browser_page


def wait_for(condition: Callable[[], Any], what: str, timeout: float = 10) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f'timed out waiting for {what}')


def chat(server: Any, message: str) -> str:
    """One turn in a new conversation through the chat API; the conversation's id."""
    response = httpx.post(f'{server.url}/api/agents/{AGENT}/chat', data={'message': message}, timeout=30)
    assert response.status_code == 200, response.text
    chunks = [
        json.loads(line[len('data: ') :]) for line in response.text.splitlines() if line.startswith('data: {')
    ]
    assert not [chunk for chunk in chunks if chunk['type'] == 'error'], chunks
    starts = [chunk for chunk in chunks if chunk['type'] == 'start']
    assert len(starts) == 1, chunks
    return str(starts[0]['messageMetadata']['conversation_id'])


def listed(server: Any, **params: str) -> list[dict[str, Any]]:
    response = httpx.get(f'{server.url}/api/conversations', params=params, timeout=10)
    assert response.status_code == 200, response.text
    return list(response.json()['conversations'])


def conversations(server: Any, messages: list[str]) -> list[str]:
    """A conversation per message, one after the other (so each is newer than the last); their ids,
    once the store lists every one of them as finished."""
    ids = [chat(server, message) for message in messages]
    wait_for(
        lambda: {row['id'] for row in listed(server) if row['message_count'] >= 2} >= set(ids),
        'every conversation to be stored',
    )
    return ids


def rows(page: Page) -> Locator:
    return page.get_by_test_id('history-row')


def title_link(row: Locator, title: str) -> Locator:
    """The row's title: the link named by it (an accessible name, whatever the layout)."""
    return row.get_by_role('link', name=title, exact=True)


def open_history(page: Page, server: Any, query: str = '') -> None:
    page.goto(f'{server.url}/history{query}')
    expect(page.get_by_role('heading', name='History')).to_be_visible()


def expect_order(page: Page, titles: list[str]) -> None:
    expect(rows(page)).to_have_count(len(titles))
    for index, title in enumerate(titles):
        expect(title_link(rows(page).nth(index), title)).to_have_count(1)


def test_renaming_the_oldest_keeps_newest_first(page: Page, server: Any) -> None:
    oldest, middle, newest = conversations(server, [OLDEST, MIDDLE, NEWEST])
    assert [row['id'] for row in listed(server, sort='newest')] == [newest, middle, oldest]
    before = {row['id']: row for row in listed(server)}[oldest]

    with page.expect_response(lambda r: '/api/conversations?' in r.url) as first_page:
        open_history(page, server)
    assert 'sort=newest' in first_page.value.url
    sort = page.get_by_role('button', name='Sort')
    expect(sort).to_contain_text('Newest first')
    sort.click()
    expect(page.get_by_role('menuitemradio', name='Newest first')).to_have_attribute('aria-checked', 'true')
    page.keyboard.press('Escape')
    expect(page.get_by_role('menu')).to_be_hidden()
    expect_order(page, [NEWEST, MIDDLE, OLDEST])

    # Rename the oldest (the last row) from its own menu.
    row = rows(page).filter(has=page.get_by_role('link', name=OLDEST, exact=True))
    expect(row).to_have_count(1)
    row.get_by_role('button', name=f'Actions for {OLDEST}').click()
    page.get_by_role('menuitem', name='Rename').click()
    dialog = page.get_by_role('dialog', name='Rename conversation')
    box = dialog.get_by_role('textbox', name='Title')
    expect(box).to_have_value(OLDEST)
    box.fill(RENAMED)
    with page.expect_response(
        lambda r: r.url.endswith(f'/api/conversations/{oldest}') and r.request.method == 'PATCH'
    ) as renamed:
        dialog.get_by_role('button', name='Save').click()
    assert renamed.value.status == 200, renamed.value.text()
    expect(dialog).to_be_hidden()
    # The new title shows at once, in the same place.
    expect_order(page, [NEWEST, MIDDLE, RENAMED])
    expect(title_link(rows(page), OLDEST)).to_have_count(0)

    # After a reload, from the store: same order, new title, activity time untouched.
    page.reload()
    expect(page.get_by_role('button', name='Sort')).to_contain_text('Newest first')
    expect_order(page, [NEWEST, MIDDLE, RENAMED])
    expect(title_link(rows(page).last, RENAMED)).to_have_attribute('href', f'/agents/{AGENT}/c/{oldest}')
    after = {row['id']: row for row in listed(server)}[oldest]
    assert after['title'] == RENAMED
    assert after['updated_at'] == before['updated_at']
    assert problems(page) == []


def test_a_long_first_message_is_titled_up_to_a_whole_word(page: Page, server: Any) -> None:
    overdue = LONG.index('overdue')
    assert len(LONG) > 100 and overdue < 99 < 100 < overdue + len('overdue')
    (long_id,) = conversations(server, [LONG])

    open_history(page, server)
    expect(rows(page)).to_have_count(1)
    link = rows(page).first.get_by_role('link', name=re.compile(r'…$'))
    expect(link).to_have_count(1)
    expect(link).to_have_attribute('href', f'/agents/{AGENT}/c/{long_id}')
    title = link.inner_text().strip()
    assert title == LONG_TITLE
    assert len(title) <= 100
    assert title.endswith('…')
    kept = title[: -len('…')]
    # A prefix of the message that stops right before a space: no word is cut.
    assert LONG.startswith(kept)
    assert LONG[len(kept)] == ' '
    assert not kept.endswith(' ')
    assert 'overdue' not in title
    assert problems(page) == []


def snippet_of(row: Locator) -> Locator:
    return row.get_by_test_id('search-snippet')


def check_snippet(page: Page) -> Locator:
    """The only result's snippet: an excerpt of the message around the word, the word marked."""
    expect(rows(page)).to_have_count(1)
    row = rows(page).first
    snippet = snippet_of(row)
    expect(snippet).to_be_visible()
    expect(snippet).to_contain_text(WORD, ignore_case=True)
    text = snippet.inner_text().strip()
    # Cut on both sides ("…"), and the excerpt is a run of the message's own words.
    assert text.startswith('…') and text.endswith('…'), text
    assert text.strip('…') in STORY
    mark = snippet.locator('mark')
    expect(mark).to_have_count(1)
    expect(mark).to_have_text('Pomegranate')
    expect(mark).to_be_visible()
    return row


def test_search_shows_the_match_marked_in_a_snippet(page: Page, server: Any) -> None:
    start = STORY.index('Pomegranate')
    assert start > 100 and len(STORY) - start > 160
    _other, story_id, _last = conversations(server, [OLDEST, STORY, NEWEST])

    open_history(page, server)
    expect(rows(page)).to_have_count(3)
    expect(snippet_of(rows(page))).to_have_count(0)
    page.get_by_role('searchbox', name='Search conversations').fill(WORD)
    expect(page).to_have_url(re.compile(rf'search={WORD}'))
    row = check_snippet(page)
    title = row.get_by_role('link', name=re.compile(r'^I run a small grocery'))
    expect(title).to_have_attribute('href', f'/agents/{AGENT}/c/{story_id}')
    expect(title).not_to_contain_text(WORD, ignore_case=True)
    shoot(page, f'history-search-{DESKTOP["width"]}')

    # On a phone, after a reload (the search is in the URL).
    page.set_viewport_size(PHONE)
    page.reload()
    expect(page.get_by_role('searchbox', name='Search conversations')).to_have_value(WORD)
    check_snippet(page)
    shoot(page, f'history-search-{PHONE["width"]}')

    # A word nobody wrote: no rows, no snippets.
    page.get_by_role('searchbox', name='Search conversations').fill('quinceberry')
    expect(page.get_by_text('No conversation matches')).to_be_visible()
    expect(rows(page)).to_have_count(0)
    assert problems(page) == []


@pytest.mark.parametrize('viewport', [DESKTOP, PHONE], ids=lambda size: f'{size["width"]}x{size["height"]}')
def test_the_marked_word_is_on_screen(page: Page, server: Any, viewport: ViewportSize) -> None:
    """The highlight is only worth having where it can be seen: the snippet's own truncation does
    not clip the marked word away."""
    conversations(server, [STORY])
    page.set_viewport_size(viewport)
    open_history(page, server, f'?search={WORD}')
    snippet = snippet_of(check_snippet(page))
    mark = snippet.locator('mark')
    page.wait_for_timeout(300)  # the sidebar's collapse is animated
    marked, box = mark.bounding_box(), snippet.bounding_box()
    assert marked and box, (marked, box)
    shown = (box['x'] - 1, box['x'] + box['width'] + 1)
    assert shown[0] <= marked['x'] and marked['x'] + marked['width'] <= shown[1], {
        'mark': marked,
        'snippet': box,
        'viewport': viewport,
    }
    assert marked['x'] + marked['width'] <= viewport['width'], marked
    assert problems(page) == []
