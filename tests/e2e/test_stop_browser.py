"""Stopping an answer, end to end: Debian's Chromium against a real `synapse serve`.

A fixture agent (a scripted `FunctionModel`) thinks slowly, calls three tools at once of which one
is slow, or writes slowly, on request. The test presses Stop during each, waits for the "stopped"
label, and checks that what the page shows once it has settled (thought panes, tool cards and their
statuses, the token and tool counts, the label, the text) is exactly what a reload of the stored
conversation shows, and that the thoughts and tool cards produced before the stop are still there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from browser_helpers import composer, last_answer, send, shoot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SLUG = 'agents.slow.slowpoke'
AGENT_MODULE = r"""
import asyncio

from pydantic_ai import Agent
from pydantic_ai.messages import ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import DeltaThinkingPart, DeltaToolCall, FunctionModel


def _prompt(messages):
    return [p.content for m in messages for p in m.parts if isinstance(p, UserPromptPart)][-1]


async def stream(messages, info):
    mode = _prompt(messages)
    answered = any(isinstance(p, ToolReturnPart) for p in messages[-1].parts)
    if mode == 'think':
        for index in range(400):
            yield {0: DeltaThinkingPart(content=f'step {index}, ')}
            await asyncio.sleep(0.05)
        yield 'Thought it through.'
    elif mode == 'tools' and not answered:
        yield {0: DeltaThinkingPart(content='I will look three things up.')}
        yield {1: DeltaToolCall(name='fast_a', json_args='{}', tool_call_id='call_a')}
        yield {2: DeltaToolCall(name='fast_b', json_args='{}', tool_call_id='call_b')}
        yield {3: DeltaToolCall(name='slow_c', json_args='{}', tool_call_id='call_c')}
    elif mode == 'tools':
        yield 'All three came back.'
    elif mode == 'quick' and not answered:
        yield {0: DeltaToolCall(name='fast_a', json_args='{}', tool_call_id='call_a')}
        yield {1: DeltaToolCall(name='timed_b', json_args='{}', tool_call_id='call_b')}
    elif mode == 'quick':
        yield 'Both came back.'
    else:
        for index in range(400):
            yield f'word{index} '
            await asyncio.sleep(0.05)


slowpoke = Agent(FunctionModel(stream_function=stream, model_name='slowpoke'), name='slowpoke')


@slowpoke.tool_plain
def fast_a() -> str:
    return 'a'


@slowpoke.tool_plain
def fast_b() -> str:
    return 'b'


@slowpoke.tool_plain
async def timed_b() -> str:
    await asyncio.sleep(0.3)
    return 'b'


@slowpoke.tool_plain
async def slow_c() -> str:
    await asyncio.sleep(30)
    return 'c'
"""

# What the last answer shows, in the terms a user reads it.
SHOWN = """() => {
    const answer = [...document.querySelectorAll('[data-testid=assistant-message]')].pop()
    if (!answer) return null
    const meta = answer.querySelector('[data-testid=message-meta]')
    return {
        busy: answer.getAttribute('aria-busy'),
        thoughts: [...answer.querySelectorAll('[data-testid=thinking]')]
            .map((t) => t.innerText.includes('Thought')),
        tools: [...answer.querySelectorAll('[data-testid=tool-card]')].map((t) => t.dataset.status),
        headers: [...answer.querySelectorAll('[data-testid=tool-card] > button')]
            .map((b) => b.innerText.replace(/\\s+/g, ' ').trim()),
        meta: meta ? meta.innerText.replace(/\\s+/g, ' ').trim() : null,
        text: [...answer.querySelectorAll('p')].map((p) => p.innerText).join(' ')
            .replace(/\\s+/g, ' ').trim(),
    }
}"""


@pytest.fixture
def server(live_server: Any, isolated_env: Path) -> Any:
    (isolated_env / 'agents').mkdir()
    (isolated_env / 'agents' / 'slow.py').write_text(AGENT_MODULE)
    return live_server(['agents'])


def settled(page: Page) -> dict[str, Any]:
    """What the last answer shows once it has stopped changing for a second (at most 15 s)."""
    last: Any = None
    steady_since = 0.0
    for _ in range(150):
        shown = page.evaluate(SHOWN)
        if shown == last and shown is not None and shown['busy'] == 'false':
            steady_since += 0.1
            if steady_since >= 1.0:
                return dict(shown)
        else:
            steady_since = 0.0
        last = shown
        page.wait_for_timeout(100)
    raise AssertionError(f'the answer never settled: {last}')


def stop(page: Page) -> None:
    page.get_by_role('button', name='Stop (Esc)').click()
    expect(last_answer(page).get_by_test_id('message-meta')).to_contain_text('stopped')


@pytest.mark.parametrize('mode', ['think', 'tools', 'text'])
def test_a_stopped_answer_shows_what_a_reload_shows(browser_page: Page, server: Any, mode: str) -> None:
    page = browser_page
    page.goto(f'{server.url}/agents/{SLUG}')
    expect(composer(page)).to_be_enabled()
    send(page, mode)
    answer = last_answer(page)
    if mode == 'think':
        expect(answer.get_by_test_id('thinking')).to_contain_text('Thinking')
        page.wait_for_timeout(800)
    elif mode == 'tools':
        expect(answer.get_by_test_id('tool-card')).to_have_count(3)
        expect(answer.locator('[data-testid=tool-card][data-status=success]')).to_have_count(2)
    else:
        expect(answer).to_contain_text('word5')
    stop(page)
    live = settled(page)
    shoot(page, f'playground-stopped-{mode}')

    page.reload()
    expect(last_answer(page)).to_be_visible()
    stored = settled(page)
    assert live == stored

    assert 'stopped' in stored['meta']
    if mode == 'think':
        assert stored['thoughts'] == [True], 'the thought produced before the stop is kept'
    elif mode == 'tools':
        assert stored['thoughts'] == [True]
        assert sorted(stored['tools']) == ['interrupted', 'success', 'success']
    else:
        assert stored['text'].startswith('word0 word1 word2')


def test_tool_durations_live_are_the_stored_ones(browser_page: Page, server: Any) -> None:
    page = browser_page
    page.goto(f'{server.url}/agents/{SLUG}')
    expect(composer(page)).to_be_enabled()
    # The stored conversation cannot be read back: the page keeps the live copy (never replaced).
    page.route('**/api/conversations/*', lambda route: route.abort())
    send(page, 'quick')
    expect(last_answer(page)).to_contain_text('Both came back.')
    live = settled(page)
    page.unroute('**/api/conversations/*')
    page.reload()
    expect(last_answer(page)).to_contain_text('Both came back.')
    stored = settled(page)
    assert live['headers'] == stored['headers'], 'each card shows one duration, live and stored'
    assert len(stored['headers']) == 2 and all(
        header.endswith('ms') or header.endswith('s') for header in stored['headers']
    )
