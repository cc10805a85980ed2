"""Amounts (spending limits, registry prices) are ASCII decimal digits only: a fullwidth or other
Unicode digit, which Python's `Decimal` would read, is a 422 naming the field, on every selected
database, and nothing is stored."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from spending_models import rows
from synapse_agents.accounting.tables import SpendingLimit
from synapse_agents.registry.tables import ModelPrice
from synapse_agents.store import Store

pytestmark = pytest.mark.any_database(
    reason='an amount is refused by request validation before anything is stored'
)

NOT_ASCII = ['\uff11\uff10', '\u0663', '1\uff10.5', '0.\uff15', '\u0967']
"""Fullwidth, Arabic-Indic and Devanagari digits, alone and mixed with ASCII ones."""


def location(response: Any) -> str:
    assert response.status_code == 422, response.text
    found: str = response.json()['error']['fields'][0]['location']
    return found


@pytest.mark.parametrize('amount', NOT_ASCII)
def test_a_limit_amount_takes_only_ascii_digits(client: TestClient, store: Store, amount: str) -> None:
    body = {'scope': 'user', 'scope_id': 'customer:1', 'period': 'calendar_day', 'amount': amount}
    assert location(client.post('/api/limits', json=body)) == 'body.amount'
    assert rows(store, SpendingLimit) == []


@pytest.mark.parametrize('amount', NOT_ASCII)
@pytest.mark.parametrize('field', ['input_per_mtok', 'output_per_mtok', 'cache_read_per_mtok'])
def test_a_price_takes_only_ascii_digits(client: TestClient, store: Store, amount: str, field: str) -> None:
    assert (
        client.post('/api/registry/models', json={'provider_key': 'openai', 'name': 'm'}).status_code == 201
    )
    price = {'input_per_mtok': '1', 'output_per_mtok': '2', field: amount}
    assert location(client.post('/api/registry/models/openai:m/prices', json=price)) == f'body.{field}'
    assert rows(store, ModelPrice) == []
    assert client.post('/api/registry/models/openai:m/prices', json={**price, field: '10'}).status_code == 201
