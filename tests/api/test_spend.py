"""`GET /api/spend` on every selected database: the answer's shape, exact decimal strings, groups,
filters, totals, the stacked series, and every refused input."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chat_helpers import LOCAL_PEER, LOCAL_URL
from spend_helpers import accounting_app, at, ledger_row, seed
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.settings import load_settings
from synapse_agents.store import Store

SPEND = '/api/spend'


@pytest.fixture
def client(monkeypatch: pytest.MonkeyPatch, store: Store) -> Iterator[TestClient]:
    """The accounting router on an app of its own; 1 EUR = 1.08 USD, days in Paris."""
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
    monkeypatch.setenv('SYNAPSE_CURRENCY_RATES', '{"EUR": "1.08"}')
    monkeypatch.setenv('SYNAPSE_LIMITS_TIMEZONE', 'Europe/Paris')
    context = SynapseContext(loaded=load_settings(), store=store, targets=[], catalog=None)
    with TestClient(accounting_app(context), base_url=LOCAL_URL, client=LOCAL_PEER) as client:
        yield client


@pytest.fixture
def ledger(store: Store) -> None:
    seed(
        store,
        ledger_row(created=at('2026-05-01 08:00'), cost='0.1', user='customer:1', tenant='acme:1'),
        ledger_row(
            created=at('2026-05-01 09:00'), cost='0.2', user='customer:1', tenant='acme:1', model='m2'
        ),
        ledger_row(
            created=at('2026-05-01 22:30'), cost='1', currency='EUR', agent='billing', tenant='acme:2'
        ),
        ledger_row(created=at('2026-05-02 10:00'), cost=None, agent='billing', user='customer:2'),
        ledger_row(
            created=at('2026-05-03 10:00'), cost='0.0000000001', agent=None, model=None, tokens=(1, 2)
        ),
    )


def answer(client: TestClient, **params: Any) -> dict[str, Any]:
    response = client.get(SPEND, params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_the_report_by_day_in_the_limits_timezone(client: TestClient, ledger: None) -> None:
    body = answer(client)
    assert (body['by'], body['stack'], body['currency'], body['timezone']) == (
        'day',
        'agent',
        'USD',
        'Europe/Paris',
    )
    # 22:30 UTC on the 1st is 00:30 on the 2nd in Paris (summer time)
    assert body['rows'] == [
        {'key': '2026-05-01', 'day': '2026-05-01', 'calls': 2, 'input_tokens': 200, 'output_tokens': 40,
         'cost': '0.3', 'unpriced_calls': 0},
        {'key': '2026-05-02', 'day': '2026-05-02', 'calls': 2, 'input_tokens': 200, 'output_tokens': 40,
         'cost': '1.08', 'unpriced_calls': 1},
        {'key': '2026-05-03', 'day': '2026-05-03', 'calls': 1, 'input_tokens': 1, 'output_tokens': 2,
         'cost': '0.0000000001', 'unpriced_calls': 0},
    ]  # fmt: skip
    assert body['totals'] == {
        'calls': 5,
        'input_tokens': 401,
        'output_tokens': 82,
        'cost': '1.3800000001',
        'unpriced_calls': 1,
    }
    assert body['series'] == [
        {'day': '2026-05-01', 'key': 'support', 'cost': '0.3'},
        {'day': '2026-05-02', 'key': 'billing', 'cost': '1.08'},
        {'day': '2026-05-03', 'key': '', 'cost': '0.0000000001'},
    ]


def test_groups_by_agent_user_tenant_and_model(client: TestClient, ledger: None) -> None:
    def keys(by: str) -> dict[str, str | None]:
        rows = answer(client, by=by)['rows']
        assert all(row['day'] is None for row in rows)
        return {row['key']: row['cost'] for row in rows}

    assert keys('agent') == {'billing': '1.08', 'support': '0.3', '': '0.0000000001'}
    assert keys('user') == {'': '1.0800000001', 'customer:1': '0.3', 'customer:2': None}
    assert keys('tenant') == {'acme:2': '1.08', 'acme:1': '0.3', '': '0.0000000001'}
    assert keys('model') == {'gpt-x': '1.18', 'm2': '0.2', '': '0.0000000001'}
    series = answer(client, stack='model')['series']
    assert {(point['day'], point['key']) for point in series} == {
        ('2026-05-01', 'gpt-x'),
        ('2026-05-01', 'm2'),
        ('2026-05-02', 'gpt-x'),
        ('2026-05-03', ''),
    }


def test_filters(client: TestClient, ledger: None) -> None:
    def total(**params: Any) -> Any:
        totals = answer(client, **params)['totals']
        return totals['calls'], totals['cost']

    assert total(agent='billing') == (2, '1.08')
    assert total(agent='nobody') == (0, '0')
    assert total(user='customer:2') == (1, None)
    assert total(user='customer') == (3, '0.3')
    assert total(tenant='acme') == (3, '1.38')
    assert total(model='m2') == (1, '0.2')
    # dates are days of the report's zone; `to` includes its day
    assert total(**{'from': '2026-05-02'}) == (3, '1.0800000001')
    assert total(**{'to': '2026-05-01'}) == (2, '0.3')
    assert total(**{'from': '2026-05-01T22:00:00Z', 'to': '2026-05-02T23:59:59+02:00'}) == (2, '1.08')
    assert total(**{'from': '', 'to': ''}) == (5, '1.3800000001')


@pytest.mark.parametrize(
    ('params', 'location'),
    [
        ({'by': 'week'}, 'query.by'),
        ({'stack': 'user'}, 'query.stack'),
        ({'from': 'yesterday'}, 'query.from'),
        ({'to': '2026-13-01'}, 'query.to'),
        ({'agent': ''}, 'query.agent'),
        ({'user': 'x' * 256}, 'query.user'),
        ({'tenant': ''}, 'query.tenant'),
        ({'model': ''}, 'query.model'),
        ({'agent': 'a\x00b'}, 'query.agent'),
        ({'user': 'customer:\x00'}, 'query.user'),
    ],
)
def test_bad_input_is_a_422_naming_it(client: TestClient, params: dict[str, str], location: str) -> None:
    response = client.get(SPEND, params=params)
    assert response.status_code == 422, response.text
    error = response.json()['error']
    assert error['code'] == 'invalid_request'
    assert location.split('.')[1] in error['message'].split(':')[0]
    assert [field['location'] for field in error['fields']] == [location]
