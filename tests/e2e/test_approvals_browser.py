"""Tool calls that wait for a person, end to end: Debian's Chromium against a real
`synapse serve --demo`.

The demo `ops_agent` asks to restart a service and delete a backup, both needing approval. The
playground shows the approval card live; one call is approved, the other denied with a reason; the
run resumes in the same conversation, the card reads back the decisions (also after a reload), the
composer is usable again and the next message is answered.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from browser_helpers import composer, finished, last_answer, send, shoot, thread

pytestmark = [pytest.mark.browser, pytest.mark.slow]

AGENT = 'synapse_agents.demo.approvals.ops-agent'
ASK = 'Restart the billing service and delete backup 7.'


@pytest.fixture
def server(live_server: Any) -> Any:
    return live_server(['--demo'])


def test_approve_one_call_deny_another_and_the_conversation_goes_on(browser_page: Page, server: Any) -> None:
    page = browser_page
    page.goto(f'{server.url}/agents/{AGENT}')
    send(page, ASK)
    card = page.get_by_test_id('approval-card').last
    expect(card).to_have_attribute('data-awaiting', 'true')
    calls = card.get_by_test_id('approval-call')
    expect(calls).to_have_count(2)
    expect(calls.nth(0)).to_contain_text('restart_service')
    expect(calls.nth(1)).to_contain_text('delete_backup')
    finished(page)
    expect(composer(page)).to_be_disabled()
    hint = 'Approve or deny the tool calls above to continue'
    expect(composer(page)).to_have_attribute('placeholder', hint)
    expect(page).to_have_url(re.compile(r'/c/[0-9a-f-]{36}$'))
    conversation_id = page.url.rsplit('/', 1)[1]
    shoot(page, 'playground-approval-waiting')

    send_button = card.get_by_role('button', name='Send decisions')
    expect(send_button).to_be_disabled()
    card.get_by_role('group', name='Decision on restart_service').get_by_role(
        'button', name='Approve'
    ).click()
    expect(send_button).to_be_disabled()  # every call needs an answer
    card.get_by_role('group', name='Decision on delete_backup').get_by_role('button', name='Deny').click()
    card.get_by_role('textbox', name='Reason for denying delete_backup (optional)').fill('keep the backups')
    send_button.click()

    expect(page.get_by_test_id('user-message')).to_have_count(2)
    finished(page)
    expect(last_answer(page)).to_contain_text('restart_service')
    decided = page.get_by_test_id('approval-card').first
    expect(decided).to_have_attribute('data-awaiting', 'false')
    expect(decided).to_contain_text('Approved')
    expect(decided).to_contain_text('Denied: keep the backups')
    expect(composer(page)).to_be_enabled()
    shoot(page, 'playground-approval-decided')

    stored = thread(server, conversation_id)
    tools = [
        (message_index, part['tool']['name'], part['tool']['status'])
        for message_index, message in enumerate(stored['messages'])
        for part in message.get('parts') or []
        if part['type'] == 'tool'
    ]
    assert tools == [
        (1, 'restart_service', 'approved'),
        (1, 'delete_backup', 'denied'),
        (3, 'restart_service', 'success'),
    ]
    assert (
        stored['messages'][2]['content']
        == 'Approved restart_service.\nDenied delete_backup: keep the backups'
    )

    page.reload()
    decided = page.get_by_test_id('approval-card').first
    expect(decided).to_contain_text('Denied: keep the backups')
    send(page, 'Thanks, what did you do?')
    expect(page.get_by_test_id('user-message')).to_have_count(3)
    finished(page)
    assert len(thread(server, conversation_id)['messages']) == 6
