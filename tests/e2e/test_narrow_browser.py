"""The dashboard on a phone (390x844) and a tablet (768x1024): Debian's Chromium against a real
`synapse serve --demo` whose store holds priced ledger rows and an overrun, with registry entries,
a standing agent that ran, and a few conversations made through the API.

On both: nothing makes the page scroll sideways (measured once the layout settled), neither the
page nor a box inside it but a code block or a JSON tree; the sidebar is folded by default (icons
on the tablet, a top bar on the phone) and opens as a drawer that Esc, its backdrop and a link
close, with the focus going into it and back; the composer stays wide; the info panel is a
full-screen sheet on the phone and never lies under the sidebar; History rows are cards whose date
and cost are on screen. At 1280x800 the sidebar is still docked and whole. Screenshots go to
test-artifacts/screenshots/narrow-<page>-<width>.png (not committed).
"""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, ViewportSize, expect

from browser_helpers import DESKTOP, PHONE, SCREENSHOTS, problems, viewport
from synapse_agents.accounting.tables import LlmCall, SpendingOverrun
from synapse_agents.store import Store, upgrade

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DEMO = 'synapse_agents.demo.agents'
SUPPORT = f'{DEMO}.support-agent'
FLAKY = f'{DEMO}.flaky-agent'
TABLET: ViewportSize = {'width': 768, 'height': 1024}
NOW = datetime.now(UTC).replace(microsecond=0)


def seed(home: Path) -> None:
    """Priced and unpriced ledger rows under long agent keys, and one overrun, before the server starts."""
    home.mkdir(parents=True, exist_ok=True)
    store = Store.open(f'sqlite:///{home / "synapse.db"}', home / 'attachments')
    upgrade(store.engine)
    with store.write() as session:
        for days, agent, model, cost in (
            (2, SUPPORT, 'gpt-5-mini', Decimal('0.0123')),
            (1, FLAKY, 'gpt-5', Decimal('0.25')),
            (1, SUPPORT, 'local-llama', None),
        ):
            session.add(
                LlmCall(
                    module='chat',
                    agent_key=agent,
                    provider='openai',
                    model=model,
                    input_tokens=1200,
                    output_tokens=300,
                    cost=cost,
                    currency=None if cost is None else 'USD',
                    cost_reference=cost,
                    reference_currency=None if cost is None else 'USD',
                    price_source=None if cost is None else 'genai-prices',
                    user='user:42',
                    tenant='org:acme-logistics-international',
                    created_at=NOW - timedelta(days=days),
                )
            )
        session.add(
            SpendingOverrun(
                scope='tenant',
                scope_id='org:acme-logistics-international',
                period='calendar_day',
                limit_amount=Decimal('5'),
                consumed=Decimal('4.9'),
                estimated=Decimal('0.35'),
                overrun=Decimal('0.25'),
                currency='USD',
                user='user:42',
                tenant='org:acme-logistics-international',
                agent_key=SUPPORT,
                created_at=NOW - timedelta(hours=1),
            )
        )
    store.close()


def made(response: httpx.Response) -> None:
    assert response.status_code in (200, 201, 202), response.text


def fill(url: str) -> None:
    """Registry entries, a limit, a standing agent and its finished run, three conversations."""
    for kind, body in (
        (
            'providers',
            {
                'key': 'openai-main',
                'kind': 'openai',
                'name': 'OpenAI, main account',
                'base_url': 'https://api.openai.example.com/v1/organisations/acme-logistics',
            },
        ),
        (
            'providers',
            {
                'key': 'local-llm',
                'kind': 'openai-compatible',
                'name': 'Local LLM',
                'base_url': 'http://127.0.0.1:11434/v1',
                'enabled': False,
            },
        ),
        (
            'models',
            {
                'provider_key': 'local-llm',
                'name': 'llama3.2',
                'label': 'Llama 3.2 on the workstation under the desk',
            },
        ),
        (
            'presets',
            {
                'key': 'calm-demo',
                'name': 'Calm demo preset',
                'model': 'local-llm:llama3.2',
                'temperature': 0.2,
                'max_tokens': 800,
            },
        ),
        (
            'tones',
            {
                'key': 'formal',
                'name': 'Formal',
                'emoji': '🎩',
                'instructions': ' '.join(['Answer formally, in complete sentences, and politely.'] * 4),
            },
        ),
        (
            'agents',
            {
                'key': 'helper',
                'name': 'Helpful configured agent',
                'preset_key': 'calm-demo',
                'tone_key': 'formal',
                'instructions': 'Help.',
            },
        ),
    ):
        made(httpx.post(f'{url}/api/registry/{kind}', json=body))
    made(
        httpx.post(
            f'{url}/api/limits',
            json={'scope': 'agent', 'scope_id': SUPPORT, 'period': 'calendar_month', 'amount': '120.50'},
        )
    )
    standing = httpx.post(
        f'{url}/api/standing-agents',
        json={
            'name': 'Nightly order digest for the whole support team',
            'agent': SUPPORT,
            'instruction': 'Where is my order A-1001?',
            'cron': '30 2 * * *',
            'timezone': 'America/Argentina/Buenos_Aires',
            'events': ['order.created', 'order.refund_requested'],
            'debounce_seconds': 600,
            'tenant': 'org:acme-logistics-international',
        },
    )
    made(standing)
    made(httpx.post(f'{url}/api/standing-agents/{standing.json()["id"]}/run'))
    for slug, message in (
        (
            SUPPORT,
            'Where is my order A-1001? It should have come on Monday; the tracking page says nothing at all',
        ),
        (SUPPORT, 'Hello'),
        (FLAKY, 'How many KB-87 keyboards are in stock?'),
    ):
        made(httpx.post(f'{url}/api/agents/{slug}/chat', data={'message': message}, timeout=30))


@pytest.fixture
def server(live_server: Any) -> Any:
    seed(Path(os.environ['SYNAPSE_HOME']))
    started = live_server(['--demo'])
    fill(started.url)
    return started


def shoot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f'narrow-{name}-{viewport(page)["width"]}.png'))


SIDEWAYS = """() => {
    // What would scroll sideways: the page itself, a box inside it (a code block or a JSON tree
    // may: they scroll their own long lines), or an element reaching past the window's right edge
    // that no box of its own clips (a truncated line does).
    const width = window.innerWidth
    const allowed = (el) => el.closest('pre, [data-testid="json-view"]') !== null
    const cut = (el) => {
        for (let node = el; node; node = node.parentElement) {
            if (getComputedStyle(node).textOverflow === 'ellipsis') return true
        }
        return false
    }
    const all = [...document.body.querySelectorAll('*')]
    const scrollers = all.filter((el) => {
        const overflow = getComputedStyle(el).overflowX
        const scrolls = overflow === 'auto' || overflow === 'scroll'
        return scrolls && el.scrollWidth > el.clientWidth + 1 && !allowed(el)
    })
    const past = all.filter((el) => {
        const box = el.getBoundingClientRect()
        return box.width > 0 && box.right > width + 1 && !allowed(el) && !cut(el)
    })
    const name = (el) => el.outerHTML.slice(0, 140)
    return {
        page: [document.documentElement.scrollWidth, width],
        scrollers: scrollers.slice(0, 4).map(name),
        past: past.slice(0, 4).map(name),
    }
}"""


def assert_fits(page: Page) -> None:
    """Nothing scrolls sideways, once animations and late content settled (polled for 3 s)."""
    found = page.evaluate(SIDEWAYS)
    for _ in range(30):
        if found['page'][0] <= found['page'][1] and not found['scrollers'] and not found['past']:
            return
        page.wait_for_timeout(100)
        found = page.evaluate(SIDEWAYS)
    raise AssertionError(f'sideways at {page.viewport_size}: {found}')


def inside(page: Page, locator: Any) -> None:
    """The element is on screen, whole, within the window's width."""
    expect(locator).to_be_visible()
    box = locator.bounding_box()
    width = viewport(page)['width']
    assert box and box['x'] >= 0 and box['x'] + box['width'] <= width + 0.5, (box, width)


def focus_in_drawer(page: Page) -> bool:
    return bool(
        page.evaluate('() => document.activeElement?.closest(\'[data-testid="sidebar-drawer"]\') !== null')
    )


def focused_label(page: Page) -> str | None:
    label: str | None = page.evaluate("() => document.activeElement?.getAttribute('aria-label') ?? null")
    return label


def check_drawer(page: Page, phone: bool) -> None:
    """Folded by default; the menu (phone) or expand (tablet) button opens the drawer over the page."""
    sidebar = page.get_by_role('complementary', name='Sidebar')
    drawer = page.get_by_role('dialog', name='Navigation')
    expect(drawer).to_be_hidden()
    if phone:
        expect(sidebar).to_have_count(0)
        opener = page.get_by_test_id('top-bar').get_by_role('button', name='Open sidebar')
        expect(opener).to_have_attribute('aria-expanded', 'false')
    else:
        expect(sidebar).to_be_visible()
        box = sidebar.bounding_box()
        assert box and box['width'] <= 64, box
        expect(sidebar.get_by_role('link', name='History')).to_have_text('')
        opener = sidebar.get_by_role('button', name='Expand sidebar')
    opener.click()
    expect(drawer).to_be_visible()
    expect(drawer.get_by_role('link', name='History')).to_have_text('History')
    expect(drawer.get_by_role('region', name='Recent conversations').get_by_role('link')).not_to_have_count(0)
    assert focus_in_drawer(page)
    # Over the content, from the left edge (once it slid in), the backdrop beside it.
    drawer.evaluate('(el) => Promise.all(el.getAnimations().map((animation) => animation.finished))')
    box = drawer.bounding_box()
    assert box and box['x'] == 0 and box['height'] == viewport(page)['height'], box
    shoot(page, 'drawer')
    page.keyboard.press('Escape')
    expect(drawer).to_be_hidden()
    expect(opener).to_be_focused()

    opener.click()
    expect(drawer).to_be_visible()
    page.mouse.click(viewport(page)['width'] - 10, viewport(page)['height'] // 2)
    expect(drawer).to_be_hidden()

    opener.click()
    drawer.get_by_role('link', name='History').click()
    expect(page).to_have_url(re.compile(r'/history$'))
    expect(drawer).to_be_hidden()
    expect(opener).to_be_focused()


def check_playground(page: Page, server: Any, phone: bool) -> None:
    page.goto(f'{server.url}/agents/{SUPPORT}')
    box = page.get_by_role('textbox', name='Message').bounding_box()
    assert box and box['width'] >= (300 if phone else 600), box
    page.get_by_role('textbox', name='Message').fill('Where is my order A-1001? use all tools')
    page.get_by_role('textbox', name='Message').press('Enter')
    answer = page.get_by_test_id('assistant-message').last
    expect(answer).to_have_attribute('aria-busy', 'false', timeout=20_000)
    tools = answer.get_by_test_id('tool-card')
    expect(tools).to_have_count(3)
    tools.first.get_by_role('button').click()
    expect(tools.first.get_by_test_id('json-view').first).to_be_visible()
    thinking = answer.get_by_test_id('thinking').first
    thinking.get_by_role('button').click()
    expect(thinking).to_contain_text('The user wrote')
    assert_fits(page)
    for card in (tools.first, thinking, answer.get_by_test_id('message-meta')):
        inside(page, card)
    box = page.get_by_role('textbox', name='Message').bounding_box()
    assert box and box['width'] >= (300 if phone else 600), box
    shoot(page, 'playground')

    # A raising agent: its error card and its unfolded traceback fit too.
    page.goto(f'{server.url}/agents/{FLAKY}')
    page.get_by_role('textbox', name='Message').fill('How many KB-87 keyboards are in stock?')
    page.get_by_role('textbox', name='Message').press('Enter')
    card = page.get_by_test_id('error-card').last
    expect(card).to_contain_text('inventory service unreachable', timeout=20_000)
    # The traceback unfolds (the card grows by its lines).
    folded = card.evaluate('(el) => el.getBoundingClientRect().height')
    card.get_by_role('button', name='Traceback').click()
    expect(card.get_by_text(re.compile('Traceback|File "'))).not_to_have_count(0)
    assert card.evaluate('(el) => el.getBoundingClientRect().height') > folded + 40
    assert_fits(page)
    inside(page, card)
    shoot(page, 'playground-error')


def check_info(page: Page, server: Any, phone: bool) -> None:
    page.goto(f'{server.url}/agents/{SUPPORT}')
    page.get_by_role('button', name='Agent info').click()
    panel = page.get_by_test_id('info-panel')
    expect(panel).to_contain_text('synapse-demo')
    box = panel.bounding_box()
    width, height = viewport(page)['width'], viewport(page)['height']
    assert box and box['x'] + box['width'] == width, box
    if phone:
        # A full-screen sheet: the whole window, the focus inside it.
        assert box['x'] == 0 and box['width'] == width and box['y'] == 0 and box['height'] == height, box
        assert page.evaluate('() => document.activeElement.closest(\'[data-testid="info-panel"]\') !== null')
    else:
        # Over the thread, right of the sidebar's icons, never under them.
        rail = page.get_by_role('complementary', name='Sidebar').bounding_box()
        assert rail and box['x'] >= rail['x'] + rail['width'], (box, rail)
    page.get_by_role('tab', name=re.compile('Tools')).click()
    expect(panel.get_by_test_id('info-tool').first).to_be_visible()
    assert_fits(page)
    shoot(page, 'info')
    page.get_by_role('button', name='Close agent info').click()
    expect(panel).to_have_count(0)
    if phone:
        expect(page.get_by_role('button', name='Agent info')).to_be_focused()


def check_history(page: Page, server: Any) -> None:
    page.goto(f'{server.url}/history')
    rows = page.get_by_test_id('history-row')
    # Three made through the API, the standing agent's run, two in this test's playground.
    expect(rows).to_have_count(6)
    # Cards: no column headers; each card's title, agent, tokens, cost and date on screen.
    expect(page.get_by_role('columnheader', name='Cost')).to_be_hidden()
    for index in range(rows.count()):
        row = rows.nth(index)
        for part in (
            row.get_by_role('link').first,
            row.get_by_test_id('history-agent'),
            row.get_by_test_id('history-tokens'),
            row.get_by_test_id('history-cost'),
            row.get_by_test_id('history-date'),
        ):
            inside(page, part)
        expect(row.get_by_test_id('history-tokens')).to_contain_text(re.compile(r'\d tokens$'))
        expect(row.get_by_test_id('history-date')).to_contain_text(str(NOW.year))
    # The long title wraps rather than being cut off.
    title = rows.get_by_role('link', name=re.compile('says nothing at all$'))
    inside(page, title)
    # The toolbar's filters wrap onto more lines instead of running off the edge.
    for name in ('Agents', 'Tools', 'Origin', 'Sort'):
        inside(page, page.get_by_role('search').get_by_role('button', name=re.compile(f'^{name}')))
    assert_fits(page)
    shoot(page, 'history')


def check_registry(page: Page, server: Any) -> None:
    for kind, count in (('providers', 2), ('tones', 1), ('models', 1)):
        page.goto(f'{server.url}/registry/{kind}')
        rows = page.get_by_test_id('registry-row')
        expect(rows).to_have_count(count)
        for index in range(count):
            inside(page, rows.nth(index))
            inside(page, rows.nth(index).get_by_role('button', name=re.compile('^Delete ')))
        inside(page, page.get_by_role('tab', name='Settings'))
        assert_fits(page)
        if kind == 'providers':
            local = page.locator('[data-testid="registry-row"][data-key="local-llm"]')
            expect(local).to_contain_text('disabled')
            shoot(page, 'registry')


def check_spend(page: Page, server: Any) -> None:
    page.goto(f'{server.url}/spend')
    expect(page.get_by_test_id('spend-bar')).not_to_have_count(0)
    totals = page.get_by_test_id('spend-totals')
    inside(page, totals.get_by_test_id('spend-cost'))
    for item in page.get_by_test_id('spend-legend').get_by_role('listitem').all():
        inside(page, item)
    assert_fits(page)
    shoot(page, 'spend')
    page.get_by_role('tab', name='Limits').click()
    inside(page, page.get_by_test_id('limit-row').first)
    assert_fits(page)
    page.get_by_role('tab', name='Overruns').click()
    overrun = page.get_by_test_id('overrun-row')
    expect(overrun).to_have_count(1)
    inside(page, overrun.get_by_test_id('overrun-overrun'))
    assert_fits(page)
    shoot(page, 'spend-overruns')


def check_tasks(page: Page, server: Any) -> None:
    page.goto(f'{server.url}/tasks')
    card = page.get_by_test_id('standing-card')
    expect(card).to_have_count(1)
    expect(card.get_by_test_id('task-status').first).to_have_text('Succeeded', timeout=20_000)
    inside(page, card)
    assert_fits(page)
    shoot(page, 'tasks')
    card.get_by_test_id('run-row').first.click()
    expect(page.get_by_test_id('task-detail')).to_have_attribute('data-status', 'succeeded')
    assert_fits(page)
    shoot(page, 'tasks-run')


@pytest.mark.parametrize('size', [PHONE, TABLET], ids=['phone-390', 'tablet-768'])
def test_every_page_fits_a_narrow_window(browser_page: Page, server: Any, size: ViewportSize) -> None:
    page = browser_page
    phone = size is PHONE
    page.set_viewport_size(size)
    page.goto(f'{server.url}/')
    # The eight demo agents and the configured one.
    expect(page.get_by_test_id('agent-card')).to_have_count(10)
    assert_fits(page)
    for card in page.get_by_test_id('agent-card').all():
        inside(page, card)
    shoot(page, 'agents')
    check_drawer(page, phone)
    check_playground(page, server, phone)
    check_info(page, server, phone)
    check_history(page, server)
    check_registry(page, server)
    check_spend(page, server)
    check_tasks(page, server)
    assert problems(page) == []


def test_a_desktop_keeps_the_whole_sidebar_and_the_table(browser_page: Page, server: Any) -> None:
    page = browser_page
    page.set_viewport_size(DESKTOP)
    page.goto(f'{server.url}/history')
    sidebar = page.get_by_role('complementary', name='Sidebar')
    box = sidebar.bounding_box()
    assert box and box['width'] == 256, box
    expect(sidebar.get_by_role('button', name='Collapse sidebar')).to_have_attribute('aria-expanded', 'true')
    expect(sidebar.get_by_role('link', name='History')).to_have_text('History')
    expect(page.get_by_test_id('top-bar')).to_have_count(0)
    # History is still a table with its column headers.
    expect(page.get_by_role('columnheader', name='Cost')).to_be_visible()
    row = page.get_by_test_id('history-row').first
    cost, date = (
        row.get_by_test_id('history-cost').bounding_box(),
        row.get_by_test_id('history-date').bounding_box(),
    )
    assert cost and date and abs(cost['y'] - date['y']) < 2, (cost, date)
    shoot(page, 'history')
    # The info panel docks beside the thread.
    page.goto(f'{server.url}/agents/{SUPPORT}')
    page.get_by_role('button', name='Agent info').click()
    panel = page.get_by_test_id('info-panel').bounding_box()
    thread = page.get_by_role('region', name='Playground').bounding_box()
    assert panel and thread and panel['width'] == 380 and thread['x'] + thread['width'] <= panel['x'] + 0.5, (
        panel,
        thread,
    )
    shoot(page, 'info')
    assert problems(page) == []
