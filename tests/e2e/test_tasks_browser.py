"""The Tasks page end to end: Debian's Chromium against a real `synapse serve --demo`, whose
in-process worker runs the tasks on the offline demo model.

A standing agent made through the form: a bad cron first (the live preview and then the server's
422 beside the field say what is wrong), then a good one (the preview words it) → its card words
the schedule and the next run → "Run now" → the run goes from queued or running to succeeded on
screen, without a reload → its log, step by step → the conversation it produced, in the
playground → pause and resume → delete. At phone width (390 px) the list, the form and a run fit
without scrolling sideways. Screenshots at 1280x800 and 390x844, in both themes, go to
test-artifacts/screenshots/ (not committed).
"""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, Response, expect

from browser_helpers import DESKTOP, PHONE, assert_fits, problems, shoot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

AGENT = 'synapse_agents.demo.agents.support-agent'
INSTRUCTION = 'Where is my order A-1001?'
"""The demo support agent looks the order up with its `lookup_order` tool, then answers."""
WORDS = 'At 09:00, Monday through Friday (Europe/Madrid)'


@pytest.fixture
def server(live_server: Any) -> Any:
    return live_server(['--demo'])


@pytest.fixture
def page(browser_page: Page, server: Any) -> Page:
    browser_page.set_viewport_size(DESKTOP)
    browser_page.goto(f'{server.url}/tasks')
    return browser_page


def card(page: Page, name: str) -> Any:
    return page.locator(f'[data-testid="standing-card"][data-name="{name}"]')


def test_create_run_follow_the_log_pause_resume_delete(page: Page, server: Any) -> None:
    expect(page.get_by_text('No standing agents')).to_be_visible()
    nav = page.get_by_role('navigation', name='Workspace').get_by_role('link', name='Tasks')
    expect(nav).to_have_attribute('aria-current', 'page')
    page.get_by_role('button', name='New standing agent').first.click()
    form = page.get_by_role('form', name='New standing agent')
    form.get_by_label('Name').fill('Order watch')
    form.get_by_label('Agent', exact=True).select_option(AGENT)
    form.get_by_label('Instruction').fill(INSTRUCTION)
    form.get_by_label('Time zone').fill('Europe/Madrid')
    preview = form.get_by_test_id('schedule-preview')
    expect(preview).to_contain_text('No schedule')

    # A bad cron: the live preview says why, and so does the server's 422 beside the field.
    form.get_by_label('Cron').fill('61 * * * *')
    expect(preview.get_by_test_id('schedule-error')).to_contain_text("'61 * * * *' is not a valid expression")
    with page.expect_response(
        lambda r: r.url.endswith('/api/standing-agents') and r.request.method == 'POST'
    ) as refused:
        form.get_by_role('button', name='Create').click()
    assert refused.value.status == 422
    cron = form.get_by_label('Cron')
    expect(cron).to_have_attribute('aria-invalid', 'true')
    expect(form.get_by_test_id('field-error')).to_contain_text("'61 * * * *' is not a valid expression")
    assert httpx.get(f'{server.url}/api/standing-agents').json() == {'standing_agents': []}

    # A good one: the preview words it and gives the next three times, on Madrid's clock.
    cron.fill('0 9 * * 1-5')
    expect(cron).not_to_have_attribute('aria-invalid', 'true')
    expect(preview.get_by_test_id('schedule-words')).to_have_text(WORDS)
    times = preview.get_by_role('listitem')
    expect(times).to_have_count(3)
    expect(times.first).to_contain_text('09:00')
    form.get_by_label('Events').fill('order.created, order.paid')
    form.get_by_label('Debounce (seconds)').fill('30')
    shoot(page, 'tasks-form')
    with page.expect_response(
        lambda r: r.url.endswith('/api/standing-agents') and r.request.method == 'POST'
    ) as created:
        form.get_by_role('button', name='Create').click()
    assert created.value.status == 201
    expect(form).to_have_count(0)

    watch = card(page, 'Order watch')
    expect(watch.get_by_test_id('standing-state')).to_have_text('Enabled')
    # The agent by the name the rest of the dashboard gives it; its slug a hover away.
    expect(watch.get_by_test_id('standing-agent')).to_have_text('support_agent')
    expect(watch.get_by_test_id('agent-name')).to_have_attribute('data-slug', AGENT)
    expect(watch.get_by_test_id('standing-trigger')).to_have_text(
        [WORDS, 'On order.created, order.paid (debounce 30 s)']
    )
    next_run = watch.get_by_test_id('standing-next')
    expect(next_run).to_contain_text(re.compile(r'Next run in \d+ [a-z]+ · .*09:00'))
    expect(next_run).to_contain_text('(Europe/Madrid)')
    expect(watch).to_contain_text('No runs yet.')

    # Run now: the run shows up live, then turns to succeeded without a reload.
    reads: list[str] = []

    def read(response: Response) -> None:
        if '/api/standing-agents' in response.url and response.request.method == 'GET':
            reads.append(response.url)

    page.on('response', read)
    watch.get_by_role('button', name='Run now').click()
    run = watch.get_by_test_id('run-row').first
    status = run.get_by_test_id('task-status')
    expect(status).to_have_attribute('data-status', re.compile('^(queued|running)$'))
    expect(run.get_by_test_id('run-cost')).to_have_text('—')
    expect(status).to_have_attribute('data-status', 'succeeded', timeout=20_000)
    assert len(reads) >= 2, 'the list was not read again while the run was live'
    # The demo model has no price: unpriced, never $0.
    expect(run.get_by_test_id('run-cost')).to_have_text('unpriced')
    expect(run.get_by_test_id('run-duration')).to_have_text(re.compile(r'^\d'))
    task_id = run.get_attribute('data-task')
    assert task_id
    runs = page.get_by_test_id('runs').get_by_test_id('run-row')
    expect(runs).to_have_count(1)
    expect(runs.first.get_by_test_id('task-status')).to_have_text('Succeeded')
    shoot(page, 'tasks')

    # Its log: the model call, the tool call and its result, the output; a step's data unfolds.
    run.click()
    expect(page).to_have_url(re.compile(rf'/tasks\?task={task_id}$'))
    detail = page.get_by_test_id('task-detail')
    expect(detail).to_have_attribute('data-status', 'succeeded')
    expect(detail.get_by_test_id('task-trigger')).to_have_text('Run now')
    expect(detail.get_by_test_id('task-cost')).to_have_text('unpriced')
    tokens = re.compile(r'^[1-9][\d,]* in · [1-9][\d,]* out$')
    expect(detail.get_by_test_id('task-tokens')).to_have_text(tokens)
    expect(detail.get_by_role('button', name='Cancel')).to_have_count(0)
    steps = detail.get_by_test_id('log-step')
    kinds = [steps.nth(i).get_attribute('data-kind') for i in range(steps.count())]
    assert kinds[0] == 'started' and kinds[-1] == 'finished', kinds
    assert {'model_response', 'tool_call', 'tool_result', 'output'} <= set(kinds), kinds
    tool = detail.locator('[data-testid="log-step"][data-kind="tool_call"]').first
    expect(tool.get_by_test_id('log-message')).to_contain_text('lookup_order')
    tool.get_by_role('button', name='Data').click()
    expect(tool.get_by_test_id('json-view')).to_contain_text('A-1001')
    expect(detail.get_by_test_id('task-output')).not_to_be_empty()
    shoot(page, 'tasks-run')
    stored = httpx.get(f'{server.url}/api/tasks/{task_id}').json()
    assert stored['status'] == 'succeeded' and stored['conversation_id']
    assert [entry['kind'] for entry in stored['logs']] == kinds

    # The conversation the run produced, in the playground.
    detail.get_by_test_id('task-conversation').click()
    expect(page).to_have_url(re.compile(rf'/agents/{re.escape(AGENT)}/c/{stored["conversation_id"]}$'))
    expect(page.get_by_test_id('user-message').first).to_contain_text(INSTRUCTION)
    expect(page.get_by_test_id('assistant-message').last).to_contain_text('A-1001')

    # Back through the nav: pause, then resume.
    page.get_by_role('navigation', name='Workspace').get_by_role('link', name='Tasks').click()
    watch = card(page, 'Order watch')
    watch.get_by_role('button', name='Pause').click()
    expect(watch.get_by_test_id('standing-state')).to_have_text('Paused')
    expect(watch.get_by_test_id('standing-next')).to_have_text('Paused: no run until resumed')
    standing_id = httpx.get(f'{server.url}/api/standing-agents').json()['standing_agents'][0]['id']
    assert httpx.get(f'{server.url}/api/standing-agents/{standing_id}').json()['enabled'] is False
    watch.get_by_role('button', name='Resume').click()
    expect(watch.get_by_test_id('standing-state')).to_have_text('Enabled')
    expect(watch.get_by_test_id('standing-next')).to_contain_text('Next run in')
    assert httpx.get(f'{server.url}/api/standing-agents/{standing_id}').json()['enabled'] is True

    # Delete, confirmed: the standing agent goes, its run stays in the list.
    watch.get_by_role('button', name='Delete Order watch').click()
    confirm = page.get_by_role('alertdialog', name='Delete Order watch?')
    confirm.get_by_role('button', name='Delete').click()
    expect(page.get_by_text('No standing agents')).to_be_visible()
    expect(page.get_by_test_id('runs').get_by_test_id('run-row')).to_have_count(1)
    assert httpx.get(f'{server.url}/api/standing-agents/{standing_id}').status_code == 404
    assert httpx.get(f'{server.url}/api/tasks/{task_id}').status_code == 200

    # The only failed requests were the two refusals of the bad cron.
    assert sorted({problem.split('?')[0] for problem in problems(page)}) == [
        f'422 {server.url}/api/schedules/preview',
        f'422 {server.url}/api/standing-agents',
    ], problems(page)


def finished_run(server: Any) -> str:
    """A standing agent made and run through the API; the id of its run once it succeeded."""
    made = httpx.post(
        f'{server.url}/api/standing-agents',
        json={
            'name': 'Nightly order digest for the whole support team',
            'agent': AGENT,
            'instruction': INSTRUCTION,
            'cron': '30 2 * * *',
            'timezone': 'America/Argentina/Buenos_Aires',
            'events': ['order.created', 'order.refund_requested', 'order.shipping_label_printed'],
            'debounce_seconds': 600,
            'tenant': 'org:acme-logistics-international',
        },
    )
    assert made.status_code == 201, made.text
    queued = httpx.post(f'{server.url}/api/standing-agents/{made.json()["id"]}/run')
    assert queued.status_code == 202, queued.text
    task_id = str(queued.json()['task']['id'])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        status = httpx.get(f'{server.url}/api/tasks/{task_id}').json()['status']
        if status not in ('queued', 'running'):
            assert status == 'succeeded'
            return task_id
        time.sleep(0.2)
    raise AssertionError(f'task {task_id} did not finish')


def test_at_phone_width_nothing_scrolls_sideways(browser_page: Page, server: Any) -> None:
    task_id = finished_run(server)
    page = browser_page
    page.set_viewport_size(PHONE)
    page.goto(f'{server.url}/tasks')
    # On a phone the sidebar is a drawer, closed until its button opens it.
    expect(page.get_by_role('button', name='Open sidebar')).to_have_attribute('aria-expanded', 'false')
    watch = page.get_by_test_id('standing-card')
    expect(watch.get_by_test_id('standing-trigger').last).to_contain_text('(debounce 10 min)')
    expect(watch.get_by_test_id('run-row').get_by_test_id('task-status')).to_have_text('Succeeded')
    assert_fits(page, '[data-testid="tasks-page"]')
    shoot(page, 'tasks-phone')

    watch.get_by_role('button', name=re.compile('^Edit ')).click()
    form = page.get_by_role('form', name=re.compile('^Edit '))
    expect(form.get_by_test_id('schedule-words')).to_contain_text('02:30')
    expect(form.get_by_label('Events')).to_have_value(
        'order.created, order.refund_requested, order.shipping_label_printed'
    )
    assert_fits(page, 'dialog[open]')
    shoot(page, 'tasks-form-phone')
    # An edit sends what changed: the debounce, now 45 s.
    form.get_by_label('Debounce (seconds)').fill('45')
    with page.expect_response(
        lambda r: '/api/standing-agents/' in r.url and r.request.method == 'PATCH'
    ) as saved:
        form.get_by_role('button', name='Save').click()
    assert saved.value.status == 200
    assert saved.value.request.post_data_json == {'debounce_seconds': 45}
    expect(watch.get_by_test_id('standing-trigger').last).to_contain_text('(debounce 45 s)')

    watch.get_by_test_id('run-row').click()
    detail = page.get_by_test_id('task-detail')
    expect(detail).to_have_attribute('data-status', 'succeeded')
    expect(page).to_have_url(re.compile(rf'task={task_id}$'))
    assert_fits(page, '[data-testid="tasks-page"]')
    shoot(page, 'tasks-run-phone')
    assert problems(page) == []
