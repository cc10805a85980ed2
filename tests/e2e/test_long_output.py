"""Long output in the browser: megabytes without a line break never freeze the dashboard.

A real `synapse serve` over a fixture project whose agent (a scripted `FunctionModel`) answers
with 1 MB or 5 MB of base64 or minified JSON in one unbroken run, streamed in 2 KB deltas, or
calls a tool that returns such a payload (as one string, or as parsed JSON rows). Debian's
Chromium streams the answer in, then reloads the conversation from the store. Each time the
answer must be on screen within a few seconds of the stream's end (or of the navigation), the
page must still answer, and "show all" must reveal the whole payload, byte for byte.

Timings are measured inside the page (`performance.now()`) and printed (`pytest -s`); the bounds
asserted are generous, for a loaded machine.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from browser_helpers import problems, send

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SLUG = 'agents.long.long'
MB = 1_000_000
RENDER_BOUND_MS = 5000
SHOW_ALL_BOUND_MS = 15000

PAYLOADS = r'''
import base64
import json
import random


def payload(kind: str, size: int) -> str:
    """`size` characters of base64, or minified JSON rows (globs and all) of about that size."""
    rng = random.Random(size)
    if kind == 'b64':
        return base64.b64encode(rng.randbytes(size * 3 // 4 + 3)).decode()[:size]
    rows = []
    while 60 * len(rows) < size:
        i = len(rows)
        rows.append({'id': i, 'name': f'item-{i}', 'path': 'src/**/*.py', 'tags': ['a', 'b']})
    return json.dumps(rows, separators=(',', ':'))
'''

AGENT_MODULE = (
    PAYLOADS
    + r'''
from pydantic_ai import Agent
from pydantic_ai.messages import ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import DeltaToolCall, FunctionModel

DELTA = 2048


def _prompt(messages):
    return [p.content for m in messages for p in m.parts if isinstance(p, UserPromptPart)][-1]


async def stream(messages, info):
    mode, kind, size = _prompt(messages).split()
    if mode == 'tool' and not any(isinstance(p, ToolReturnPart) for p in messages[-1].parts):
        args = json.dumps({'kind': kind, 'size': int(size)})
        yield {0: DeltaToolCall(name='produce', json_args=args, tool_call_id='call_produce')}
        return
    text = 'Done.' if mode == 'tool' else payload(kind, int(size))
    for index in range(0, len(text), DELTA):
        yield text[index : index + DELTA]


long = Agent(FunctionModel(stream_function=stream, model_name='long'), name='long')


@long.tool_plain
def produce(kind: str, size: int) -> object:
    """The payload as one string, or (kind `rows`) as parsed JSON."""
    return json.loads(payload('json', size)) if kind == 'rows' else payload(kind, size)
'''
)

_namespace: dict[str, Any] = {}
exec(PAYLOADS, _namespace)  # the very function the agent uses, for the expected payloads


def payload(kind: str, size: int) -> str:
    """The payload the fixture agent sends for `kind` and `size`."""
    text: str = _namespace['payload'](kind, size)
    return text


# Resolves with the page's clock once `condition` (a JS expression) holds, polled every frame;
# with null when it still does not after `limit` ms.
UNTIL = """async ([condition, start, limit]) => {
    const check = new Function(`return (${condition})`)
    while (!check()) {
        if (performance.now() - (start ?? 0) > limit) return null
        await new Promise((resolve) => requestAnimationFrame(resolve))
    }
    return performance.now() - (start ?? 0)
}"""
CHAT_END = """() => performance.getEntriesByType('resource')
    .filter((e) => e.name.includes('/chat')).map((e) => e.responseEnd).pop() ?? null"""
FRAME_MS = """() => {
    const t = performance.now()
    const done = (resolve) => () => setTimeout(() => resolve(performance.now() - t))
    return new Promise((resolve) => requestAnimationFrame(done(resolve)))
}"""
ANSWER = "[...document.querySelectorAll('[data-testid=assistant-message]')].pop()"
ANSWER_SHOWN = (
    f"{ANSWER}?.getAttribute('aria-busy') === 'false'"
    f" && {ANSWER}.querySelector('[data-testid=show-run]') !== null"
)
LONG_TASKS = """window.__tasks = []
new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__tasks.push(entry.duration)
}).observe({type: 'longtask', buffered: true})"""
LONGEST_TASK = '() => Math.max(0, ...window.__tasks)'
LONGEST_TASK_BOUND_MS = 3000
REVEALED = """() => {
    const text = document.querySelector('[data-testid=long-run]').textContent
    return {length: text.length, start: text.slice(0, 2000), end: text.slice(-2000)}
}"""


@pytest.fixture
def server(live_server: Any, isolated_env: Path) -> Any:
    (isolated_env / 'agents').mkdir()
    (isolated_env / 'agents' / 'long.py').write_text(AGENT_MODULE)
    return live_server(['agents'])


def until(page: Page, condition: str, start: float | None = None, limit: float = 120_000) -> float:
    """Milliseconds on the page's clock from `start` (navigation when None) to `condition`."""
    elapsed: float | None = page.evaluate(UNTIL, [condition, start, limit])
    assert elapsed is not None, f'still not true after {limit / 1000:.0f} s: {condition}'
    return elapsed


def drawn(page: Page, condition: str, start: float | None = None) -> float:
    """Like `until`, up to the end of the next frame: layout and paint included."""
    elapsed = until(page, condition, start)
    frame: float = page.evaluate(FRAME_MS)
    return elapsed + frame


def assert_responsive(page: Page, bound_ms: float = 1000) -> float:
    frame: float = page.evaluate(FRAME_MS)
    assert frame < bound_ms, f'the page took {frame:.0f} ms to draw a frame'
    return frame


def show_all(page: Page, expected: str) -> float:
    """Press the answer's "show all" and check the whole payload is on screen."""
    page.evaluate(f"() => {ANSWER}.querySelector('[data-testid=show-run]').click()")
    start: float = page.evaluate('() => performance.now()')
    elapsed = drawn(page, "document.querySelector('[data-testid=long-run]') !== null", start)
    revealed = page.evaluate(REVEALED)
    assert revealed['length'] == len(expected)
    assert revealed['start'] == expected[:2000]
    assert revealed['end'] == expected[-2000:]
    return elapsed


@pytest.mark.parametrize('size', [MB, 5 * MB], ids=['1MB', '5MB'])
@pytest.mark.parametrize('kind', ['b64', 'json'])
def test_long_unbroken_answer_renders_fast_live_and_stored(
    browser_page: Page, server: Any, kind: str, size: int
) -> None:
    """Megabytes without a break show cut and fast, streamed and replayed; "show all" reveals them."""
    page = browser_page
    expected = payload(kind, size)
    page.add_init_script(LONG_TASKS)  # how long the page stops answering, while it streams
    page.goto(f'{server.url}/agents/{SLUG}')
    send(page, f'text {kind} {size}')
    # The stream's end, on the page's clock: when the chat response's last byte arrived.
    until(page, f'({CHAT_END})() !== null')
    live_end = page.evaluate(CHAT_END)
    assert live_end is not None
    live_ms = drawn(page, ANSWER_SHOWN, live_end)
    answer = page.get_by_test_id('assistant-message').last
    expect(answer).to_contain_text(expected[:200])
    # Cut: the page holds the head of the run, not the megabytes.
    assert len(answer.text_content() or '') < 5000
    live_frame = assert_responsive(page)
    longest: float = page.evaluate(LONGEST_TASK)

    page.wait_for_url('**/c/**')
    page.reload()
    stored_ms = drawn(page, ANSWER_SHOWN)
    stored_frame = assert_responsive(page)
    expect(page.get_by_test_id('assistant-message').last).to_contain_text(expected[:200])

    reveal_ms = show_all(page, expected)
    reveal_frame = assert_responsive(page)
    print(
        f'\n{kind} {size / MB:.0f} MB: live {live_ms:.0f} ms after the stream ended '
        f'(frame {live_frame:.0f} ms, longest task {longest:.0f} ms), '
        f'stored {stored_ms:.0f} ms from navigation (frame {stored_frame:.0f} ms), '
        f'show all {reveal_ms:.0f} ms (frame {reveal_frame:.0f} ms)'
    )
    assert live_ms < RENDER_BOUND_MS
    assert longest < LONGEST_TASK_BOUND_MS
    assert stored_ms < RENDER_BOUND_MS
    assert reveal_ms < SHOW_ALL_BOUND_MS
    assert problems(page) == []


def open_result(page: Page) -> float:
    """Open the tool card; milliseconds until its result is drawn."""
    page.get_by_test_id('tool-card').locator('> button').click()
    start: float = page.evaluate('() => performance.now()')
    card = "document.querySelector('[data-testid=tool-card]')"
    condition = (
        f"{card}.querySelectorAll('[data-testid=json-view]').length === 2"
        f" && !{card}.textContent.includes('Loading the whole call')"
    )
    return drawn(page, condition, start)


def test_long_tool_result_string_renders_fast(browser_page: Page, server: Any) -> None:
    """A tool result of 1 MB of minified JSON in one string shows cut, live and stored, whole on demand."""
    page = browser_page
    expected = payload('json', MB)
    page.goto(f'{server.url}/agents/{SLUG}')
    send(page, f'tool json {MB}')
    expect(page.get_by_test_id('assistant-message').last).to_have_attribute('aria-busy', 'false')
    timings = []
    for replay in (False, True):
        if replay:
            page.reload()
        timings.append(open_result(page))
        card = page.get_by_test_id('tool-card')
        expect(card).to_contain_text(expected[:200])
        assert len(card.text_content() or '') < 5000
        assert_responsive(page)
    card.get_by_role('button', name=re.compile(r'^… show all [\d.]+ [KM]B$')).click()
    start = page.evaluate('() => performance.now()')
    reveal_ms = drawn(
        page, f"document.querySelector('[data-testid=tool-card]').textContent.length > {MB}", start
    )
    assert expected in (card.text_content() or '')
    assert_responsive(page)
    print(
        f'\ntool string 1 MB: live {timings[0]:.0f} ms, stored {timings[1]:.0f} ms, '
        f'show all {reveal_ms:.0f} ms'
    )
    assert max(timings) < RENDER_BOUND_MS
    assert reveal_ms < SHOW_ALL_BOUND_MS
    assert problems(page) == []


def test_long_tool_result_rows_render_fast(browser_page: Page, server: Any) -> None:
    """A tool result of 1 MB of parsed JSON rows shows its first entries, live and stored, more on demand."""
    page = browser_page
    rows = len(json.loads(payload('json', MB)))
    page.goto(f'{server.url}/agents/{SLUG}')
    send(page, f'tool rows {MB}')
    expect(page.get_by_test_id('assistant-message').last).to_have_attribute('aria-busy', 'false')
    timings = []
    for replay in (False, True):
        if replay:
            page.reload()
        timings.append(open_result(page))
        more = page.get_by_test_id('tool-card').get_by_role(
            'button', name=f'… {rows - 100:,} more items, show 1,000'
        )
        expect(more).to_be_visible()
        assert_responsive(page)
    more.click()
    expect(
        page.get_by_test_id('tool-card').get_by_text(f'… {rows - 1100:,} more items, show 1,000')
    ).to_be_visible()
    assert_responsive(page)
    print(f'\ntool rows 1 MB: live {timings[0]:.0f} ms, stored {timings[1]:.0f} ms')
    assert max(timings) < RENDER_BOUND_MS
    assert problems(page) == []
