"""The Rules page end to end: Debian's Chromium against a real `synapse serve --demo` on an empty
store.

/rules says what rules are → a rule added through the form (a tenant that is not `type:id` first:
the server's 422 beside the field) is listed under its tenant → the preview for that tenant shows
the block the server renders, the rule in it, and another tenant's preview does not → a second rule
moved above the first comes first in the block → paused, the rule leaves the block (the list says
paused); resumed, it is back. Screenshots, in both themes, go to test-artifacts/screenshots/ (not
committed).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import Locator, Page, expect

from browser_helpers import problems, shoot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TENANT = 'firm:7'
OTHER_TENANT = 'firm:8'
RULE = 'Never quote fees over chat.'
SECOND = 'Cite the case number in every answer.'


@pytest.fixture
def server(live_server: Any) -> Any:
    return live_server(['--demo'])


@pytest.fixture
def page(browser_page: Page, server: Any) -> Page:
    browser_page.goto(f'{server.url}/rules')
    return browser_page


def add(page: Page, tenant: str, text: str) -> Any:
    """Fill the new-rule form and send it; the server's answer."""
    form = page.get_by_role('form', name='New rule')
    form.get_by_label('Tenant').fill(tenant)
    form.get_by_label('Text').fill(text)
    with page.expect_response(lambda r: r.url.endswith('/api/rules') and r.request.method == 'POST') as sent:
        form.get_by_role('button', name='Add').click()
    return sent.value


def preview(page: Page, server: Any, tenant: str) -> str:
    """Ask the page's preview for `tenant`; the block the API gives for it."""
    form = page.get_by_role('form', name='Rules preview')
    form.get_by_label('Tenant').fill(tenant)
    with page.expect_response(lambda r: '/api/rules/preview?' in r.url) as answered:
        form.get_by_role('button', name='Preview').click()
    assert answered.value.status == 200
    block: str = httpx.get(f'{server.url}/api/rules/preview', params={'tenant': tenant}).json()['block']
    return block


def row(page: Page, text: str) -> Locator:
    return page.get_by_test_id('rule-row').filter(has_text=text)


def test_add_list_preview_reorder_pause(page: Page, server: Any) -> None:
    expect(page.get_by_text('No rules yet')).to_be_visible()
    expect(page.get_by_text('synapse rules add')).to_be_visible()
    nav = page.get_by_role('navigation', name='Workspace').get_by_role('link', name='Rules')
    expect(nav).to_have_attribute('aria-current', 'page')
    shoot(page, 'rules-empty')

    # A tenant that is not `type:id`: the server's message beside the field, nothing saved.
    page.get_by_role('button', name='New rule').first.click()
    refused = add(page, 'acme', RULE)
    assert refused.status == 422
    form = page.get_by_role('form', name='New rule')
    expect(form.get_by_label('Tenant')).to_have_attribute('aria-invalid', 'true')
    expect(form).to_contain_text("expected 'type:id', got 'acme'.")
    shoot(page, 'rules-form', full_page=True)
    created = add(page, TENANT, RULE)
    assert created.status == 201
    expect(form).to_have_count(0)

    # Listed under its tenant, for the whole tenant and everyone.
    tenant = page.get_by_test_id('rules-tenant')
    expect(tenant).to_have_count(1)
    expect(tenant.get_by_role('heading', level=2)).to_have_text(TENANT)
    expect(tenant.get_by_role('heading', level=3)).to_have_text('Whole tenant')
    expect(row(page, RULE).get_by_test_id('rule-applies-to')).to_have_text('Applies to everyone')
    expect(row(page, RULE).get_by_test_id('rule-priority')).to_have_text('Priority 0')

    # The preview is the block the server renders, with the rule in it; another tenant gets none.
    block = preview(page, server, TENANT)
    assert RULE in block
    expect(page.get_by_test_id('rules-block')).to_have_text(block)
    assert RULE not in preview(page, server, OTHER_TENANT)
    expect(page.get_by_text('No rule applies.')).to_be_visible()
    expect(page.get_by_test_id('rules-block')).to_have_count(0)

    # A second rule, moved above the first: it comes first in the block.
    page.get_by_role('button', name='New rule').first.click()
    assert add(page, TENANT, SECOND).status == 201
    expect(page.get_by_test_id('rule-text')).to_have_text([RULE, SECOND])
    row(page, SECOND).get_by_role('button', name='Move up').click()
    expect(page.get_by_test_id('rule-text')).to_have_text([SECOND, RULE])
    block = preview(page, server, TENANT)
    assert block.index(SECOND) < block.index(RULE)
    expect(page.get_by_test_id('rules-block')).to_have_text(block)
    shoot(page, 'rules', full_page=True)

    # Paused: still listed, out of the block; resumed: back in it.
    row(page, RULE).get_by_role('button', name='Pause').click()
    expect(row(page, RULE).get_by_test_id('rule-paused')).to_have_text('Paused')
    expect(page.get_by_test_id('rules-block')).not_to_contain_text(RULE)
    rules = httpx.get(f'{server.url}/api/rules', params={'tenant': TENANT}).json()['rules']
    assert {rule['text']: rule['enabled'] for rule in rules} == {SECOND: True, RULE: False}
    assert RULE not in preview(page, server, TENANT)
    row(page, RULE).get_by_role('button', name='Resume').click()
    expect(row(page, RULE).get_by_test_id('rule-paused')).to_have_count(0)
    expect(page.get_by_test_id('rules-block')).to_contain_text(RULE)
    assert problems(page) == [f'422 {server.url}/api/rules']
