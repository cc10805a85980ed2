"""The dashboard end to end: Debian's Chromium against a real `synapse serve --demo` on a temporary home.

Agents page → playground → a streamed answer with tool cards → a reload keeps the conversation →
a raising agent's error card → info panel tabs → history search, filters, rename, delete →
an attachment round trip. Every page is photographed in both themes into
test-artifacts/screenshots/ (not committed).
"""

from __future__ import annotations

import re
import socket
import struct
import subprocess
import sys
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import FilePayload, Page, expect

from browser_helpers import composer, last_answer, problems, send, shoot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DEMO = 'synapse_agents.demo.agents'
SUPPORT = f'{DEMO}.support-agent'
FLAKY = f'{DEMO}.flaky-agent'


def png(width: int = 24, height: int = 24, rgb: tuple[int, int, int] = (139, 124, 246)) -> bytes:
    """A real, tiny PNG (so the browser can draw its thumbnail)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))

    rows = b''.join(b'\x00' + bytes(rgb) * width for _ in range(height))
    header = struct.pack('>IIBBBBB', width, height, 8, 2, 0, 0, 0)
    return (
        b'\x89PNG\r\n\x1a\n'
        + chunk(b'IHDR', header)
        + chunk(b'IDAT', zlib.compress(rows))
        + chunk(b'IEND', b'')
    )


@pytest.fixture
def server(live_server: Any) -> Any:
    return live_server(['--demo'])


@pytest.fixture
def page(browser_page: Page, server: Any) -> Page:
    browser_page.goto(server.url + '/')
    return browser_page


def test_page_runs_under_a_strict_content_security_policy(browser_page: Page, server: Any) -> None:
    """No inline script anywhere: the app boots, themes itself and streams under `script-src 'self'`."""
    policy = (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' blob: data:"
    )

    def with_policy(route: Any) -> None:
        if route.request.resource_type != 'document':
            route.continue_()
            return
        response = route.fetch()
        route.fulfill(response=response, headers={**response.headers, 'content-security-policy': policy})

    page = browser_page
    page.route('**/*', with_policy)
    page.add_init_script(
        """window.__violations = []
        document.addEventListener('securitypolicyviolation', (e) => {
            window.__violations.push(e.violatedDirective)
        })"""
    )
    page.goto(f'{server.url}/agents/{SUPPORT}')
    send(page, 'Hello')
    expect(last_answer(page)).to_have_attribute('aria-busy', 'false')
    expect(last_answer(page)).to_contain_text('Demo reply')
    assert page.evaluate('() => window.__violations') == []
    assert page.evaluate('() => [...document.scripts].every((s) => s.src !== "")')
    assert page.evaluate('() => document.documentElement.dataset.theme') == 'system'
    # Client routes fall back to index.html, revalidated on every load.
    response = httpx.get(server.url + '/agents/anything/c/deep-link')
    assert response.status_code == 200
    assert response.headers['cache-control'] == 'no-cache'
    assert '<div id="root">' in response.text
    assert problems(page) == []


def test_agents_playground_stream_tools_reload(page: Page, server: Any) -> None:
    # The agents page: a card per demo agent, the footer counts them.
    expect(page.get_by_test_id('agent-card')).to_have_count(9)
    expect(page.get_by_test_id('sidebar-footer')).to_contain_text('9 agents')
    support = page.get_by_test_id('agent-card').filter(has_text='support_agent')
    expect(support).to_contain_text('lookup_order')
    expect(support).to_contain_text('demo model')
    shoot(page, 'agents')

    # Open its playground from the card.
    support.get_by_role('link', name='support_agent', exact=True).click()
    expect(page).to_have_url(re.compile(rf'/agents/{re.escape(SUPPORT)}$'))
    expect(page.get_by_test_id('playground-empty')).to_be_visible()
    shoot(page, 'playground-empty')

    # Send: the answer streams in (text on screen while the run is still going), then settles.
    send(page, 'Where is my order A-1001? use all tools')
    expect(page.get_by_test_id('user-message')).to_contain_text('Where is my order A-1001?')
    page.wait_for_function(
        """() => [...document.querySelectorAll('[data-testid="assistant-message"][aria-busy="true"]')]
              .some((m) => (m.querySelector('.prose-synapse')?.textContent ?? '').length > 0)""",
        polling='raf',
    )
    expect(last_answer(page)).to_have_attribute('aria-busy', 'false')
    expect(last_answer(page)).to_contain_text("Here's what I found")
    expect(page).to_have_url(re.compile(rf'/agents/{re.escape(SUPPORT)}/c/[0-9a-f-]{{36}}$'))

    # Tool cards: three, all successful; expanded, arguments and result in the JSON viewer.
    cards = page.get_by_test_id('tool-card')
    expect(cards).to_have_count(3)
    for index in range(3):
        expect(cards.nth(index)).to_have_attribute('data-status', 'success')
    cards.first.get_by_role('button', name=re.compile('lookup_order')).click()
    expect(cards.first).to_contain_text('Arguments')
    expect(cards.first).to_contain_text('"A-1001"')
    expect(cards.first).to_contain_text('"shipped"')
    # Tokens, cost and duration under the answer, running totals in the header.
    expect(last_answer(page).get_by_test_id('message-meta')).to_contain_text(re.compile(r'\d'))
    expect(page.get_by_test_id('conversation-totals')).to_contain_text('3 tools')
    shoot(page, 'playground-tools')

    # A reload replays the same conversation from the store.
    url = page.url
    page.reload()
    expect(page).to_have_url(url)
    expect(page.get_by_test_id('user-message')).to_contain_text('Where is my order A-1001?')
    expect(page.get_by_test_id('tool-card')).to_have_count(3)
    expect(last_answer(page)).to_contain_text("Here's what I found")

    # A second turn continues the same conversation.
    send(page, 'what did I say before?')
    expect(page.get_by_test_id('user-message')).to_have_count(2)
    expect(last_answer(page)).to_have_attribute('aria-busy', 'false')
    expect(last_answer(page)).to_contain_text('Where is my order A-1001?')
    assert page.url == url

    # New conversation: an empty thread; the old one is still in the sidebar.
    page.get_by_role('button', name='New conversation').click()
    expect(page).to_have_url(re.compile(rf'/agents/{re.escape(SUPPORT)}$'))
    expect(page.get_by_test_id('playground-empty')).to_be_visible()
    sidebar = page.get_by_role('complementary', name='Sidebar')
    sidebar.get_by_role('link', name=re.compile('Where is my order A-1001')).click()
    expect(page).to_have_url(url)
    expect(page.get_by_test_id('user-message')).to_have_count(2)

    # Clear conversation, after a confirmation: gone from the store, back to an empty playground.
    page.get_by_role('button', name='Clear conversation').click()
    page.get_by_role('alertdialog').get_by_role('button', name='Clear conversation').click()
    expect(page).to_have_url(re.compile(rf'/agents/{re.escape(SUPPORT)}$'))
    expect(page.get_by_test_id('playground-empty')).to_be_visible()
    expect(sidebar.get_by_text('No conversations yet.')).to_be_visible()
    conversation_id = url.rsplit('/', 1)[1]
    assert httpx.get(f'{server.url}/api/conversations/{conversation_id}').status_code == 404
    assert problems(page) == []


def test_raising_agent_shows_an_error_card(page: Page, server: Any) -> None:
    page.goto(f'{server.url}/agents/{FLAKY}')
    send(page, 'How many KB-87 keyboards are in stock?')
    card = page.get_by_test_id('error-card')
    expect(card).to_be_visible()
    expect(card).to_contain_text('RuntimeError')
    expect(card).to_contain_text('inventory service unreachable')
    expect(card).to_have_attribute('data-recoverable', 'false')
    expect(page.get_by_test_id('tool-card')).to_have_attribute('data-status', 'error')
    # The traceback is there, folded.
    expect(card.get_by_test_id('traceback')).to_have_count(0)
    card.get_by_role('button', name='Traceback').click()
    expect(card.get_by_test_id('traceback')).to_contain_text('Traceback (most recent call last)')
    # Library frames (pydantic-ai, Synapse: the demo agent is Synapse's own) are folded.
    expect(card.get_by_test_id('folded-frames').first).to_contain_text('library frames')
    shoot(page, 'playground-error')

    # A provider error is softer (recoverable), in the same thread.
    send(page, 'rate limit please')
    expect(page.get_by_test_id('error-card')).to_have_count(2)
    expect(page.get_by_test_id('error-card').last).to_have_attribute('data-recoverable', 'true')
    expect(page.get_by_test_id('error-card').last).to_contain_text('ModelRateLimitError')

    # History marks the conversation as failed; the sidebar shows its error dot.
    expect(page.get_by_role('img', name='Has an error').first).to_be_visible()


def test_other_answer_kinds(page: Page, server: Any) -> None:
    page.goto(f'{server.url}/agents/{DEMO}.structured-agent')
    send(page, 'Hi, I am Ada (ada@example.com). Order A-1001 arrived broken, refund it urgently.')
    expect(page.get_by_test_id('structured-output')).to_contain_text('"billing"')

    page.goto(f'{server.url}/agents/{DEMO}.fallback-agent')
    send(page, 'Hello there')
    expect(page.get_by_test_id('notice')).to_contain_text('Fell back')

    page.goto(f'{server.url}/agents/{DEMO}.research-agent')
    send(page, 'search the web for pydantic-ai streaming')
    native = page.get_by_test_id('tool-card')
    expect(native).to_have_attribute('data-kind', 'native')
    expect(native).to_have_attribute('data-status', 'success')

    page.goto(f'{server.url}/agents/{DEMO}.summariser')
    expect(page.get_by_test_id('stateless-badge')).to_be_visible()
    send(page, 'Summarise: Synapse streams every token of a pydantic-ai agent to the browser.')
    expect(last_answer(page)).to_have_attribute('aria-busy', 'false')
    page.get_by_test_id('thinking').get_by_role('button').click()
    expect(page.get_by_test_id('thinking')).to_contain_text('The user wrote')
    shoot(page, 'playground-stateless')
    assert problems(page) == []


def test_info_panel_tabs_live_in_the_url(page: Page, server: Any) -> None:
    page.goto(f'{server.url}/agents/{SUPPORT}')
    page.get_by_role('button', name='Agent info').click()
    expect(page).to_have_url(re.compile(r'\?info=config$'))
    panel = page.get_by_test_id('info-panel')
    expect(panel).to_contain_text('synapse-demo')
    page.get_by_role('tab', name='Prompt').click()
    expect(page).to_have_url(re.compile(r'\?info=prompt$'))
    expect(panel).to_contain_text('You are the support assistant')
    page.get_by_role('tab', name=re.compile('Tools')).click()
    expect(page).to_have_url(re.compile(r'\?info=tools$'))
    tool = panel.get_by_test_id('info-tool').filter(has_text='create_ticket')
    expect(tool.get_by_test_id('param-row').first).to_contain_text('subject')
    expect(tool).to_contain_text('"low" | "normal" | "high"')
    tool.get_by_role('button', name='Raw schema').click()
    expect(tool.get_by_test_id('json-view')).to_contain_text('"properties"')
    shoot(page, 'playground-info-tools')

    # The tab survives a reload; the keyboard moves between tabs.
    page.reload()
    expect(page.get_by_role('tab', name=re.compile('Tools'))).to_have_attribute('aria-selected', 'true')
    page.get_by_role('tab', name=re.compile('Tools')).focus()
    page.keyboard.press('ArrowLeft')
    expect(page).to_have_url(re.compile(r'\?info=prompt$'))
    page.get_by_role('button', name='Close agent info').click()
    expect(page.get_by_test_id('info-panel')).to_have_count(0)

    # A deps agent lists its dynamic instructions.
    page.goto(f'{server.url}/agents/{DEMO}.deps-agent?info=prompt')
    expect(page.get_by_test_id('info-panel')).to_contain_text('account_instructions')


def test_history_search_filter_rename_delete(page: Page, server: Any) -> None:
    for slug, text in (
        (SUPPORT, 'Where is order A-1001?'),
        (FLAKY, 'Is KB-87 in stock?'),
        (SUPPORT, 'Hello'),
    ):
        page.goto(f'{server.url}/agents/{slug}')
        send(page, text)
        expect(last_answer(page)).to_have_attribute('aria-busy', 'false')

    page.get_by_role('link', name='History').click()
    rows = page.get_by_test_id('history-row')
    expect(rows).to_have_count(3)
    expect(page.get_by_test_id('history-count')).to_have_text('1\u20133 of 3')
    shoot(page, 'history')

    # Search (debounced into the URL).
    page.get_by_role('searchbox', name='Search conversations').fill('A-1001')
    expect(page).to_have_url(re.compile(r'search=A-1001'))
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text('Where is order A-1001?')
    page.get_by_role('searchbox', name='Search conversations').fill('')
    expect(rows).to_have_count(3)

    # Filters: status, then agents; the active-filter count follows.
    page.get_by_role('radio', name='Error').click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text('flaky_agent')
    expect(page.get_by_test_id('clear-filters')).to_contain_text('1')
    page.get_by_role('radio', name='All').click()
    page.get_by_role('button', name=re.compile('^Agents')).click()
    page.get_by_role('checkbox', name='support_agent').check()
    page.keyboard.press('Escape')
    expect(rows).to_have_count(2)
    expect(page).to_have_url(re.compile(rf'agents={re.escape(SUPPORT)}'))
    page.get_by_role('button', name=re.compile('^Tools')).click()
    page.get_by_role('checkbox', name='lookup_order').check()
    page.keyboard.press('Escape')
    expect(page.get_by_test_id('clear-filters')).to_contain_text('2')

    # A reload keeps search, filters, sort and page.
    url = page.url
    page.reload()
    assert page.url == url
    expect(page.get_by_test_id('clear-filters')).to_contain_text('2')
    page.get_by_test_id('clear-filters').click()
    expect(rows).to_have_count(3)

    # Rename through the row menu's modal.
    row = rows.filter(has_text='Hello')
    row.get_by_role('button', name=re.compile('^Actions for')).click()
    page.get_by_role('menuitem', name='Rename').click()
    dialog = page.get_by_role('dialog', name='Rename conversation')
    dialog.get_by_role('textbox', name='Title').fill('Greeting, renamed')
    dialog.get_by_role('button', name='Save').click()
    expect(rows.filter(has_text='Greeting, renamed')).to_have_count(1)
    expect(page.get_by_role('complementary', name='Sidebar')).to_contain_text('Greeting, renamed')

    # Delete, after confirming.
    rows.filter(has_text='Greeting, renamed').get_by_role('button', name=re.compile('^Actions for')).click()
    page.get_by_role('menuitem', name='Delete').click()
    confirm = page.get_by_role('alertdialog')
    expect(confirm).to_contain_text('cannot be undone')
    confirm.get_by_role('button', name='Delete').click()
    expect(rows).to_have_count(2)
    expect(page.get_by_text('Greeting, renamed')).to_have_count(0)

    # Open a conversation from its row.
    rows.filter(has_text='flaky_agent').get_by_role('link').click()
    expect(page).to_have_url(re.compile(rf'/agents/{re.escape(FLAKY)}/c/'))
    expect(page.get_by_test_id('error-card')).to_be_visible()
    assert problems(page) == []


def test_attachment_round_trip(page: Page, server: Any) -> None:
    page.goto(f'{server.url}/agents/{SUPPORT}')
    pending = page.get_by_role('form', name='Message composer').get_by_test_id('attachment')

    # By the picker...
    page.get_by_test_id('file-input').set_input_files(
        files=[FilePayload(name='photo.png', mimeType='image/png', buffer=png())]
    )
    expect(pending).to_contain_text('photo.png')
    # ...and by drag and drop onto the playground.
    page.evaluate(
        """() => {
            const data = new DataTransfer()
            const text = 'Invoice 42: 129.90 EUR, paid.'
            data.items.add(new File([text], 'invoice-note.txt', { type: 'text/plain' }))
            const target = document.querySelector('section[aria-label="Playground"]')
            for (const type of ['dragenter', 'dragover', 'drop']) {
                const init = { bubbles: true, cancelable: true, dataTransfer: data }
                target.dispatchEvent(new DragEvent(type, init))
            }
        }"""
    )
    expect(pending).to_have_count(2)
    send(page, 'Here is my invoice note')
    expect(pending).to_have_count(0)
    bubble = page.get_by_test_id('user-message')
    expect(bubble.get_by_test_id('attachment')).to_have_count(2)
    expect(last_answer(page)).to_have_attribute('aria-busy', 'false')
    expect(last_answer(page)).to_contain_text('You attached 2 files')

    # The replay shows the stored files: a thumbnail for the image, a chip for the note,
    # and each link serves the bytes that were sent.
    page.reload()
    stored = page.get_by_test_id('user-message').get_by_test_id('attachment')
    expect(stored).to_have_count(2)
    thumbnail = stored.locator('img')
    expect(thumbnail).to_have_attribute('alt', 'photo.png')
    page.wait_for_function(
        '() => document.querySelector("[data-testid=user-message] img")?.naturalWidth === 24'
    )
    expect(stored.filter(has_text='invoice-note.txt')).to_be_visible()
    note = stored.filter(has_text='invoice-note.txt').locator('a').get_attribute('href')
    image = stored.locator('a:has(img)').get_attribute('href')
    assert note and note.startswith('/api/attachments/')
    assert httpx.get(server.url + note).text == 'Invoice 42: 129.90 EUR, paid.'
    assert image and httpx.get(server.url + image).content == png()
    shoot(page, 'playground-attachments')


def test_keyboard_and_sidebar(page: Page, server: Any) -> None:
    page.goto(f'{server.url}/agents/{SUPPORT}')
    box = composer(page)
    expect(box).to_be_focused()
    box.type('first line')
    box.press('Shift+Enter')
    box.type('second line')
    assert box.input_value() == 'first line\nsecond line'
    box.fill('')
    # Ctrl+I toggles the info panel, Ctrl+B the sidebar.
    page.keyboard.press('Control+i')
    expect(page.get_by_test_id('info-panel')).to_be_visible()
    page.keyboard.press('Control+b')
    expect(page.get_by_role('button', name='Expand sidebar')).to_be_visible()
    shoot(page, 'playground-sidebar-collapsed')
    page.reload()
    expect(page.get_by_role('button', name='Expand sidebar')).to_be_visible()
    page.get_by_role('button', name='Expand sidebar').click()

    # The theme menu persists the choice.
    page.get_by_role('button', name=re.compile('^Theme')).click()
    page.get_by_role('menuitemradio', name='light').click()
    assert page.evaluate("() => localStorage.getItem('synapse.theme')") == 'light'
    page.reload()
    assert not page.evaluate("() => document.documentElement.classList.contains('dark')")


def test_menus_and_dialogs_from_the_keyboard(page: Page, server: Any) -> None:
    page.goto(f'{server.url}/agents/{SUPPORT}')
    send(page, 'Hello')
    expect(last_answer(page)).to_have_attribute('aria-busy', 'false')
    page.goto(f'{server.url}/history')
    trigger = page.get_by_test_id('history-row').get_by_role('button', name=re.compile('^Actions for'))
    trigger.focus()
    page.keyboard.press('Enter')
    expect(page.get_by_role('menuitem', name='Open in playground')).to_be_focused()
    page.keyboard.press('ArrowDown')
    expect(page.get_by_role('menuitem', name='Rename')).to_be_focused()
    page.keyboard.press('End')
    expect(page.get_by_role('menuitem', name='Delete')).to_be_focused()
    page.keyboard.press('Escape')
    expect(page.get_by_role('menu')).to_be_hidden()
    expect(trigger).to_be_focused()
    # Arrow down opens the menu too; Enter on an item runs it; Esc closes the dialog it opened.
    page.keyboard.press('ArrowDown')
    expect(page.get_by_role('menuitem', name='Open in playground')).to_be_focused()
    page.keyboard.press('ArrowDown')
    page.keyboard.press('Enter')
    dialog = page.get_by_role('dialog', name='Rename conversation')
    expect(dialog.get_by_role('textbox', name='Title')).to_be_focused()
    page.keyboard.press('Escape')
    expect(dialog).to_be_hidden()
    # The composer's shortcuts: / focuses it from anywhere in the playground.
    page.goto(f'{server.url}/agents/{SUPPORT}')
    page.get_by_role('button', name='New conversation').focus()
    page.keyboard.press('/')
    expect(composer(page)).to_be_focused()


def test_stop_cancels_the_run_on_the_server(page: Page, server: Any) -> None:
    page.goto(f'{server.url}/agents/{SUPPORT}')
    send(page, 'Hello, please tell me everything you can do')
    page.wait_for_function(
        """() => [...document.querySelectorAll('[data-testid="assistant-message"][aria-busy="true"]')]
              .some((m) => (m.querySelector('.prose-synapse')?.textContent ?? '').length > 0)""",
        polling='raf',
    )
    page.keyboard.press('Escape')
    expect(last_answer(page).get_by_test_id('message-meta')).to_contain_text('stopped')
    expect(page.get_by_role('button', name='Send (Enter)')).to_be_visible()
    conversation_id = page.url.rsplit('/', 1)[1]

    def stored_status() -> str:
        thread = httpx.get(f'{server.url}/api/conversations/{conversation_id}').json()
        return str([m for m in thread['messages'] if m['role'] == 'assistant'][-1]['status'])

    deadline = time.monotonic() + 10
    while stored_status() != 'interrupted' and time.monotonic() < deadline:
        time.sleep(0.1)
    assert stored_status() == 'interrupted'
    # The replay says so too.
    page.reload()
    expect(last_answer(page).get_by_test_id('message-meta')).to_contain_text('stopped')


HOST_APP = """
from fastapi import FastAPI

import synapse_agents

app = FastAPI()


@app.get('/')
def home() -> dict[str, str]:
    return {'app': 'the host application'}


synapse_agents.mount(app, '/synapse', demo=True)
"""


@pytest.fixture
def mounted(isolated_env: Path) -> Iterator[str]:
    """A host FastAPI app with Synapse mounted at /synapse, under uvicorn."""
    (isolated_env / 'host.py').write_text(HOST_APP)
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        port = sock.getsockname()[1]
    log = (isolated_env / 'host.log').open('w')
    process = subprocess.Popen(
        [sys.executable, '-m', 'uvicorn', 'host:app', '--port', str(port), '--log-level', 'warning'],
        cwd=isolated_env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f'http://127.0.0.1:{port}'
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert process.poll() is None, (isolated_env / 'host.log').read_text()
            try:
                if httpx.get(url + '/synapse/api/health', timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(10)
        log.close()


def test_dashboard_mounted_under_a_prefix(browser_page: Page, mounted: str) -> None:
    page = browser_page
    assert httpx.get(mounted + '/').json() == {'app': 'the host application'}
    page.goto(mounted + '/synapse/')
    expect(page.get_by_test_id('agent-card')).to_have_count(9)
    page.get_by_test_id('agent-card').filter(has_text='support_agent').get_by_role(
        'link', name='support_agent', exact=True
    ).click()
    expect(page).to_have_url(re.compile(rf'/synapse/agents/{re.escape(SUPPORT)}$'))
    page.get_by_test_id('file-input').set_input_files(
        files=[FilePayload(name='note.txt', mimeType='text/plain', buffer=b'mounted')]
    )
    send(page, 'Where is my order A-1001? use all tools')
    expect(page).to_have_url(re.compile(rf'/synapse/agents/{re.escape(SUPPORT)}/c/[0-9a-f-]{{36}}$'))
    expect(last_answer(page)).to_have_attribute('aria-busy', 'false')
    expect(page.get_by_test_id('tool-card')).to_have_count(3)
    page.reload()
    link = page.get_by_test_id('user-message').get_by_test_id('attachment').locator('a')
    href = link.get_attribute('href')
    assert href and href.startswith('/synapse/api/attachments/')
    assert httpx.get(mounted + href).text == 'mounted'
    page.get_by_role('link', name='History').click()
    expect(page).to_have_url(mounted + '/synapse/history')
    expect(page.get_by_test_id('history-row')).to_have_count(1)
    assert problems(page) == []
