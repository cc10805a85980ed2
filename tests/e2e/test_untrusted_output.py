"""Untrusted output in the browser: what a model, a tool or a user types never runs as code.

A real `synapse serve` over a fixture project whose agent (a scripted `FunctionModel`) answers in
markdown full of XSS payloads, calls a tool with payloads in its arguments and gets payloads back,
and, asked to, has its tool raise an exception whose message is a payload. The user's own message
carries payloads too (it becomes the conversation title). Debian's Chromium drives the dashboard
through a streamed turn, an error card, a reload (the replay) and the history page.

The page is served *without* its Content-Security-Policy here: the CSP (tests/e2e/test_dashboard.py)
would block inline handlers anyway and hide a sanitising bug; this test checks that the dashboard
itself never turns model output into markup. Each payload tries to set `window.__xss`, call
`alert` or change `document.title`; the test also inspects the DOM for anything executable that
came from the content, and checks the payloads are shown as text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Dialog, Page, expect

from browser_helpers import problems

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SLUG = 'agents.untrusted.untrusted'

AGENT_MODULE = r'''
import json

from pydantic_ai import Agent
from pydantic_ai.messages import ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import DeltaToolCall, FunctionModel

SCRIPT = '<script>window.__xss = "script"; alert("script")</script>'
IMG = '<img src=x onerror="window.__xss=\'img\'; document.title=\'pwned\'">'
SVG = '<svg onload="window.__xss=\'svg\'"><circle r="40"></circle></svg>'
IFRAME = '<iframe srcdoc="<script>parent.__xss=\'iframe\'</script>"></iframe>'
DETAILS = '<details open ontoggle="window.__xss=\'details\'">x</details>'
STYLE = '<style>body { display: none }</style>'
MUTATION = '<math><mtext><table><mglyph><style><img src=x onerror="window.__xss=\'mxss\'">'

ANSWER = f"""Here is what I found.

[click me](javascript:window.__xss='link') and [data link](data:text/html,<script>alert(1)</script>)
and ![picture](javascript:window.__xss='image') and <a href="javascript:window.__xss='a'">raw link</a>

{SCRIPT}

{IMG} {SVG} {IFRAME} {DETAILS} {STYLE} {MUTATION}

Entities stay text: &lt;b&gt;bold&lt;/b&gt; and &#60;script&#62;

`{IMG}` in code, and a [safe link](https://example.com/docs).
"""


def _prompt(messages):
    return [p.content for m in messages for p in m.parts if isinstance(p, UserPromptPart)][-1]


async def stream(messages, info):
    if not any(isinstance(p, ToolReturnPart) for p in messages[-1].parts):
        tool = 'explode' if 'explode' in _prompt(messages) else 'fetch_page'
        args = {'url': "javascript:window.__xss='args'", 'html': IMG}
        yield {0: DeltaToolCall(name=tool, json_args=json.dumps(args), tool_call_id=f'call_{tool}')}
        return
    # Streamed in small pieces, so partial markup reaches the renderer too.
    for index in range(0, len(ANSWER), 7):
        yield ANSWER[index : index + 7]


untrusted = Agent(FunctionModel(stream_function=stream, model_name='untrusted'), name='untrusted')


@untrusted.tool_plain
def fetch_page(url: str, html: str) -> dict:
    """Returns a page full of markup."""
    return {'title': SCRIPT, 'body': html, 'svg': SVG, 'frame': IFRAME, 'link': url}


@untrusted.tool_plain
def explode(url: str, html: str) -> str:
    """Raises with markup in its message."""
    raise RuntimeError(f'failed on {html} {SCRIPT}')
'''

USER_MESSAGE = 'Summarise <img src=x onerror="window.__xss=\'user\'"> and <script>alert("user")</script>'
TOOL_SCRIPT = '<script>window.__xss = "script"; alert("script")</script>'
TOOL_IMG = "<img src=x onerror=\"window.__xss='img'; document.title='pwned'\">"

# Everything in the page that could run, or load something, and did not come with the app.
EXECUTABLE = """() => {
    const found = []
    for (const el of document.querySelectorAll('*')) {
        for (const attr of el.attributes) {
            const value = attr.value.trim().toLowerCase()
            if (attr.name.startsWith('on')) found.push(`${el.tagName} ${attr.name}`)
            const loads = ['href', 'src', 'action', 'formaction', 'xlink:href'].includes(attr.name)
            if (attr.name === 'srcdoc' || (loads && /^(javascript|data|vbscript):/.test(value)))
                found.push(`${el.tagName} ${attr.name}=${attr.value}`)
        }
    }
    for (const tag of ['iframe', 'object', 'embed', 'frame', 'math', 'details', 'img[src="x"]'])
        for (const el of document.querySelectorAll(tag)) found.push(el.outerHTML.slice(0, 80))
    for (const el of document.querySelectorAll('script'))
        if (!el.src || new URL(el.src).origin !== location.origin)
            found.push('script ' + el.outerHTML.slice(0, 80))
    for (const el of document.querySelectorAll('style'))
        if (el.textContent.includes('display: none')) found.push('style ' + el.textContent)
    for (const el of document.querySelectorAll('circle[r="40"]')) found.push('svg ' + el.outerHTML)
    return found
}"""


@pytest.fixture
def server(live_server: Any, isolated_env: Path) -> Any:
    (isolated_env / 'agents').mkdir()
    (isolated_env / 'agents' / 'untrusted.py').write_text(AGENT_MODULE)
    return live_server(['agents'])


@pytest.fixture
def page(browser_page: Page) -> Page:
    """The dashboard with its Content-Security-Policy removed and every escape hatch watched."""

    def without_csp(route: Any) -> None:
        if route.request.resource_type != 'document':
            route.continue_()
            return
        response = route.fetch()
        headers = {k: v for k, v in response.headers.items() if k.lower() != 'content-security-policy'}
        route.fulfill(response=response, headers=headers)

    browser_page.route('**/*', without_csp)
    dialogs: list[str] = []

    def dismiss(dialog: Dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    vars(browser_page)['dialogs'] = dialogs  # what `assert_nothing_ran` reads
    browser_page.on('dialog', dismiss)
    return browser_page


def assert_nothing_ran(page: Page) -> None:
    assert page.evaluate('() => window.__xss') is None
    assert vars(page)['dialogs'] == []
    assert page.title() != 'pwned'
    assert page.evaluate(EXECUTABLE) == []
    expect(page.locator('body')).to_be_visible()
    assert not [p for p in problems(page) if 'pwned' in p or '__xss' in p]


def open_tool_cards(page: Page) -> None:
    for button in page.get_by_test_id('tool-card').locator('> button').all():
        if button.get_attribute('aria-expanded') == 'false':
            button.click()


def assert_shown_as_text(page: Page) -> None:
    user = page.get_by_test_id('user-message').first
    expect(user).to_contain_text(USER_MESSAGE)  # the user's own text, exactly as typed
    answer = page.get_by_test_id('assistant-message').first
    expect(answer).to_contain_text('Here is what I found.')
    expect(answer).to_contain_text('Entities stay text: <b>bold</b> and <script>')
    expect(answer).to_contain_text(TOOL_IMG)  # inside a code span: text, not an element
    for name in ('click me', 'data link', 'raw link'):
        expect(answer).to_contain_text(name)
    safe = answer.get_by_role('link', name='safe link')
    expect(safe).to_have_attribute('href', 'https://example.com/docs')
    expect(safe).to_have_attribute('rel', 'noopener noreferrer')
    assert answer.locator('b').count() == 0  # '&lt;b&gt;' did not become an element
    open_tool_cards(page)
    tools = page.get_by_test_id('tool-card')
    expect(tools.first).to_contain_text(TOOL_SCRIPT)  # the tool result, in the JSON viewer
    expect(tools.first).to_contain_text("javascript:window.__xss='args'")  # the arguments
    error = page.get_by_test_id('error-card')
    expect(error).to_contain_text(f'failed on {TOOL_IMG} {TOOL_SCRIPT}')


def test_payloads_from_models_tools_and_users_never_run(page: Page, server: Any) -> None:
    page.goto(f'{server.url}/agents/{SLUG}')
    composer = page.get_by_role('textbox', name='Message')
    composer.fill(USER_MESSAGE)
    composer.press('Enter')
    answer = page.get_by_test_id('assistant-message').last
    expect(answer).to_have_attribute('aria-busy', 'false')
    expect(answer).to_contain_text('safe link')
    composer.fill('explode it')
    composer.press('Enter')
    expect(page.get_by_test_id('error-card')).to_be_visible()
    expect(page.get_by_test_id('assistant-message').last).to_have_attribute('aria-busy', 'false')
    assert_shown_as_text(page)
    assert_nothing_ran(page)

    # The replay (from the stored thread) renders the same content the same way.
    page.reload()
    expect(page.get_by_test_id('error-card')).to_be_visible()
    assert_shown_as_text(page)
    assert_nothing_ran(page)

    # The title (the first message, as the user typed it) in the history list.
    page.goto(f'{server.url}/history')
    expect(page.get_by_text(USER_MESSAGE[:60]).first).to_be_visible()
    assert_nothing_ran(page)
