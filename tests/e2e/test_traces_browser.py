"""Traces end to end: Debian's Chromium against a real `synapse serve` on a fixture project whose
agents delegate three levels deep (tests/fixtures/traces_project: planner → its `research` tool →
researcher → its `check_facts` tool → checker), each on its own scripted `FunctionModel`.

A playground turn of planner → the answer → its Trace button → the tree in a sheet: planner,
research, researcher, check_facts, checker, nested (run depths 0, 1, 2) → a model call's request
and response → the Traces page lists the turn's root once (the nested runs are inside it, not
roots) → its trace page. At phone width (390 px) the Traces page and the trace page fit without
scrolling sideways. Screenshots at 1280x800 and 390x844, in both themes, go to
test-artifacts/screenshots/ (not committed).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from browser_helpers import DESKTOP, PHONE, assert_fits, problems, shoot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / 'tests' / 'fixtures' / 'traces_project'
AGENT = 'agents.delegation.planner'
MESSAGE = 'Plan the tides study'
ANSWER = 'Plan ready. Research done. Checked: the facts hold.'
TREE = [
    # (kind, name, indent level, run depth) in the order the timeline draws them
    ('run', 'planner', 0, '0'),
    ('model', 'research-model', 1, '0'),
    ('tool', 'research', 1, None),
    ('run', 'researcher', 2, '1'),
    ('model', 'check_facts-model', 3, '1'),
    ('tool', 'check_facts', 3, None),
    ('run', 'checker', 4, '2'),
    ('model', 'checker-model', 5, '2'),
    ('model', 'check_facts-model', 3, '1'),
    ('model', 'research-model', 1, '0'),
]


@pytest.fixture
def server(live_server: Any, isolated_env: Path) -> Any:
    shutil.copytree(PROJECT / 'agents', isolated_env / 'agents')
    return live_server(['agents'])


def timeline(scope: Any) -> list[tuple[str, str, int, str | None]]:
    """The timeline's rows as (kind, name, level, run depth), in the order drawn."""
    rows = scope.get_by_test_id('trace-node')
    return [
        (
            str(row.get_attribute('data-kind')),
            row.get_by_test_id('trace-node-name').inner_text(),
            int(row.get_attribute('data-level') or -1),
            row.get_attribute('data-depth') if row.get_attribute('data-kind') != 'tool' else None,
        )
        for row in rows.all()
    ]


def assert_tree(scope: Any) -> None:
    expect(scope.get_by_test_id('trace-node')).to_have_count(len(TREE))
    assert timeline(scope) == TREE
    # Each level is drawn further in: the names' left edges step right with the level.
    lefts: dict[int, float] = {}
    for row in scope.get_by_test_id('trace-node').all():
        box = row.get_by_test_id('trace-node-name').bounding_box()
        assert box is not None
        lefts.setdefault(int(row.get_attribute('data-level') or 0), box['x'])
    steps = [lefts[level + 1] - lefts[level] for level in range(5)]
    assert all(step > 8 for step in steps), lefts


def node(scope: Any, kind: str, name: str) -> Any:
    return scope.locator(f'[data-testid="trace-node"][data-kind="{kind}"]').filter(
        has=scope.page.get_by_test_id('trace-node-name').get_by_text(name, exact=True)
    )


def test_a_turn_trace_from_the_playground_to_the_traces_page(browser_page: Page, server: Any) -> None:
    page = browser_page
    page.set_viewport_size(DESKTOP)
    page.goto(f'{server.url}/agents/{AGENT}')
    composer = page.get_by_role('textbox', name='Message')
    composer.fill(MESSAGE)
    composer.press('Enter')
    answer = page.get_by_test_id('assistant-message').last
    expect(answer).to_have_attribute('aria-busy', 'false')
    expect(answer).to_contain_text(ANSWER)
    expect(page).to_have_url(re.compile(rf'/agents/{re.escape(AGENT)}/c/[0-9a-f-]{{36}}$'))
    conversation_id = page.url.rsplit('/', 1)[1]
    stored = httpx.get(f'{server.url}/api/conversations/{conversation_id}').json()
    reply = [m for m in stored['messages'] if m['role'] == 'assistant'][-1]

    # The Trace button: the turn's root, found by the assistant message, opens in a sheet.
    with page.expect_response(lambda r: '/api/traces?' in r.url) as lookup:
        answer.get_by_role('button', name='Trace of this turn').click()
    assert f'message_id={reply["id"]}' in lookup.value.url
    sheet = page.get_by_role('dialog', name='Trace of this turn')
    expect(sheet.get_by_test_id('trace-view')).to_be_visible()
    assert_tree(sheet)
    expect(sheet.get_by_test_id('trace-root-name')).to_have_text('planner')
    expect(sheet.get_by_test_id('trace-runs')).to_contain_text('3 (depth 2)')
    # The function models have no price: unpriced, never $0.
    expect(sheet.get_by_test_id('trace-total-cost')).to_have_text('unpriced')
    detail = sheet.get_by_test_id('node-detail')
    expect(detail.get_by_test_id('run-origin')).to_have_text('Code')
    root_id = detail.get_by_test_id('id-agent-run-id').inner_text()
    found = httpx.get(f'{server.url}/api/traces', params={'message_id': reply['id']}).json()['roots']
    assert [root['agent_run_id'] for root in found] == [root_id], found
    expect(detail.get_by_test_id('id-trace-id')).to_have_text(re.compile('^[0-9a-f]{32}$'))

    # The nested runs: checker was started by researcher's tool, itself started by planner's.
    node(sheet, 'run', 'checker').get_by_role('button', name='Agent run checker').click()
    expect(detail.get_by_test_id('run-origin')).to_have_text('Direct')
    expect(detail.get_by_test_id('run-depth')).to_have_text('2')
    expect(detail.get_by_test_id('run-output')).to_contain_text('Checked: the facts hold.')
    node(sheet, 'tool', 'check_facts').get_by_role('button', name='Tool call check_facts').click()
    expect(detail.get_by_test_id('tool-arguments')).to_contain_text('tides follow the moon')
    expect(detail.get_by_test_id('tool-result')).to_contain_text('Checked: the facts hold.')

    # A model call: what was sent and what came back, read from its debug log.
    with page.expect_response(lambda r: '/api/traces/calls/' in r.url) as read:
        node(sheet, 'model', 'checker-model').get_by_role('button', name='Model call checker-model').click()
    assert read.value.status == 200
    call = sheet.get_by_test_id('model-call')
    expect(call.get_by_test_id('call-model')).to_have_text('function:checker-model')
    expect(call.get_by_test_id('call-history').get_by_test_id('trace-message').first).to_contain_text(
        'Check: tides follow the moon'
    )
    expect(call.get_by_test_id('call-turns')).to_contain_text('Checked: the facts hold.')
    expect(call.get_by_test_id('call-tokens')).to_have_text(re.compile(r'^[1-9][\d,]* in · [1-9][\d,]* out$'))
    shoot(page, 'traces-sheet')
    sheet.get_by_role('button', name='Close').click()
    expect(sheet).to_be_hidden()

    # The Traces page: the turn is one root; researcher and checker are inside it, not roots.
    listed = httpx.get(f'{server.url}/api/traces').json()['roots']
    assert [(root['agent_name'], root['agent_run_id']) for root in listed] == [('planner', root_id)]
    page.get_by_role('navigation', name='Workspace').get_by_role('link', name='Traces').click()
    expect(page).to_have_url(f'{server.url}/traces')
    roots = page.get_by_test_id('trace-root')
    expect(roots).to_have_count(1)
    expect(roots.first.get_by_test_id('trace-root-agent')).to_have_text('planner')
    expect(roots.first.get_by_test_id('trace-origin')).to_have_text('Code')
    expect(roots.first.get_by_test_id('trace-root-cost')).to_have_text('unpriced')
    expect(roots.first.get_by_test_id('trace-root-calls')).to_have_text('2 model calls · 1 tool call')
    # Filters reach the server: no failed runs here, and only the planner by its slug (checker
    # ran, but only inside the planner's tree).
    page.get_by_label('Errors only').check()
    expect(page).to_have_url(re.compile(r'\?errors=true$'))
    expect(page.get_by_text('No trace matches')).to_be_visible()
    page.get_by_label('Errors only').uncheck()
    expect(roots).to_have_count(1)
    page.get_by_label('Agent').fill('agents.delegation.checker')
    expect(page).to_have_url(re.compile(r'\?agent=agents.delegation.checker$'))
    expect(page.get_by_text('No trace matches')).to_be_visible()
    page.get_by_label('Agent').fill(AGENT)
    expect(page).to_have_url(re.compile(rf'\?agent={re.escape(AGENT)}$'))
    expect(roots).to_have_count(1)
    shoot(page, 'traces')

    # Its trace page: the same tree; the selection is in the URL.
    roots.first.click()
    expect(page).to_have_url(f'{server.url}/traces/{root_id}')
    view = page.get_by_test_id('trace-page')
    expect(view.get_by_test_id('trace-view')).to_be_visible()
    assert_tree(view)
    node(view, 'model', 'research-model').last.get_by_role('button', name='Model call research-model').click()
    expect(page).to_have_url(re.compile(r'\?node=model%3A'))
    expect(view.get_by_test_id('call-history')).to_contain_text(MESSAGE)
    expect(view.get_by_test_id('call-turns')).to_contain_text(ANSWER)
    shoot(page, 'traces-run')
    assert problems(page) == [], problems(page)


def test_at_phone_width_nothing_scrolls_sideways(browser_page: Page, server: Any) -> None:
    reply = httpx.post(f'{server.url}/api/agents/{AGENT}/chat', data={'message': MESSAGE}, timeout=30)
    assert reply.status_code == 200 and '"type":"finish"' in reply.text, reply.text
    root_id = ''
    for _ in range(50):
        roots = httpx.get(f'{server.url}/api/traces').json()['roots']
        if roots:
            root_id = roots[0]['agent_run_id']
            break
        browser_page.wait_for_timeout(100)
    assert root_id, 'the turn left no trace'
    page = browser_page
    page.set_viewport_size(PHONE)
    page.goto(f'{server.url}/traces')
    # A docked sidebar folds to its icons; a phone layout without one has nothing to fold.
    fold = page.get_by_role('button', name='Collapse sidebar')
    if fold.count():
        fold.click()
    expect(page.get_by_test_id('trace-root')).to_have_count(1)
    assert_fits(page, '[data-testid="traces-page"]')
    shoot(page, 'traces-phone')

    page.get_by_test_id('trace-root').click()
    view = page.get_by_test_id('trace-page')
    expect(view.get_by_test_id('trace-node')).to_have_count(len(TREE))
    assert timeline(view) == TREE
    assert_fits(page, '[data-testid="trace-page"]')
    shoot(page, 'traces-run-phone')
    node(view, 'model', 'checker-model').get_by_role('button', name='Model call checker-model').click()
    expect(view.get_by_test_id('call-turns')).to_contain_text('Checked: the facts hold.')
    assert_fits(page, '[data-testid="trace-page"]')
    shoot(page, 'traces-call-phone')
    assert problems(page) == [], problems(page)
