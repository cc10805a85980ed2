"""What the limit form offers (`GET /api/limits/choices`) and the worst call each limit shows.

Agents and presets are the ones Synapse knows, shown by name; tenants and users are the ones the
ledger has seen, most recent first, bounded, and a user list asked for one tenant never names
another tenant's users. Each limit answers the most one call's output may reserve under it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chat_helpers import DEMO
from spend_helpers import ledger_row, seed
from spending_models import add_price
from synapse_agents.accounting.limit_choices import choices
from synapse_agents.registry.prices import price_cache
from synapse_agents.registry.tables import AgentConfig, ModelPrice, Preset, RegistryModel
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.store import Store
from synapse_agents.web.access import AccessPolicy
from synapse_agents.web.app import create_app

CHOICES = '/api/limits/choices'
LIMITS = '/api/limits'
SUPPORT = DEMO + 'support-agent'
NOW = datetime.now(UTC)


@pytest.fixture
def registry(store: Store) -> None:
    """A configured agent `pirate-helper` on the preset `pricey` (acme-1, 100 tokens at most, 1000
    per million: 0.1 a call), a preset `fast-cheap` on the demo model, and the demo model priced at
    10 per million output tokens with 2000 at most (0.02 a call)."""
    add_price(store)
    with store.write() as session:
        session.add(AgentConfig(key='pirate-helper', name='Pirate helper', preset_key='pricey'))
        session.add(AgentConfig(key='sandboxed', name='Sandboxed', is_sandbox=True))
        session.add(Preset(key='pricey', name='Pricey', model='acme:acme-1', max_tokens=100))
        session.add(Preset(key='fast-cheap', name='Fast and cheap', model='demo'))
        session.add(
            RegistryModel(
                key='synapse:synapse-demo',
                provider_key='synapse',
                name='synapse-demo',
                max_output_tokens=2000,
            )
        )
        session.add(
            ModelPrice(
                model_key='synapse:synapse-demo',
                input_per_mtok=Decimal(1),
                output_per_mtok=Decimal(10),
                valid_from=NOW - timedelta(days=1),
            )
        )
    price_cache(store).forget()


@pytest.fixture
def ledger(store: Store) -> None:
    """Calls of two tenants: `org:a` (users 1 and 3) and `org:b` (user 2), and one of `shop:9`."""
    seed(
        store,
        ledger_row(created=NOW - timedelta(hours=5), tenant='org:a', user='user:1', agent='named-in-my-app'),
        ledger_row(created=NOW - timedelta(hours=4), tenant='org:b', user='user:2'),
        ledger_row(created=NOW - timedelta(hours=3), tenant='org:a', user='user:3'),
        ledger_row(created=NOW - timedelta(hours=2), tenant='shop:9', user='user:4'),
        ledger_row(created=NOW - timedelta(hours=1), tenant=None, user=None, preset='old-preset'),
    )


def listed(client: TestClient, **query: str) -> list[dict[str, Any]]:
    response = client.get(CHOICES, params=query)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body['scope'] == query['scope'] and body['truncated'] is False
    found: list[dict[str, Any]] = body['choices']
    return found


@pytest.mark.usefixtures('registry', 'ledger')
def test_agents_and_presets_are_the_known_ones_shown_by_name(client: TestClient) -> None:
    agents = {choice['value']: choice for choice in listed(client, scope='agent')}
    assert agents[SUPPORT] == {'value': SUPPORT, 'label': 'support_agent', 'source': 'discovered'}
    assert agents['config:pirate-helper'] == {
        'value': 'config:pirate-helper',
        'label': 'Pirate helper',
        'source': 'configured',
    }
    assert agents['named-in-my-app']['source'] == 'ledger'
    assert 'config:sandboxed' not in agents
    # Every agent offered is one a limit may name.
    for value in agents:
        body = {'scope': 'agent', 'scope_id': value, 'period': 'calendar_day', 'amount': '5'}
        assert client.post(LIMITS, json=body).status_code == 201, value

    presets = listed(client, scope='preset')
    assert [(c['value'], c['label'], c['source']) for c in presets] == [
        ('fast-cheap', 'Fast and cheap', 'registry'),
        ('pricey', 'Pricey', 'registry'),
        ('old-preset', 'old-preset', 'ledger'),
    ]
    assert [c['value'] for c in listed(client, scope='agent', q='PIRATE')] == ['config:pirate-helper']


@pytest.mark.usefixtures('ledger')
def test_tenants_and_users_come_from_the_ledger_most_recent_first(client: TestClient) -> None:
    assert [c['value'] for c in listed(client, scope='tenant')] == ['shop:9', 'org:a', 'org:b']
    assert [c['value'] for c in listed(client, scope='user')] == ['user:4', 'user:3', 'user:2', 'user:1']
    assert [c['value'] for c in listed(client, scope='tenant', q='ORG:')] == ['org:a', 'org:b']
    assert [c['source'] for c in listed(client, scope='user')] == ['ledger'] * 4


@pytest.mark.usefixtures('ledger')
def test_a_tenants_users_never_include_another_tenants(client: TestClient) -> None:
    assert [c['value'] for c in listed(client, scope='user', tenant='org:a')] == ['user:3', 'user:1']
    assert [c['value'] for c in listed(client, scope='user', tenant='org:b')] == ['user:2']
    assert [c['value'] for c in listed(client, scope='user', tenant='org')] == ['user:3', 'user:2', 'user:1']
    assert listed(client, scope='user', tenant='org:c') == []
    # A `%` or `_` in the tenant is a character, never a wildcard.
    assert listed(client, scope='user', tenant='org:%') == []
    assert listed(client, scope='user', tenant='or_') == []


@pytest.mark.usefixtures('ledger')
def test_the_listing_is_bounded(store: Store, context: SynapseContext) -> None:
    found, truncated = choices(store, context.catalog, 'user', limit=2)
    assert [c.value for c in found] == ['user:4', 'user:3'] and truncated
    found, truncated = choices(store, context.catalog, 'user', limit=4)
    assert len(found) == 4 and not truncated


@pytest.fixture
def token_client(context: SynapseContext) -> Iterator[TestClient]:
    app = create_app(context, access=AccessPolicy.with_token('test-token-0123456789'))
    with TestClient(app, base_url='http://synapse.internal', client=('10.0.0.5', 50000)) as client:
        yield client


@pytest.mark.usefixtures('ledger')
def test_the_choices_need_the_same_authorisation_as_every_route(token_client: TestClient) -> None:
    refused = token_client.get(CHOICES, params={'scope': 'tenant'})
    assert refused.status_code == 401
    assert 'org:a' not in refused.text
    admitted = token_client.get(
        CHOICES, params={'scope': 'tenant'}, headers={'Authorization': 'Bearer test-token-0123456789'}
    )
    assert admitted.status_code == 200 and [c['value'] for c in admitted.json()['choices']][1] == 'org:a'


def test_a_bad_scope_is_a_422(client: TestClient) -> None:
    assert client.get(CHOICES, params={'scope': 'planet'}).status_code == 422
    assert client.get(CHOICES).status_code == 422


# -- the worst call ----------------------------------------------------------------------------


def create(client: TestClient, scope: str, scope_id: str, **extra: str) -> dict[str, Any]:
    body = {'scope': scope, 'scope_id': scope_id, 'period': 'calendar_day', 'amount': '5', **extra}
    response = client.post(LIMITS, json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


@pytest.mark.usefixtures('registry', 'ledger')
def test_each_limit_shows_the_most_one_calls_output_may_reserve(client: TestClient) -> None:
    # A discovered agent: its model's max_output_tokens at its output price (2000 * 10 / 10**6).
    support = create(client, 'agent', SUPPORT)['worst_call']
    assert support == {
        'amount': '0.02',
        'currency': 'USD',
        'output_tokens': 2000,
        'model': 'synapse:synapse-demo',
        'agent': SUPPORT,
    }
    # A configured agent: its preset's model and max_tokens (100 * 1000 / 10**6).
    pirate = create(client, 'agent', 'config:pirate-helper')['worst_call']
    assert (pirate['amount'], pirate['output_tokens'], pirate['model']) == ('0.1', 100, 'acme:acme-1')
    # A preset: its model and max_tokens, no agent.
    preset = create(client, 'preset', 'pricey')['worst_call']
    assert (preset['amount'], preset['agent']) == ('0.1', None)
    # A tenant or a user: the dearest of every agent.
    tenant = create(client, 'tenant', 'org:a')['worst_call']
    assert (tenant['amount'], tenant['agent']) == ('0.1', 'config:pirate-helper')
    # An agent Synapse only saw in the ledger runs on no model it knows: no figure.
    assert create(client, 'agent', 'named-in-my-app')['worst_call'] is None
    # A model with no price: the figure says so (its calls reserve nothing).
    free = create(client, 'preset', 'fast-cheap')['worst_call']
    assert free['amount'] is None and free['output_tokens'] == 4096

    listing = {row['scope_id']: row['worst_call'] for row in client.get(LIMITS).json()['limits']}
    assert listing[SUPPORT] == support and listing['org:a'] == tenant
    one = client.get(f'{LIMITS}/{create(client, "user", "user:1")["id"]}').json()
    assert one['worst_call'] == tenant


@pytest.fixture
def euros(monkeypatch: pytest.MonkeyPatch) -> None:
    """1 EUR = 2 USD (set before the app reads its settings)."""
    monkeypatch.setenv('SYNAPSE_CURRENCY_RATES', '{"EUR": "2"}')


@pytest.mark.usefixtures('euros', 'registry')
def test_the_worst_call_is_in_the_limits_currency(client: TestClient) -> None:
    worst = create(client, 'preset', 'pricey', currency='EUR')['worst_call']
    assert (worst['amount'], worst['currency']) == ('0.05', 'EUR')
