"""`/api/limits` on every selected database: create, list, read, change and remove limits, what
their window holds, the overrun log, and every refused input (422), missing id (404) and clash (409)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chat_helpers import LOCAL_PEER, LOCAL_URL
from spend_helpers import accounting_app, ledger_row, seed
from synapse_agents.accounting.tables import SpendingOverrun, SpendingReservation
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.settings import load_settings
from synapse_agents.store import Store
from synapse_agents.store.ids import new_id

LIMITS = '/api/limits'
OVERRUNS = '/api/limits/overruns'


@pytest.fixture
def client(monkeypatch: pytest.MonkeyPatch, store: Store) -> Iterator[TestClient]:
    """The accounting router on an app of its own; 1 EUR = 1.08 USD, calendar limits in Paris."""
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
    monkeypatch.setenv('SYNAPSE_CURRENCY_RATES', '{"EUR": "1.08"}')
    monkeypatch.setenv('SYNAPSE_LIMITS_TIMEZONE', 'Europe/Paris')
    context = SynapseContext(loaded=load_settings(), store=store, targets=[], catalog=None)
    with TestClient(accounting_app(context), base_url=LOCAL_URL, client=LOCAL_PEER) as client:
        yield client


def known_agent(store: Store) -> None:
    """The ledger has seen the agent `support` (long ago): an agent limit may name it."""
    seed(store, ledger_row(created=datetime(2020, 1, 1, tzinfo=UTC), agent='support'))


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    body = {'scope': 'user', 'scope_id': 'customer:1', 'period': 'calendar_day', 'amount': '5', **body}
    response = client.post(LIMITS, json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def refused(response: Any, status: int, location: str | None = None) -> str:
    assert response.status_code == status, response.text
    error = response.json()['error']
    if location is not None:
        assert location in [field['location'] for field in error['fields']], error
        assert location.split('.')[-1] in error['message'], error
    message: str = error['message']
    return message


def test_create_list_read_change_and_remove(client: TestClient, store: Store) -> None:
    known_agent(store)
    created = create(client, amount='5.50')
    assert {key: created[key] for key in ('scope', 'scope_id', 'period', 'amount', 'enabled')} == {
        'scope': 'user',
        'scope_id': 'customer:1',
        'period': 'calendar_day',
        'amount': '5.5',
        'enabled': True,
    }
    # left out: the reference currency and limits_timezone
    assert (created['currency'], created['timezone']) == ('USD', 'Europe/Paris')
    assert (created['consumed'], created['headroom']) == ('0', '5.5')
    start = datetime.fromisoformat(created['window_start'])
    end = datetime.fromisoformat(created['window_end'])
    assert start <= datetime.now(UTC) < end and timedelta(hours=23) <= end - start <= timedelta(hours=25)
    assert created['window_start'].endswith('Z') and created['created_at'].endswith('Z')

    other = create(
        client, scope='agent', scope_id='support', period='sliding_month', amount=12.25, currency='EUR'
    )
    assert (other['amount'], other['currency']) == ('12.25', 'EUR')
    listed = client.get(LIMITS).json()['limits']
    assert [(row['scope'], row['scope_id']) for row in listed] == [
        ('agent', 'support'),
        ('user', 'customer:1'),
    ]

    assert client.get(f'{LIMITS}/{created["id"]}').json() == created
    changed = client.patch(
        f'{LIMITS}/{created["id"]}', json={'amount': '7', 'enabled': False, 'timezone': 'UTC'}
    )
    assert changed.status_code == 200, changed.text
    body = changed.json()
    assert (body['amount'], body['enabled'], body['timezone'], body['currency']) == ('7', False, 'UTC', 'USD')
    assert body['updated_at'] >= created['updated_at'] and body['created_at'] == created['created_at']

    removed = client.delete(f'{LIMITS}/{created["id"]}')
    assert removed.status_code == 200 and removed.json() == {'deleted': created['id']}
    refused(client.get(f'{LIMITS}/{created["id"]}'), 404)
    assert [row['id'] for row in client.get(LIMITS).json()['limits']] == [other['id']]


def test_consumed_and_headroom_come_from_the_ledger_in_the_window(client: TestClient, store: Store) -> None:
    now = datetime.now(UTC)
    seed(
        store,
        ledger_row(created=now - timedelta(minutes=5), cost='1.25', cost_reference='1.25',
                   reference_currency='USD', user='customer:1'),
        ledger_row(created=now - timedelta(minutes=4), cost='0.25', cost_reference='0.25',
                   reference_currency='USD', user='customer:1'),
        ledger_row(created=now - timedelta(minutes=3), cost='9', cost_reference='9',
                   reference_currency='USD', user='customer:2'),
        ledger_row(created=now - timedelta(days=3), cost='9', cost_reference='9',
                   reference_currency='USD', user='customer:1'),
    )  # fmt: skip
    with store.write() as session:
        session.add(SpendingReservation(user='customer:1', amount=Decimal('0.5'), currency='USD',
                                        expires_at=now + timedelta(minutes=10)))  # fmt: skip
        session.add(SpendingReservation(user='customer:1', amount=Decimal('7'), currency='USD',
                                        expires_at=now - timedelta(minutes=1)))  # fmt: skip
    # the ledger's 1.5 in the last 24 hours, and the live reservation's 0.5 (the expired one is gone)
    limit = create(client, period='sliding_day', amount='5')
    assert (limit['consumed'], limit['headroom']) == ('2', '3')
    # in EUR (1 EUR = 1.08 USD): the month's 10.5 spent and 0.5 reserved, 11 USD
    euros = create(client, period='sliding_month', amount='5', currency='EUR')
    assert (euros['consumed'], euros['headroom']) == ('10.1851851852', '0')
    over = create(client, scope_id='customer:2', period='sliding_day', amount='5')
    assert (over['consumed'], over['headroom']) == ('9', '0')  # never below 0
    listed = {row['id']: row for row in client.get(LIMITS).json()['limits']}
    assert listed[limit['id']]['consumed'] == '2' and listed[euros['id']]['headroom'] == '0'


@pytest.mark.parametrize(
    ('body', 'location'),
    [
        ({'scope': 'team'}, 'body.scope'),
        ({'period': 'weekly'}, 'body.period'),
        ({'timezone': 'Mars/Olympus_Mons'}, 'body.timezone'),
        ({'timezone': '../../etc/passwd'}, 'body.timezone'),
        ({'timezone': ''}, 'body.timezone'),
        ({'currency': 'GBP'}, 'body.currency'),
        ({'currency': 'usd'}, 'body.currency'),
        ({'amount': '0'}, 'body.amount'),
        ({'amount': -1}, 'body.amount'),
        ({'amount': 'five'}, 'body.amount'),
        ({'amount': '0.00000000001'}, 'body.amount'),
        ({'amount': '1000000000'}, 'body.amount'),
        ({'amount': 'NaN'}, 'body.amount'),
        ({'amount': '1e3'}, 'body.amount'),
        ({'amount': ' 5'}, 'body.amount'),
        ({'amount': 0.00000000001}, 'body.amount'),
        ({'amount': True}, 'body.amount'),
        ({'scope_id': 'customer'}, 'body.scope_id'),
        ({'scope_id': ':1'}, 'body.scope_id'),
        ({'scope_id': ''}, 'body.scope_id'),
        ({'scope_id': ' padded'}, 'body.scope_id'),
        ({'enabled': 'sometimes'}, 'body.enabled'),
        ({'colour': 'red'}, 'body.colour'),
    ],
)
def test_a_bad_limit_is_a_422_naming_the_field(
    client: TestClient, body: dict[str, Any], location: str
) -> None:
    full = {'scope': 'user', 'scope_id': 'customer:1', 'period': 'calendar_day', 'amount': '5', **body}
    refused(client.post(LIMITS, json=full), 422, location)
    assert client.get(LIMITS).json() == {'limits': []}


@pytest.mark.parametrize(
    ('amount', 'shown'),
    [('0.50', '0.5'), (0.5, '0.5'), (7, '7'), ('100000000', '100000000'), ('0.0000000001', '0.0000000001')],
)
def test_amounts_as_text_or_numbers(client: TestClient, amount: Any, shown: str) -> None:
    assert create(client, amount=amount)['amount'] == shown


def test_a_missing_field_is_a_422_naming_it(client: TestClient) -> None:
    refused(
        client.post(LIMITS, json={'scope': 'user', 'period': 'calendar_day', 'amount': 1}),
        422,
        'body.scope_id',
    )


@pytest.mark.parametrize(
    ('patch', 'location'),
    [
        ({'amount': None}, 'body.amount'),
        ({'amount': '-2'}, 'body.amount'),
        ({'timezone': 'Nowhere/Town'}, 'body.timezone'),
        ({'currency': 'CHF'}, 'body.currency'),
        ({'period': 'hourly'}, 'body.period'),
        ({'scope': 'user'}, 'body.scope_id'),  # `support` names no user: type:id is needed
        ({'enabled': None}, 'body.enabled'),
        ({'id': 'x'}, 'body.id'),
    ],
)
def test_a_bad_change_is_a_422_and_changes_nothing(
    client: TestClient, store: Store, patch: dict[str, Any], location: str
) -> None:
    known_agent(store)
    limit = create(client, scope='agent', scope_id='support')
    refused(client.patch(f'{LIMITS}/{limit["id"]}', json=patch), 422, location)
    assert client.get(f'{LIMITS}/{limit["id"]}').json() == limit


@pytest.mark.parametrize(
    'limit_id',
    ['nope', '0' * 36, '01a23000-0000-7000-8000-000000000000', 'x' * 300],
    ids=['word', 'zeros', 'unknown-id', 'long'],
)
def test_an_unknown_limit_is_a_404(client: TestClient, limit_id: str) -> None:
    for response in (
        client.get(f'{LIMITS}/{limit_id}'),
        client.patch(f'{LIMITS}/{limit_id}', json={'amount': '1'}),
        client.delete(f'{LIMITS}/{limit_id}'),
    ):
        assert 'No spending limit' in refused(response, 404)


def test_a_second_limit_for_the_same_scope_id_and_period_is_a_409(client: TestClient) -> None:
    first = create(client)
    message = refused(client.post(LIMITS, json={'scope': 'user', 'scope_id': 'customer:1',
                                               'period': 'calendar_day', 'amount': '9'}), 409)  # fmt: skip
    assert first['id'] in message
    monthly = create(client, period='calendar_month')
    refused(client.patch(f'{LIMITS}/{monthly["id"]}', json={'period': 'calendar_day'}), 409)
    assert client.get(f'{LIMITS}/{monthly["id"]}').json()['period'] == 'calendar_month'


def _overrun(limit_id: str | None, created: datetime, **extra: Any) -> SpendingOverrun:
    values: dict[str, Any] = {
        'limit_id': limit_id,
        'user': 'customer:1',
        'tenant': 'acme:1',
        'scope': 'user',
        'scope_id': 'customer:1',
        'period': 'calendar_day',
        'limit_amount': Decimal('5'),
        'consumed': Decimal('4.9'),
        'estimated': Decimal('0.2000000001'),
        'overrun': Decimal('0.1000000001'),
        'currency': 'USD',
        'agent_key': 'support',
        'conversation_id': new_id(),
        'run_id': new_id(),
        'created_at': created,
        **extra,
    }
    return SpendingOverrun(**values)


def test_overruns_are_listed_newest_first_filtered_and_paged(client: TestClient, store: Store) -> None:
    first, second = new_id(), new_id()
    start = datetime(2026, 5, 1, 12, tzinfo=UTC)
    with store.write() as session:
        for index in range(55):
            session.add(_overrun(first, start + timedelta(minutes=index)))
        for index in range(3):
            session.add(_overrun(second, start + timedelta(days=3, minutes=index)))
    page = client.get(OVERRUNS).json()
    assert page['total'] == 58 and len(page['overruns']) == 50
    newest = page['overruns'][0]
    assert newest['limit_id'] == second and newest['created_at'] == '2026-05-04T12:02:00.000Z'
    assert (newest['limit_amount'], newest['consumed'], newest['estimated'], newest['overrun']) == (
        '5',
        '4.9',
        '0.2000000001',
        '0.1000000001',
    )
    assert set(newest) == {
        'id', 'limit_id', 'user', 'tenant', 'scope', 'scope_id', 'period', 'limit_amount', 'consumed',
        'estimated', 'overrun', 'currency', 'agent_key', 'conversation_id', 'run_id', 'created_at',
    }  # fmt: skip
    stamps = [row['created_at'] for row in page['overruns']]
    assert stamps == sorted(stamps, reverse=True)
    last = client.get(OVERRUNS, params={'page': 2}).json()
    assert last['total'] == 58 and len(last['overruns']) == 8
    assert not {row['id'] for row in last['overruns']} & {row['id'] for row in page['overruns']}
    assert client.get(OVERRUNS, params={'limit': second}).json()['total'] == 3
    assert client.get(OVERRUNS, params={'limit': new_id()}).json() == {'overruns': [], 'total': 0}
    # dates are days of limits_timezone; `to` includes its day
    assert client.get(OVERRUNS, params={'from': '2026-05-02'}).json()['total'] == 3
    assert client.get(OVERRUNS, params={'to': '2026-05-01'}).json()['total'] == 55
    window = {'from': '2026-05-01T12:10:00Z', 'to': '2026-05-01T12:20:00Z'}
    assert client.get(OVERRUNS, params=window).json()['total'] == 10


@pytest.mark.parametrize(
    ('params', 'location'),
    [
        ({'limit': 'nope'}, 'query.limit'),
        ({'from': 'last week'}, 'query.from'),
        ({'to': '2026-02-30'}, 'query.to'),
        ({'page': '0'}, 'query.page'),
        ({'page': 'two'}, 'query.page'),
    ],
)
def test_bad_overrun_filters_are_a_422(client: TestClient, params: dict[str, str], location: str) -> None:
    refused(client.get(OVERRUNS, params=params), 422, location)
