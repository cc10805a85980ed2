"""Edit and re-run, end to end: Debian's Chromium against a real `synapse serve --demo`.

Two turns with a demo agent → "Edit and re-run" the second user message on pydantic-ai's offline
`test` model (offered through the `models` setting) → the new answer streams into a fork → the
original conversation is unchanged after a reload → the comparison shows both answers and the
shared first turn under two titles that read apart (the fork's is `fork of <source title>`) →
History groups the fork under its source. Screenshots, in both themes, go to
test-artifacts/screenshots/ (not committed).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from browser_helpers import composer, finished, last_answer, problems, send, shoot, thread

pytestmark = [pytest.mark.browser, pytest.mark.slow]

AGENT = 'synapse_agents.demo.agents.fallback-agent'
FIRST = 'Hello there'
SECOND = 'What can you tell me about shipping?'
EDITED = 'What can you tell me about refunds instead?'
TEST_ANSWER = 'success (no tool calls)'
"""What pydantic-ai's `TestModel` answers for an agent without tools."""


@pytest.fixture
def server(live_server: Any) -> Any:
    # `models` is read from SYNAPSE_MODELS (comma-separated): the selector then offers `test`.
    return live_server(['--demo'], env={'SYNAPSE_MODELS': 'test'})


@pytest.fixture
def page(browser_page: Page, server: Any) -> Page:
    browser_page.goto(f'{server.url}/agents/{AGENT}')
    return browser_page


def test_edit_and_rerun_forks_then_compares(page: Page, server: Any) -> None:
    # Two turns on the agent's own (demo) model.
    send(page, FIRST)
    finished(page)
    send(page, SECOND)
    expect(page.get_by_test_id('user-message')).to_have_count(2)
    finished(page)
    expect(page).to_have_url(re.compile(rf'/agents/{re.escape(AGENT)}/c/[0-9a-f-]{{36}}$'))
    source_url = page.url
    source_id = source_url.rsplit('/', 1)[1]
    # The replay has taken over (stored ids): the edit action is on every user message.
    expect(
        page.get_by_test_id('user-message').last.get_by_role('button', name='Edit and re-run')
    ).to_have_count(1)
    second_answer = last_answer(page).inner_text()
    before = thread(server, source_id)['messages']
    assert [m['role'] for m in before if m['role'] in ('user', 'assistant')] == ['user', 'assistant'] * 2

    # Edit and re-run the second message on the `test` model.
    bubble = page.get_by_test_id('user-message').nth(1)
    bubble.hover()
    bubble.get_by_role('button', name='Edit and re-run').click()
    editor = page.get_by_role('form', name='Edit and re-run')
    box = editor.get_by_role('textbox', name='Edited message')
    expect(box).to_have_value(SECOND)
    expect(box).to_be_focused()
    expect(editor.get_by_test_id('model-select')).to_contain_text('demo')
    shoot(page, 'playground-edit-rerun')
    box.fill(EDITED)
    editor.get_by_test_id('model-select').click()
    page.get_by_role('menuitemradio', name=re.compile('^test')).click()
    expect(editor.get_by_test_id('model-select')).to_contain_text('test')
    with page.expect_response(lambda r: r.url.endswith('/chat')) as chat:
        editor.get_by_role('button', name='Re-run').click()
    assert chat.value.headers['content-type'].startswith('text/event-stream')
    sent = chat.value.request.post_data_buffer or b''
    assert EDITED.encode() in sent
    assert b'name="model"\r\n\r\ntest' in sent

    # The fork: its own URL, the copied first turn, then the edited message and the new answer.
    expect(page).not_to_have_url(source_url)
    expect(page).to_have_url(re.compile(rf'/agents/{re.escape(AGENT)}/c/[0-9a-f-]{{36}}$'))
    fork_id = page.url.rsplit('/', 1)[1]
    assert fork_id != source_id
    assert f'name="conversation_id"\r\n\r\n{fork_id}'.encode() in sent
    finished(page)
    expect(last_answer(page)).to_contain_text(TEST_ANSWER)
    users = page.get_by_test_id('user-message')
    expect(users).to_have_count(2)
    expect(users.first).to_contain_text(FIRST)
    expect(users.last).to_contain_text(EDITED)
    expect(page.get_by_role('form', name='Edit and re-run')).to_have_count(0)
    banner = page.get_by_test_id('forked-from')
    expect(banner).to_contain_text('Forked from')
    expect(banner.get_by_role('link', name='Compare')).to_have_attribute(
        'href', f'/compare?a={source_id}&b={fork_id}'
    )
    # The composer carries on with the model the re-run chose.
    expect(page.get_by_role('form', name='Message composer').get_by_test_id('model-select')).to_contain_text(
        'test'
    )
    forked = thread(server, fork_id)
    assert forked['conversation']['forked_from']['id'] == source_id
    copied = [m for m in forked['messages'] if m['copied_from_id']]
    assert [m['copied_from_id'] for m in copied] == [m['id'] for m in before[: len(copied)]]
    assert forked['messages'][len(copied)]['content'] == EDITED
    shoot(page, 'playground-fork')

    # The original is unchanged, from the store: same rows, same answer, and it lists its fork.
    page.goto(source_url)
    expect(page.get_by_test_id('user-message')).to_have_count(2)
    expect(page.get_by_test_id('user-message').last).to_contain_text(SECOND)
    finished(page)
    assert last_answer(page).inner_text() == second_answer
    after = thread(server, source_id)
    assert [(m['id'], m['content']) for m in after['messages']] == [(m['id'], m['content']) for m in before]
    assert [f['id'] for f in after['conversation']['forks']] == [fork_id]
    forks = page.get_by_test_id('forks')
    expect(forks).to_contain_text('1 fork')
    shoot(page, 'playground-with-forks')

    # The comparison: the shared first turn folded, the two second turns side by side.
    forks.get_by_role('link', name=re.compile('^Compare')).click()
    expect(page).to_have_url(f'{server.url}/compare?a={source_id}&b={fork_id}')
    # The re-run is titled after its source, so the two read apart.
    expect(page.get_by_test_id('compare-title')).to_have_text([FIRST, f'fork of {FIRST}'])
    shared = page.get_by_test_id('shared-turns')
    expect(shared).to_contain_text('1 shared turn')
    turn = page.get_by_test_id('compare-turn')
    expect(turn).to_have_count(1)
    sides = turn.get_by_test_id('compare-side')
    expect(sides.first.get_by_test_id('compare-user')).to_contain_text(SECOND)
    expect(sides.last.get_by_test_id('compare-user')).to_contain_text(EDITED)
    expect(sides.last.get_by_test_id('compare-answer')).to_contain_text(TEST_ANSWER)
    expect(sides.first.get_by_test_id('compare-answer')).not_to_contain_text(TEST_ANSWER)
    expect(sides.first.get_by_test_id('turn-numbers')).to_contain_text('demo')
    expect(sides.last.get_by_test_id('turn-numbers')).to_contain_text('test')
    expect(page.get_by_test_id('compare-totals')).to_have_count(2)
    shared.get_by_role('button', name=re.compile('1 shared turn')).click()
    expect(shared.get_by_test_id('compare-user')).to_contain_text(FIRST)
    shoot(page, 'compare')
    # Narrow: the two columns stack.
    page.set_viewport_size({'width': 700, 'height': 900})
    first_box = sides.first.bounding_box()
    last_box = sides.last.bounding_box()
    assert first_box and last_box and last_box['y'] >= first_box['y'] + first_box['height']
    shoot(page, 'compare-narrow')
    page.set_viewport_size({'width': 1440, 'height': 900})

    # History: the fork sits right under its source.
    page.get_by_role('link', name='History').click()
    rows = page.get_by_test_id('history-row')
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_have_attribute('data-depth', '0')
    expect(rows.nth(1)).to_have_attribute('data-depth', '1')
    expect(rows.nth(1).get_by_role('img', name='Fork')).to_be_visible()
    expect(rows.nth(1).get_by_role('link').first).to_have_attribute('href', f'/agents/{AGENT}/c/{fork_id}')
    shoot(page, 'history-forks')
    # Only the forks of the source, by the URL.
    page.goto(f'{server.url}/history?forked_from={source_id}')
    expect(rows).to_have_count(1)
    expect(rows.first.get_by_test_id('fork-of')).to_have_attribute('href', f'/agents/{AGENT}/c/{source_id}')
    expect(composer(page)).to_have_count(0)
    assert problems(page) == []
