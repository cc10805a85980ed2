"""Memory in the workbench, end to end: Debian's Chromium against a real `synapse serve` on a fixture
project whose agent has `Memory()` and `Rules()` and answers with the instructions it got, with the
demo distiller named (`memory_model=demo`) and the in-process task worker.

A memory and a rule of `firm:7` exist → the playground chats as `firm:7` / `user:maria`: the
answer shows both, the conversation shows its scope, and the turn's Context bars have a Memories
block holding the memory → the conversation is distilled on the task queue → the Memory page lists
the distilled memories, a personal one for `user:maria`, linked to the conversation.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from browser_helpers import finished, last_answer, problems, send, shoot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / 'tests' / 'fixtures' / 'long_conversation_project'
AGENT = 'agents.remembering.clerk'


@pytest.fixture
def server(live_server: Any, isolated_env: Path) -> Any:
    shutil.copytree(PROJECT / 'agents', isolated_env / 'agents')
    return live_server(['agents'], env={'SYNAPSE_MEMORY_MODEL': 'demo'})


def test_chat_as_a_person_see_the_memories_and_distil_them(browser_page: Page, server: Any) -> None:
    page = browser_page
    api = httpx.Client(base_url=server.url)
    assert api.post(
        '/api/memories', json={'tenant': 'firm:7', 'content': 'Invoices go out fortnightly.'}
    ).is_success
    assert api.post(
        '/api/memories', json={'tenant': 'firm:8', 'content': 'Another firm bills monthly.'}
    ).is_success
    assert api.post('/api/rules', json={'tenant': 'firm:7', 'text': 'Never quote fees.'}).is_success

    page.goto(f'{server.url}/agents/{AGENT}')
    page.get_by_role('button', name='Chat as').click()
    scope = page.get_by_role('group', name='Chat as')
    scope.get_by_label('Tenant').fill('firm:7')
    scope.get_by_label('Person (actor)').fill('user:maria')
    page.keyboard.press('Escape')
    send(page, 'Hello! I prefer short answers. We close the office at six on Fridays.')
    finished(page)
    answer = last_answer(page)
    expect(answer).to_contain_text('Invoices go out fortnightly.')
    expect(answer).to_contain_text('Never quote fees.')
    expect(answer).not_to_contain_text('Another firm bills monthly.')
    expect(page.get_by_test_id('conversation-scope')).to_contain_text('firm:7')

    answer.get_by_test_id('context-button').click()
    panel = answer.get_by_test_id('context-panel')
    panel.get_by_test_id('context-block-memories').click()
    expect(panel.get_by_test_id('context-block-text')).to_contain_text('Invoices go out fortnightly.')
    shoot(page, 'chat-as-memories', full_page=True)

    conversation_id = page.url.rsplit('/c/', 1)[-1]
    queued = api.post('/api/memories/distill', json={'conversation_id': conversation_id})
    assert queued.status_code == 202 and queued.json()['task_id']
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        stored = api.get('/api/memories', params={'tenant': 'firm:7', 'source': 'distilled'}).json()[
            'memories'
        ]
        if stored:
            break
        time.sleep(0.2)
    assert {(m['content'], m['applies_to']) for m in stored} == {
        ('We close the office at six on Fridays.', None),
        ('I prefer short answers.', 'user:maria'),
    }

    page.goto(f'{server.url}/memory')
    browse = page.get_by_role('search', name='Browse memories')
    browse.get_by_label('Tenant').fill('firm:7')
    browse.get_by_role('button', name='Show').click()
    personal = page.get_by_test_id('memory-row').filter(has_text='I prefer short answers.')
    expect(personal.get_by_test_id('memory-applies-to')).to_contain_text('user:maria')
    expect(personal.get_by_role('link')).to_have_attribute('href', f'/agents/{AGENT}/c/{conversation_id}')
    shoot(page, 'memory-distilled', full_page=True)
    assert problems(page) == []
