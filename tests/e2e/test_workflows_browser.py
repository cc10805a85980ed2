"""The Workflows page end to end: Debian's Chromium against a real `synapse serve --demo`.

A workflow of two demo agents is created over the API → the page lists it and draws its steps →
a definition whose path names a later step is refused inline, naming the step and the path, and
nothing is saved → the fixed definition is saved as version 2, whose change the Versions tab shows
line by line → a run from the Runs tab goes through the server's task queue and its page shows
both steps completed on the timeline → a step's Trace link opens that step's trace.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from browser_helpers import problems, shoot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SUPPORT = 'synapse_agents.demo.agents.support-agent'
SUMMARISER = 'synapse_agents.demo.agents.summariser'
FIRST = {
    'version': 1,
    'steps': [{'name': 'answer', 'agent_name': SUPPORT, 'input_mapping': {'message': '$.input.message'}}],
    'outputs': {'final': '$.steps.answer.output.answer'},
}
SECOND = {
    'version': 1,
    'steps': [
        {'name': 'answer', 'agent_name': SUPPORT, 'input_mapping': {'message': '$.input.message'}},
        {'name': 'summary', 'agent_name': SUMMARISER, 'input_mapping': {'message': '$.input.message'}},
    ],
    'outputs': {'final': '$.steps.summary.output.answer', 'first': '$.steps.answer.output.answer'},
}


@pytest.fixture
def server(live_server: Any) -> Any:
    return live_server(['--demo'])


def test_edit_check_save_compare_versions_and_follow_a_run(browser_page: Page, server: Any) -> None:
    page = browser_page
    created = httpx.post(
        f'{server.url}/api/workflows', json={'key': 'support', 'name': 'Support', 'definition': FIRST}
    )
    assert created.status_code == 201, created.text
    page.goto(f'{server.url}/workflows')
    page.get_by_test_id('workflow-row').get_by_role('link', name='Support').click()
    expect(page.get_by_test_id('workflow-step-box')).to_have_count(1)

    # A path that names a step not run yet: refused inline, naming the step and the path.
    broken = json.loads(json.dumps(SECOND))
    broken['steps'][0]['input_mapping'] = {'message': '$.steps.summary.output.answer'}
    editor = page.get_by_role('textbox', name='Definition')
    editor.fill(json.dumps(broken, indent=2))
    expect(page.get_by_test_id('workflow-step-box')).to_have_count(2)
    page.get_by_role('button', name='Check').click()
    problem = page.get_by_test_id('definition-problem')
    expect(problem).to_contain_text('steps.0.input_mapping.message')
    shoot(page, 'workflows-definition-problem')
    page.get_by_role('button', name='Save as version 2').click()
    expect(problem).to_contain_text('steps.0.input_mapping.message')
    assert httpx.get(f'{server.url}/api/workflows/support').json()['version'] == 1, 'nothing was saved'

    editor.fill(json.dumps(SECOND, indent=2))
    page.get_by_role('button', name='Save as version 2').click()
    expect(page.get_by_text('Saved as version 2.')).to_be_visible()
    assert httpx.get(f'{server.url}/api/workflows/support').json()['version'] == 2

    page.get_by_role('tab', name='Versions').click()
    page.get_by_role('button', name=re.compile('^v2')).click()
    added = page.get_by_label('Changes').locator('[data-change="added"]')
    expect(added.first).to_be_visible()
    expect(page.get_by_label('Changes')).to_contain_text('"name": "summary"')
    shoot(page, 'workflows-version-diff')

    page.get_by_role('tab', name='Runs').click()
    page.get_by_role('textbox', name='Input').fill('{"message": "Where is order A-1001?"}')
    page.get_by_role('button', name='Run').click()
    expect(page).to_have_url(re.compile(r'/workflows/runs/[0-9a-f-]{36}$'))
    expect(page.get_by_test_id('workflow-run-status')).to_contain_text('completed', timeout=60_000)
    steps = page.get_by_test_id('workflow-run-step')
    expect(steps).to_have_count(2)
    expect(steps.nth(0)).to_contain_text('completed')
    expect(steps.nth(1)).to_contain_text('completed')
    expect(page.get_by_test_id('workflow-output')).to_contain_text('final')
    shoot(page, 'workflows-run-timeline')

    steps.nth(1).get_by_role('link', name='Trace').click()
    expect(page).to_have_url(re.compile(r'/traces/[0-9a-f-]{36}$'))
    # The two refusals above are the only failed requests: the check, and the save it refused.
    assert problems(page) == [
        f'422 {server.url}/api/workflows/validate',
        f'422 {server.url}/api/workflows/support',
    ]
