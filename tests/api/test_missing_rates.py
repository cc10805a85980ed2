"""A price in a currency with no exchange rate, on every database: storing it answers a warning
saying what the ledger does with its calls, and the spend report names the currencies it could not
convert (the ledger's and the registry prices')."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from spend_helpers import at, ledger_row, seed
from synapse_agents.registry import models_store
from synapse_agents.settings import LoadedSettings, load_settings
from synapse_agents.store import Store

JPY_WARNING = (
    'no exchange rate for JPY to USD: calls priced with it count as unpriced in the spend report and '
    'in turn costs, and limits in another currency leave them out, until currency_rates gives one'
)


@pytest.fixture
def settings(store: Store, monkeypatch: pytest.MonkeyPatch) -> LoadedSettings:
    """The test's store; 1 EUR = 1.08 USD, and no other rate."""
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
    monkeypatch.setenv('SYNAPSE_CURRENCY_RATES', '{"EUR": "1.08"}')
    return load_settings()


def price(currency: str, valid_from: str | None = None) -> dict[str, Any]:
    found: dict[str, Any] = {'input_per_mtok': '100', 'output_per_mtok': '300', 'currency': currency}
    if valid_from is not None:
        found['valid_from'] = valid_from
    return found


def test_storing_a_price_without_a_rate_answers_a_warning(client: TestClient) -> None:
    created = client.post(
        '/api/registry/models', json={'provider_key': 'openai', 'name': 'm', 'prices': [price('JPY')]}
    )
    assert created.status_code == 201, created.text
    assert created.json()['warning'] == JPY_WARNING

    added = client.post('/api/registry/models/openai:m/prices', json=price('GBP', '2030-01-01T00:00:00Z'))
    assert added.status_code == 201, added.text
    assert added.json()['warning'] == JPY_WARNING.replace('JPY', 'GBP'), 'the new price is what is named'


@pytest.mark.parametrize('currency', ['USD', 'EUR'])
def test_a_price_in_the_reference_currency_or_one_with_a_rate_has_no_warning(
    client: TestClient, currency: str
) -> None:
    created = client.post(
        '/api/registry/models', json={'provider_key': 'openai', 'name': 'm', 'prices': [price(currency)]}
    )
    assert created.status_code == 201 and created.json()['warning'] is None
    added = client.post('/api/registry/models/openai:m/prices', json=price(currency, '2030-01-01T00:00:00Z'))
    assert added.status_code == 201 and added.json()['warning'] is None
    assert (
        client.post('/api/registry/models', json={'provider_key': 'openai', 'name': 'bare'}).json()['warning']
        is None
    )


def test_the_spend_report_names_the_currencies_without_a_rate(client: TestClient, store: Store) -> None:
    assert client.get('/api/spend').json()['missing_rates'] == []
    seed(
        store,
        ledger_row(created=at('2026-05-01 08:00'), cost='0.5'),
        ledger_row(created=at('2026-05-01 09:00'), cost='1', currency='EUR'),
        ledger_row(created=at('2026-05-01 10:00'), cost='150', currency='JPY'),
    )
    body = client.get('/api/spend').json()
    assert body['missing_rates'] == ['JPY']
    assert body['totals']['calls'] == 3 and body['totals']['unpriced_calls'] == 1, 'the JPY call'
    assert body['totals']['cost'] == '1.58', 'USD and EUR only: JPY cannot be added'

    models_store.create(store, {'provider_key': 'openai', 'name': 'm', 'prices': [price('CHF')]})
    assert client.get('/api/spend').json()['missing_rates'] == ['CHF', 'JPY'], 'a registry price too'
    filtered = client.get('/api/spend', params={'from': '2026-06-01'}).json()
    assert filtered['missing_rates'] == ['CHF'], "the report's own calls, and every registry price"
