"""Evals end to end: Debian's Chromium against a real `synapse serve --demo`.

A playground turn with the demo support agent → "Test case" under its answer saves it into a new
dataset, the answer as the expected output → the Evals page shows the dataset and its case → the
dataset runs on two models side by side (the agent's own demo model and pydantic-ai's offline
`test` model, offered through the `models` setting), on the server's task queue → both runs end and
each case is a stored conversation with origin `eval` → the comparison shows the case that passed
on the demo model and fails on `test`. Screenshots go to test-artifacts/screenshots/.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from browser_helpers import finished, problems, send, shoot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

AGENT = 'synapse_agents.demo.agents.support-agent'
QUESTION = 'Where is order A-1001?'


@pytest.fixture
def server(live_server: Any) -> Any:
    return live_server(['--demo'], env={'SYNAPSE_MODELS': 'test'})


@pytest.fixture
def page(browser_page: Page, server: Any) -> Page:
    browser_page.goto(f'{server.url}/agents/{AGENT}')
    return browser_page


def test_a_saved_turn_runs_on_two_models_and_the_runs_compare(page: Page, server: Any) -> None:
    send(page, QUESTION)
    finished(page)
    expect(page).to_have_url(re.compile(r'/c/[0-9a-f-]{36}$'))
    conversation_id = page.url.rsplit('/', 1)[1]

    # Save the turn: a new dataset, the answer as the expected output (EqualsExpected by default).
    page.get_by_test_id('save-case-button').last.click()
    form = page.get_by_role('form', name='Save as test case')
    form.get_by_label('New dataset key').fill('orders')
    expect(form.get_by_role('textbox', name='Evaluators')).to_have_value('["EqualsExpected"]')
    shoot(page, 'evals-save-case')
    form.get_by_role('button', name='Save case').click()
    saved = page.get_by_role('status')
    expect(saved).to_contain_text('is case 1 of orders')
    stored = httpx.get(f'{server.url}/api/evals/datasets/orders').json()
    (case,) = stored['cases']
    assert case['inputs'] == {'message': QUESTION}
    assert case['metadata']['source']['conversation_id'] == conversation_id
    assert case['expected_output'] and case['evaluators'] == ['EqualsExpected']
    saved.get_by_role('link', name='orders').click()

    # The dataset's page: its case, then a run on two models at once.
    expect(page).to_have_url(re.compile(r'/evals/datasets/orders$'))
    expect(page.get_by_test_id('eval-case-row')).to_have_count(1)
    page.get_by_role('button', name='Run', exact=True).click()
    dialog = page.get_by_role('form', name='Run the dataset')
    expect(dialog.get_by_label('Agent', exact=True)).to_have_value(AGENT)
    dialog.get_by_role('checkbox', name=re.compile(r'^test\b')).check()
    dialog.get_by_role('button', name='Run side by side').click()
    rows = page.get_by_test_id('eval-run-row')
    expect(rows).to_have_count(2)
    expect(rows.get_by_test_id('run-status').filter(has_text='succeeded')).to_have_count(2, timeout=60_000)
    shoot(page, 'evals-dataset-runs')

    runs = httpx.get(f'{server.url}/api/evals/runs', params={'dataset': 'orders'}).json()['runs']
    by_model = {run['model']: run for run in runs}
    assert set(by_model) == {None, 'test'} and by_model[None]['pass_rate'] == 1.0
    assert by_model['test']['pass_rate'] == 0.0
    detail = httpx.get(f'{server.url}/api/evals/runs/{by_model["test"]["id"]}').json()
    evals = httpx.get(f'{server.url}/api/conversations', params={'origin': 'eval'}).json()['conversations']
    assert detail['cases'][0]['conversation_id'] in {c['id'] for c in evals} and len(evals) == 2

    # Compare the two: the case passed on the agent's own model and fails on `test`.
    for index in range(2):
        rows.nth(index).get_by_role('checkbox').check()
    page.get_by_role('button', name='Compare').click()
    expect(page).to_have_url(re.compile(r'/evals/compare\?before=.+&after=.+'))
    compared = page.get_by_test_id('compare-case')
    expect(compared).to_have_count(1)
    expect(compared).to_have_attribute('data-change', 'regressed')
    expect(compared).to_contain_text('passed before, fails now')
    expect(page.get_by_test_id('compare-before')).to_contain_text("agent's own model")
    expect(page.get_by_test_id('compare-after')).to_contain_text('test')
    compared.locator('summary').click()
    expect(compared.get_by_test_id('eval-case-result')).to_have_count(2)
    shoot(page, 'evals-compare')

    # A case's link opens its stored conversation.
    compared.get_by_role('link', name='Conversation and trace').last.click()
    expect(page).to_have_url(
        re.compile(rf'/agents/{re.escape(AGENT)}/c/{detail["cases"][0]["conversation_id"]}$')
    )
    expect(page.get_by_test_id('user-message')).to_contain_text(QUESTION)
    assert problems(page) == []
