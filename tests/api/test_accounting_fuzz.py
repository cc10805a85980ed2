"""Schemathesis over the accounting operations: no 5xx, every answer as documented, on every database.

Like tests/api/test_fuzz.py, with ledger rows, limits and overruns in the store first, so that
generated requests meet existing limits as well as garbage (path ids are drawn from the seeded ones
half of the time). A valid-looking limit can still be refused for what a schema cannot state (a
time zone that does not exist, a currency with no rate, a user not named `type:id`, a second limit
for the same scope id and period), so creates and changes may answer 404, 409 or 422.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from schemathesis.config import SchemathesisConfig

from chat_helpers import LOCAL_PEER, LOCAL_URL
from fuzz_helpers import OpenApiOnce, declared_operations, from_this_machine, fuzz_examples, fuzz_operation
from spend_helpers import accounting_app, ledger_row, seed
from synapse_agents.accounting.tables import SpendingOverrun
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.settings import load_settings
from synapse_agents.store import Store

MAX_EXAMPLES = fuzz_examples(30)

OPERATIONS = [
    ('GET', '/api/spend'),
    ('GET', '/api/limits'),
    ('POST', '/api/limits'),
    ('GET', '/api/limits/overruns'),
    ('GET', '/api/limits/choices'),
    ('GET', '/api/limits/{limit_id}'),
    ('PATCH', '/api/limits/{limit_id}'),
    ('DELETE', '/api/limits/{limit_id}'),
]

REFUSABLE = {'POST': [201, 409, 422], 'PATCH': [200, 404, 409, 422], 'DELETE': [200, 404]}
"""What positive data may be answered with, by method (see the module docstring)."""


def seed_store(store: Store, client: TestClient) -> list[str]:
    """Ledger rows over a few days, two limits and an overrun of each; the limits' ids."""
    now = datetime.now(UTC)
    seed(
        store,
        *(
            ledger_row(created=now - timedelta(hours=7 * index), cost=cost, user=f'customer:{index % 3}')
            for index, cost in enumerate(['0.1', None, '2.5', '0.0000000001', '1'])
        ),
    )
    ids = []
    for body in (
        {'scope': 'user', 'scope_id': 'customer:1', 'period': 'calendar_day', 'amount': '5'},
        {'scope': 'agent', 'scope_id': 'support', 'period': 'sliding_month', 'amount': 20, 'currency': 'EUR'},
    ):
        response = client.post('/api/limits', json=body)
        assert response.status_code == 201, response.text
        ids.append(response.json()['id'])
    with store.write() as session:
        for limit_id in ids:
            session.add(
                SpendingOverrun(
                    limit_id=limit_id,
                    scope='user',
                    scope_id='customer:1',
                    period='calendar_day',
                    limit_amount=Decimal(5),
                    consumed=Decimal('4.9'),
                    estimated=Decimal('0.2'),
                    overrun=Decimal('0.1'),
                    currency='USD',
                    created_at=now,
                )
            )
    return ids


def config(ids: list[str]) -> SchemathesisConfig:
    operations: list[dict[str, Any]] = [
        {
            # One filter: an include-method and an include-path would each match on their own.
            'include-name-regex': f'^{method} /api/limits',
            'checks': {'positive_data_acceptance': {'expected-statuses': statuses}},
        }
        for method, statuses in REFUSABLE.items()
    ]
    return SchemathesisConfig.from_dict(
        {
            'dictionaries': {'limits': {'values': ids}},
            'parameters': {
                'path.limit_id': {'dictionary': 'limits', 'probability': 0.5},
                'query.limit': {'dictionary': 'limits', 'probability': 0.5},
            },
            'generation': {'max-examples': MAX_EXAMPLES, 'allow-x00': False},
            'operations': operations,
        }
    )


@pytest.fixture
def api_schema(monkeypatch: pytest.MonkeyPatch, store: Store, openapi_once: OpenApiOnce) -> Iterator[Any]:
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
    monkeypatch.setenv('SYNAPSE_CURRENCY_RATES', '{"EUR": "1.08"}')
    monkeypatch.setenv('SYNAPSE_LIMITS_TIMEZONE', 'Europe/Paris')
    context = SynapseContext(loaded=load_settings(), store=store, targets=[], catalog=None)
    app = openapi_once.reuse(accounting_app(context))
    with TestClient(app, base_url=LOCAL_URL, client=LOCAL_PEER) as client:
        ids = seed_store(store, client)
        yield schemathesis.openapi.from_asgi('/openapi.json', from_this_machine(app), config=config(ids))


def test_every_accounting_operation_is_fuzzed(api_schema: Any) -> None:
    assert sorted(declared_operations(api_schema)) == sorted(OPERATIONS)


@pytest.mark.parametrize(('method', 'path'), OPERATIONS, ids=[f'{m} {p}' for m, p in OPERATIONS])
def test_operation(api_schema: Any, method: str, path: str) -> None:
    fuzz_operation(api_schema[path][method], MAX_EXAMPLES)
