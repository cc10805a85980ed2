"""The registry end to end: Debian's Chromium against a real `synapse serve --demo` on a temporary
home with a `secret_key` set.

Create an `openai-compatible` provider with an API key (the page shows only its last four
characters, never the key) and test it → a model it serves, unpriced until a price is added → a
preset on the offline `demo` model → a tone → an agent using both, which "New agent" opens in the
playground → a message streams the demo model's answer → a reload replays the conversation → the
agents page shows the agent with its configured badge → an edit makes version 2 → a setting is
stored, then reset.

A second run builds an agent on the demo's own tools: the tool picker lists them, an output schema
the server refuses is named beside its field (what was typed stays), and a chat turn with the agent
calls the picked tool and answers with structured output of the schema's shape.
Screenshots, in both themes, go to test-artifacts/screenshots/ (not committed).
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from browser_helpers import last_answer, problems, shoot
from synapse_agents.encryption import new_key

pytestmark = [pytest.mark.browser, pytest.mark.slow]

API_KEY = 'sk-local-registry-7Hq2pLmN9xWz'
"""The provider's key: of it, only its last four characters may ever reach the page."""
LAST4 = API_KEY[-4:]
HELLO = 'Hello from the registry'


@pytest.fixture
def server(live_server: Any) -> Any:
    return live_server(['--demo'], env={'SYNAPSE_SECRET_KEY': new_key()})


@pytest.fixture
def page(browser_page: Page, server: Any) -> Page:
    browser_page.goto(server.url + '/')
    return browser_page


def form(page: Page, name: str) -> Any:
    return page.get_by_role('form', name=name)


def field(container: Any, label: str) -> Any:
    """A form field by its label (a required one's label ends with `*`)."""
    return container.get_by_label(re.compile(rf'^{re.escape(label)}( \*)?$'))


def row(page: Page, key: str) -> Any:
    return page.locator(f'[data-testid="registry-row"][data-key="{key}"]')


def open_tab(page: Page, name: str) -> None:
    page.get_by_role('tab', name=name).click()
    expect(page).to_have_url(re.compile(rf'/registry/{name.lower()}'))


def test_provider_preset_tone_agent_then_chat(page: Page, server: Any) -> None:
    page.get_by_role('link', name='Registry').click()
    expect(page).to_have_url(re.compile(r'/registry$'))
    expect(page.get_by_role('tab', name='Providers')).to_have_attribute('aria-selected', 'true')

    # A provider with an API key: only its last four characters come back, anywhere.
    page.get_by_role('button', name='New provider').click()
    new = form(page, 'New provider')
    field(new, 'Key').fill('local-llm')
    field(new, 'Kind').select_option('openai-compatible')
    field(new, 'Name').fill('Local LLM')
    field(new, 'Base URL').fill('http://127.0.0.1:9/v1')
    field(new, 'API key').fill(API_KEY)
    with page.expect_response(
        lambda r: r.url.endswith('/api/registry/providers') and r.request.method == 'POST'
    ) as created:
        new.get_by_role('button', name='Create').click()
    assert created.value.status == 201
    assert API_KEY not in created.value.text()
    expect(new).to_have_count(0)
    provider = row(page, 'local-llm')
    expect(provider.get_by_test_id('secret-status')).to_have_text(f'set · ••••{LAST4}')
    assert API_KEY not in page.content()
    listed = httpx.get(f'{server.url}/api/registry/providers')
    assert API_KEY not in listed.text
    assert listed.json()['providers'][0]['secret_last4'] == LAST4
    shoot(page, 'registry-providers')

    # Editing it shows the key's state, never the key; Replace and Remove are offered.
    provider.get_by_role('button', name='Edit local-llm').click()
    edit = form(page, 'Edit provider local-llm')
    expect(edit.get_by_test_id('secret-status')).to_have_text(f'set · ••••{LAST4}')
    expect(edit.get_by_role('button', name='Replace')).to_be_visible()
    expect(edit.get_by_role('button', name='Remove')).to_be_visible()
    assert API_KEY not in page.content()
    edit.get_by_role('button', name='Cancel').click()
    expect(edit).to_have_count(0)

    # Test: nothing listens on that port, so the provider's own error shows, readable.
    provider.get_by_role('button', name='Test').click()
    test = form(page, 'Test provider')
    test.get_by_label('Model at the provider').fill('llama3.2')
    test.get_by_role('button', name='Run test').click()
    result = test.get_by_test_id('provider-test-result')
    expect(result).to_contain_text('Failed', timeout=60_000)
    expect(result.locator('pre')).not_to_be_empty()
    shoot(page, 'registry-provider-test')
    page.keyboard.press('Escape')
    expect(test).to_have_count(0)

    # A model the provider serves: unpriced (never $0) until a price is added, then exact.
    open_tab(page, 'Models')
    page.get_by_role('button', name='New model').click()
    new = form(page, 'New model')
    field(new, 'Provider').fill('local-llm')
    field(new, 'Name at the provider').fill('llama3.2')
    new.get_by_role('button', name='Create').click()
    edit = form(page, 'Edit model local-llm:llama3.2')
    expect(edit).to_be_visible()
    prices = page.get_by_role('region', name='Prices')
    expect(prices.get_by_test_id('current-price')).to_have_text('Now: unpriced')
    expect(row(page, 'local-llm:llama3.2')).to_contain_text('unpriced')
    prices.get_by_role('button', name='Add price').click()
    price = form(page, 'Add price')
    field(price, 'Input').fill('0.15')
    field(price, 'Output').fill('0.6')
    price.get_by_role('button', name='Add price').click()
    expect(prices.get_by_test_id('current-price')).to_have_text('Now: $0.15 in · $0.60 out / M tokens')
    expect(row(page, 'local-llm:llama3.2')).to_contain_text('$0.15 in · $0.60 out')
    shoot(page, 'registry-model-prices')
    page.keyboard.press('Escape')
    expect(edit).to_have_count(0)
    model = httpx.get(f'{server.url}/api/registry/models/local-llm:llama3.2').json()
    assert (model['price']['input_per_mtok'], model['price']['output_per_mtok']) == ('0.15', '0.6')

    # A preset on the offline demo model, with a temperature.
    open_tab(page, 'Presets')
    page.get_by_role('button', name='New preset').click()
    new = form(page, 'New preset')
    field(new, 'Key').fill('calm-demo')
    field(new, 'Name').fill('Calm demo')
    field(new, 'Model').fill('demo')
    field(new, 'Temperature').fill('0.3')
    new.get_by_role('button', name='Create').click()
    expect(new).to_have_count(0)
    expect(row(page, 'calm-demo')).to_contain_text('0.3')
    preset = httpx.get(f'{server.url}/api/registry/presets/calm-demo').json()
    assert (preset['model'], preset['temperature']) == ('demo', 0.3)

    # A tone.
    open_tab(page, 'Tones')
    page.get_by_role('button', name='New tone').click()
    new = form(page, 'New tone')
    field(new, 'Key').fill('pirate')
    field(new, 'Name').fill('Pirate')
    field(new, 'Emoji').fill('🦜')
    field(new, 'Instructions').fill('Answer like a friendly pirate.')
    new.get_by_role('button', name='Create').click()
    expect(new).to_have_count(0)
    expect(row(page, 'pirate')).to_contain_text('🦜 Pirate')

    # An agent using both; "New agent" opens its playground once created.
    open_tab(page, 'Agents')
    page.get_by_role('button', name='New agent').click()
    new = form(page, 'New agent')
    field(new, 'Key').fill('deckhand')
    field(new, 'Name').fill('Deckhand')
    field(new, 'Description').fill('Answers questions about the ship.')
    field(new, 'Instructions').fill('You help with the ship.')
    field(new, 'Preset').select_option('calm-demo')
    field(new, 'Tone').select_option('pirate')
    shoot(page, 'registry-new-agent')
    new.get_by_role('button', name='Create and open').click()
    expect(page).to_have_url(f'{server.url}/agents/config:deckhand')
    expect(page.get_by_test_id('playground-empty')).to_be_visible()

    # A message: the demo model's answer streams in; the URL names the conversation.
    box = page.get_by_role('textbox', name='Message')
    box.fill(HELLO)
    box.press('Enter')
    expect(page.get_by_test_id('user-message')).to_contain_text(HELLO)
    expect(last_answer(page)).to_have_attribute('aria-busy', 'false')
    expect(last_answer(page)).to_contain_text('Demo reply')
    # The demo model quotes the instructions it got: the agent's, then its tone's.
    expect(last_answer(page)).to_contain_text('You help with the ship. Answer like a friendly pirate.')
    expect(page).to_have_url(re.compile(r'/agents/config:deckhand/c/[0-9a-f-]{36}$'))
    # Regenerate appears once the stored question is known: the answer has settled.
    expect(last_answer(page).get_by_role('button', name='Regenerate')).to_be_visible()
    answer = last_answer(page).inner_text()
    conversation_id = page.url.rsplit('/', 1)[1]
    shoot(page, 'registry-agent-playground')

    # A reload replays it from the store; the answer records the agent's version.
    page.reload()
    expect(page.get_by_test_id('user-message')).to_contain_text(HELLO)
    expect(last_answer(page)).to_have_attribute('aria-busy', 'false')
    expect(last_answer(page).get_by_role('button', name='Regenerate')).to_be_visible()
    assert last_answer(page).inner_text() == answer
    stored = httpx.get(f'{server.url}/api/conversations/{conversation_id}').json()
    assistant = [m for m in stored['messages'] if m['role'] == 'assistant']
    assert assistant and assistant[-1]['meta']['agent_version'] == 1

    # The agents page lists it beside the code agents, badged, and its card opens the playground.
    page.get_by_role('link', name='Agents', exact=True).click()
    card = page.get_by_test_id('agent-card').filter(has_text='Deckhand')
    expect(card.get_by_test_id('configured-badge')).to_be_visible()
    expect(card).to_contain_text('v1')
    expect(page.get_by_test_id('agent-card').filter(has_text='support_agent')).to_be_visible()
    shoot(page, 'registry-agents-page')
    card.get_by_role('link', name='Deckhand', exact=True).click()
    expect(page).to_have_url(f'{server.url}/agents/config:deckhand')

    # Back in the registry, the agent's row shows its version.
    page.goto(f'{server.url}/registry/agents')
    expect(row(page, 'deckhand')).to_contain_text('v1')
    # An edit makes version 2; both versions can be read back.
    row(page, 'deckhand').get_by_role('button', name='Edit deckhand').click()
    edit = form(page, 'Edit agent deckhand')
    field(edit, 'Instructions').fill('You help with the ship, briefly.')
    edit.get_by_role('button', name='Save').click()
    expect(edit).to_have_count(0)
    expect(row(page, 'deckhand')).to_contain_text('v2')
    row(page, 'deckhand').get_by_role('button', name='Edit deckhand').click()
    page.get_by_role('button', name='Versions (2)').click()
    versions = page.get_by_test_id('agent-version')
    expect(versions).to_have_count(2)
    expect(versions.first).to_contain_text('current')
    shoot(page, 'registry-agent-versions')
    page.keyboard.press('Escape')
    shoot(page, 'registry-agents')

    # Settings: a stored value wins over the default; Reset brings the default back.
    open_tab(page, 'Settings')
    language = page.locator('[data-testid="setting-row"][data-name="language"]')
    expect(language.get_by_test_id('setting-source')).to_have_text('default')
    language.get_by_role('button', name='Edit').click()
    language.get_by_role('textbox', name='language').fill('de')
    language.get_by_role('button', name='Save').click()
    expect(language.get_by_test_id('setting-source')).to_have_text('registry')
    expect(language).to_contain_text('de')
    shoot(page, 'registry-settings')
    language.get_by_role('button', name='Reset').click()
    expect(language.get_by_test_id('setting-source')).to_have_text('default')
    expect(language.get_by_role('button', name='Reset')).to_have_count(0)
    assert API_KEY not in page.content()
    assert problems(page) == []


ORDER_STATUS = {
    'type': 'object',
    'title': 'OrderStatus',
    'properties': {'order_id': {'type': 'string'}, 'status': {'type': 'string'}},
    'required': ['order_id', 'status'],
}


def fill_json(box: Any, value: str) -> None:
    """Replace a JSON field's text (typed as a user would paste it)."""
    box.fill('')
    box.fill(value)


def test_an_agent_with_a_demo_tool_and_an_output_schema(page: Page, server: Any) -> None:
    created = httpx.post(f'{server.url}/api/registry/presets', json={'key': 'demo', 'model': 'demo'})
    assert created.status_code == 201, created.text
    page.goto(f'{server.url}/registry/agents')
    page.get_by_role('button', name='New agent').click()
    new = form(page, 'New agent')
    field(new, 'Key').fill('order-desk')
    field(new, 'Instructions').fill('Look orders up and report their status.')
    field(new, 'Preset').select_option('demo')

    # The picker offers the demo's own tools.
    new.get_by_role('button', name='Pick tools').click()
    picker = page.get_by_role('group', name='Pick tools')
    expect(picker.get_by_role('checkbox', name=re.compile(r'^lookup_order'))).to_be_visible()
    expect(picker.get_by_role('checkbox', name=re.compile(r'^create_ticket'))).to_be_visible()
    picker.get_by_role('checkbox', name=re.compile(r'^lookup_order')).check()
    page.keyboard.press('Escape')
    expect(new.get_by_role('list', name='Chosen tools')).to_contain_text('lookup_order')

    # A schema that is not one: the server's 422 is shown beside the field, the text kept.
    output = field(new, 'Output schema')
    wrong = '{"type": "nonsense"}'
    fill_json(output, wrong)
    with page.expect_response(
        lambda r: r.url.endswith('/api/registry/agents') and r.request.method == 'POST'
    ) as refused:
        new.get_by_role('button', name='Create and open').click()
    assert refused.value.status == 422
    expect(output).to_have_attribute('aria-invalid', 'true')
    expect(new.get_by_test_id('field-error')).to_contain_text('type: not a valid JSON Schema')
    expect(output).to_have_value(wrong)
    expect(field(new, 'Key')).to_have_value('order-desk')
    expect(new.get_by_role('list', name='Chosen tools')).to_contain_text('lookup_order')
    shoot(page, 'registry-agent-schema-error')

    fill_json(output, json.dumps(ORDER_STATUS, indent=2))
    new.get_by_role('button', name='Create and open').click()
    expect(page).to_have_url(f'{server.url}/agents/config:order-desk')
    stored = httpx.get(f'{server.url}/api/registry/agents/order-desk').json()
    assert stored['tools'] == ['lookup_order'] and stored['spec'] == {'output_schema': ORDER_STATUS}

    # A turn calls the demo tool and answers with the schema's shape.
    box = page.get_by_role('textbox', name='Message')
    box.fill('Where is order A-1001?')
    box.press('Enter')
    expect(last_answer(page)).to_have_attribute('aria-busy', 'false')
    tool = page.get_by_test_id('tool-card').filter(has_text='lookup_order')
    expect(tool).to_have_attribute('data-status', 'success')
    tool.get_by_role('button').first.click()
    expect(tool).to_contain_text('shipped')
    structured = page.get_by_test_id('structured-output')
    expect(structured).to_contain_text('"order_id"')
    expect(structured).to_contain_text('"A-1001"')
    shoot(page, 'registry-agent-structured')

    # Editing shows the stored schema.
    page.goto(f'{server.url}/registry/agents')
    row(page, 'order-desk').get_by_role('button', name='Edit order-desk').click()
    edit = form(page, 'Edit agent order-desk')
    assert json.loads(field(edit, 'Output schema').input_value()) == ORDER_STATUS
    expect(field(edit, 'Deps schema')).to_have_value('')
    assert problems(page) == [f'422 {server.url}/api/registry/agents'], 'only the refused schema'
