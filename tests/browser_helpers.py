"""Shared by the browser tests (tests/e2e/*browser*.py): screenshots in both themes, the chat
composer, and the check that nothing on a page scrolls sideways.

The browser itself (`chromium`, `browser_page`) and the servers it visits (`live_server`) are
fixtures in tests/conftest.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Locator, Page, ViewportSize, expect

SCREENSHOTS = Path(__file__).resolve().parents[1] / 'test-artifacts' / 'screenshots'
"""Where screenshots go (not committed)."""
DESKTOP: ViewportSize = {'width': 1280, 'height': 800}
PHONE: ViewportSize = {'width': 390, 'height': 844}


def set_theme(page: Page, dark: bool) -> None:
    """Switch the page to the dark or the light theme at once (no transition)."""
    page.evaluate(
        """(dark) => {
            const root = document.documentElement
            root.classList.add('theme-switching')
            root.classList.toggle('dark', dark)
            root.style.colorScheme = dark ? 'dark' : 'light'
        }""",
        dark,
    )


def shoot(page: Page, name: str, *, full_page: bool = False) -> None:
    """Save the page in the dark and the light theme as `<name>-<theme>.png`, then restore its theme."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    was_dark = page.evaluate("() => document.documentElement.classList.contains('dark')")
    for theme in ('dark', 'light'):
        set_theme(page, theme == 'dark')
        page.wait_for_timeout(100)
        page.screenshot(path=str(SCREENSHOTS / f'{name}-{theme}.png'), full_page=full_page)
    set_theme(page, was_dark)
    page.evaluate("() => document.documentElement.classList.remove('theme-switching')")


def composer(page: Page) -> Locator:
    """The playground's message box."""
    return page.get_by_role('textbox', name='Message')


def send(page: Page, text: str) -> None:
    """Type `text` into the playground's message box and send it."""
    composer(page).fill(text)
    composer(page).press('Enter')


def last_answer(page: Page) -> Locator:
    """The last assistant message of the thread on screen."""
    return page.get_by_test_id('assistant-message').last


def finished(page: Page) -> None:
    """Wait until the last answer has finished streaming."""
    expect(last_answer(page)).to_have_attribute('aria-busy', 'false')


def thread(server: Any, conversation_id: str) -> dict[str, Any]:
    """A conversation's stored thread, as `GET /api/conversations/{id}` of `server` answers it."""
    response = httpx.get(f'{server.url}/api/conversations/{conversation_id}')
    assert response.status_code == 200, response.text
    return dict(response.json())


OVERFLOW = """(root) => {
    // Elements reaching past the right edge of the window, except inside a box that scrolls or
    // clips them itself (a JSON tree, a truncated line, a bar).
    const width = window.innerWidth
    const clipped = (el) => {
        for (let node = el.parentElement; node && node !== root.parentElement; node = node.parentElement) {
            if (getComputedStyle(node).overflowX !== 'visible') return node !== el
        }
        return false
    }
    const wide = [...root.querySelectorAll('*')].filter(
        (el) => el.getBoundingClientRect().right > width + 1 && !clipped(el),
    )
    return {
        scroll: [root.scrollWidth, root.clientWidth, document.documentElement.scrollWidth, width],
        wide: wide.slice(0, 5).map((el) => el.outerHTML.slice(0, 120)),
    }
}"""


def _fits(found: dict[str, Any]) -> bool:
    root_scroll, root_client, document_scroll, width = found['scroll']
    return bool(root_scroll <= root_client and document_scroll <= width and found['wide'] == [])


def assert_fits(page: Page, selector: str) -> None:
    """Nothing under `selector` makes the page scroll sideways, once the layout has settled (the
    sidebar's collapse is animated: measured mid-way, the column is still narrow)."""
    found = page.locator(selector).evaluate(OVERFLOW)
    for _ in range(30):
        if _fits(found):
            break
        page.wait_for_timeout(100)
        found = page.locator(selector).evaluate(OVERFLOW)
    root_scroll, root_client, document_scroll, width = found['scroll']
    assert root_scroll <= root_client and document_scroll <= width, found
    assert found['wide'] == [], found


def problems(page: Page) -> list[str]:
    """What went wrong on the page so far, as `browser_page` records it: failed requests (status and
    URL), page errors and console errors."""
    recorded: list[str] = vars(page)['problems']
    return recorded


def viewport(page: Page) -> ViewportSize:
    """The page's viewport (every page of these tests has one)."""
    size = page.viewport_size
    assert size is not None
    return size
