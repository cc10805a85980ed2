"""Spending limits in the database: windows across summer time, what a window holds, prices at call
time, and reserve / settle / release / sweep, on every selected database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import genai_prices
import pytest
from pydantic_ai.usage import RequestUsage
from sqlalchemy import insert

from spend_helpers import at, ledger_row, seed
from spending_models import add_limit, add_price, rows
from synapse_agents.accounting import limits
from synapse_agents.accounting.limits import (
    Request,
    Subject,
    consumption,
    reserve,
    settle,
    sweep_expired,
)
from synapse_agents.accounting.pricing import convert, price_call, reference_amount
from synapse_agents.accounting.tables import LlmCall, SpendingLimit, SpendingOverrun, SpendingReservation
from synapse_agents.accounting.windows import window
from synapse_agents.errors import SpendingLimitExceeded
from synapse_agents.settings import Settings
from synapse_agents.store import Store
from synapse_agents.store.engine import writer

EUR = Settings(currency_rates={'EUR': Decimal('1.08')})
"""USD is the reference currency; one euro is worth 1.08 dollars."""


def limit(period: str, zone: str = 'UTC', **values: object) -> SpendingLimit:
    return SpendingLimit(
        scope='tenant', scope_id='org:acme', period=period, amount=Decimal(1), timezone=zone, **values
    )


# -- windows ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ('now', 'start', 'end', 'hours'),
    [
        # Paris springs forward on the last Sunday of March: that day has 23 hours.
        ('2026-03-29 12:00', '2026-03-28 23:00', '2026-03-29 22:00', 23),
        # 00:30 in Paris already (23:30 UTC the evening before).
        ('2026-03-28 23:30', '2026-03-28 23:00', '2026-03-29 22:00', 23),
        ('2026-03-28 22:59', '2026-03-27 23:00', '2026-03-28 23:00', 24),
        # It falls back on the last Sunday of October: 25 hours.
        ('2026-10-25 01:30', '2026-10-24 22:00', '2026-10-25 23:00', 25),
        ('2026-10-25 23:00', '2026-10-25 23:00', '2026-10-26 23:00', 24),
    ],
)
def test_a_calendar_day_in_paris_follows_summer_time(now: str, start: str, end: str, hours: int) -> None:
    found = window(limit('calendar_day', 'Europe/Paris'), at(now))
    assert found == (at(start), at(end))
    assert found[1] - found[0] == timedelta(hours=hours)


def test_a_day_whose_midnight_does_not_exist_starts_when_it_begins() -> None:
    # Havana skips from 00:00 to 01:00 on 8 March 2026 (05:00 UTC).
    assert window(limit('calendar_day', 'America/Havana'), at('2026-03-08 12:00')) == (
        at('2026-03-08 05:00'),
        at('2026-03-09 04:00'),
    )
    assert window(limit('calendar_day', 'America/Havana'), at('2026-03-08 04:59'))[1] == at(
        '2026-03-08 05:00'
    )


def test_calendar_months_and_sliding_windows() -> None:
    assert window(limit('calendar_month', 'Europe/Paris'), at('2026-03-29 12:00')) == (
        at('2026-02-28 23:00'),
        at('2026-03-31 22:00'),
    )
    assert window(limit('calendar_month', 'Europe/Paris'), at('2026-12-31 23:30')) == (
        at('2026-12-31 23:00'),
        at('2027-01-31 23:00'),
    )
    assert window(limit('calendar_month'), at('2026-12-15 00:00')) == (
        at('2026-12-01 00:00'),
        at('2027-01-01 00:00'),
    )
    now = at('2026-03-29 12:00')
    assert window(limit('sliding_day', 'Europe/Paris'), now) == (now - timedelta(days=1), now)
    assert window(limit('sliding_month'), now) == (now - timedelta(days=30), now)
    with pytest.raises(ValueError, match='unknown period'):
        window(limit('weekly'), now)


# -- what a window holds ---------------------------------------------------------------------


def test_consumption_counts_the_window_and_live_reservations_of_its_scope(store: Store) -> None:
    now = at('2026-03-29 12:00')
    seed(
        store,
        ledger_row(created=at('2026-03-28 23:30'), cost='0.25', tenant='org:acme'),  # 00:30 in Paris: today
        ledger_row(created=at('2026-03-28 22:30'), cost='5', tenant='org:acme'),  # yesterday in Paris
        ledger_row(created=at('2026-03-29 10:00'), cost='0.5', tenant='org:other'),
        ledger_row(
            created=at('2026-03-29 10:00'), cost=None, tenant='org:acme'
        ),  # unpriced: not 0, not counted
        ledger_row(created=at('2026-03-29 11:00'), cost='1', currency='EUR', tenant='org:acme'),
    )
    day = add_limit(store, 'tenant', 'org:acme', '10', timezone='Europe/Paris')
    assert consumption(store, day, now, EUR) == Decimal('1.33')  # 0.25 + 1 EUR at 1.08
    with writer(store.engine).begin() as connection:
        reserve(connection, Request(Subject(tenant='org:acme'), Decimal('2'), 'USD'), EUR, now)
        connection.execute(
            insert(SpendingReservation).values(
                id='expired',
                tenant='org:acme',
                amount=Decimal(7),
                currency='USD',
                created_at=now,
                expires_at=now,
            )
        )
    assert consumption(store, day, now, EUR) == Decimal('3.33')  # the expired one no longer counts
    sliding = add_limit(store, 'tenant', 'org:acme', '10', period='sliding_day')
    assert consumption(store, sliding, now, EUR) == Decimal('8.33')  # yesterday's 5 is within 24 hours
    in_euros = add_limit(store, 'tenant', 'org:acme', '10', currency='EUR', timezone='Europe/Paris')
    assert consumption(store, in_euros, now, EUR) == Decimal('1') + (
        Decimal('2.25') / Decimal('1.08')
    ).quantize(Decimal('1e-10'))


def test_each_scope_counts_its_own_column(store: Store) -> None:
    now = datetime.now(UTC)
    seed(store, ledger_row(created=now, cost='1', tenant='org:a', user='user:1', agent='bot', preset='fast'))
    seed(store, ledger_row(created=now, cost='2', tenant='org:b', user='user:1', agent='bot', preset=None))
    expected = {('tenant', 'org:a'): 1, ('user', 'user:1'): 3, ('agent', 'bot'): 3, ('preset', 'fast'): 1}
    for (scope, scope_id), amount in expected.items():
        assert consumption(store, add_limit(store, scope, scope_id, '9'), now) == amount
    applicable = limits.applicable_limits(store, tenant='org:a', user=None, agent=None, preset='fast')
    assert sorted((found.scope, found.scope_id) for found in applicable) == [
        ('preset', 'fast'),
        ('tenant', 'org:a'),
    ]
    assert [found.id for found in applicable] == sorted(found.id for found in applicable)


# -- prices at call time ---------------------------------------------------------------------


def test_a_registry_price_names_its_id_and_start_and_converts_to_the_reference(store: Store) -> None:
    old = datetime(2026, 1, 1, tzinfo=UTC)
    first = add_price(store, output_per_mtok=Decimal('10'), currency='EUR', valid_from=old)
    second = add_price(
        store, output_per_mtok=Decimal('20'), currency='EUR', valid_from=old + timedelta(days=30)
    )
    usage = RequestUsage(input_tokens=1000, output_tokens=1000)
    then = price_call(
        store, provider='acme', model='acme-1', usage=usage, at=old + timedelta(days=1), settings=EUR
    )
    assert (then.cost, then.currency, then.price_source) == (Decimal('0.01'), 'EUR', 'registry')
    assert then.price_version == f'{first}@2026-01-01T00:00:00Z'
    assert (then.cost_reference, then.reference_currency) == (Decimal('0.0108'), 'USD')
    now = price_call(store, provider='acme', model='acme-1', usage=usage, at=datetime.now(UTC))
    assert (now.cost, now.price_version) == (Decimal('0.02'), f'{second}@2026-01-31T00:00:00Z')
    assert (now.cost_reference, now.reference_currency) == (None, None)  # no EUR rate by default


def test_genai_prices_names_its_version_and_an_unknown_model_is_null_everywhere(store: Store) -> None:
    usage = RequestUsage(input_tokens=1_000_000, output_tokens=0)
    known = price_call(store, provider='openai', model='gpt-4o', usage=usage, at=datetime.now(UTC))
    assert known.cost is not None and known.cost > 0
    assert (known.currency, known.price_source, known.price_version) == (
        'USD',
        'genai-prices',
        genai_prices.__version__,
    )
    assert (known.cost_reference, known.reference_currency) == (known.cost, 'USD')
    unknown = price_call(store, provider='acme', model='nobody-knows', usage=usage, at=datetime.now(UTC))
    assert unknown.columns() == dict.fromkeys(
        ('cost', 'currency', 'cost_reference', 'reference_currency', 'price_source', 'price_version')
    )


def test_currency_conversions() -> None:
    assert reference_amount(Decimal(2), 'EUR', EUR) == Decimal('2.16')
    assert reference_amount(Decimal(2), None, EUR) == Decimal(2)  # a cost with no currency is USD
    assert reference_amount(Decimal(2), 'GBP', EUR) is None
    assert convert(Decimal('2.16'), 'USD', 'EUR', EUR) == Decimal(2)
    assert convert(Decimal(2), 'GBP', 'EUR', EUR) is None
    assert convert(Decimal(2), 'GBP', 'GBP', EUR) == Decimal(2)


# -- reserve, settle, release, sweep ---------------------------------------------------------


def decide(store: Store, request: Request, now: datetime | None = None) -> limits.Decision:
    with writer(store.engine).begin() as connection:
        return reserve(connection, request, EUR, now)


def test_every_applicable_limit_is_checked_and_a_refusal_is_logged(store: Store) -> None:
    subject = Subject(tenant='org:acme', user='user:1', agent='bot', preset='fast')
    add_limit(store, 'tenant', 'org:acme', '100')
    add_limit(store, 'agent', 'bot', '100')
    tight = add_limit(store, 'preset', 'fast', '1', currency='EUR')
    add_limit(store, 'user', 'user:1', '0.01')
    add_limit(store, 'user', 'user:2', '0.01')  # someone else's
    with store.write() as session:
        session.query(SpendingLimit).filter(SpendingLimit.scope_id == 'user:1').update({'enabled': False})
    first = decide(store, Request(subject, Decimal('0.648'), 'USD'))  # 0.6 EUR
    assert first.reservation_id is not None and first.limits == 3 and not first.refused
    refused = decide(
        store, Request(subject, Decimal('0.648'), 'USD', run_id='r' * 36, conversation_id='c' * 36)
    )
    assert refused.reservation_id is None and [r.limit.id for r in refused.refusals] == [tight.id]
    (overrun,) = rows(store, SpendingOverrun)
    assert (overrun.limit_id, overrun.scope, overrun.scope_id, overrun.period) == (
        tight.id,
        'preset',
        'fast',
        'calendar_day',
    )
    assert (overrun.user, overrun.tenant, overrun.agent_key) == ('user:1', 'org:acme', 'bot')
    assert (overrun.limit_amount, overrun.consumed, overrun.estimated, overrun.overrun, overrun.currency) == (
        Decimal(1),
        Decimal('0.6'),
        Decimal('0.6'),
        Decimal('0.2'),
        'EUR',
    )
    assert (overrun.run_id, overrun.conversation_id) == ('r' * 36, 'c' * 36)
    assert len(rows(store, SpendingReservation)) == 1


def test_a_call_that_exactly_fills_the_limit_passes_and_the_next_is_refused(store: Store) -> None:
    add_limit(store, 'agent', 'bot', '0.3')
    request = Request(Subject(agent='bot'), Decimal('0.1'), 'USD')
    assert [decide(store, request).refused for _ in range(4)] == [False, False, False, True]
    (overrun,) = rows(store, SpendingOverrun)
    assert (overrun.consumed, overrun.estimated, overrun.overrun) == (
        Decimal('0.3'),
        Decimal('0.1'),
        Decimal('0.1'),
    )


def test_no_limit_no_reservation(store: Store) -> None:
    assert decide(store, Request(Subject(agent='bot'), Decimal(5), 'USD')) == limits.Decision()
    assert decide(store, Request(Subject(), Decimal(5), 'USD')) == limits.Decision()
    assert rows(store, SpendingReservation) == []


def test_settling_swaps_the_reservation_for_the_ledger_row_at_once(store: Store) -> None:
    day = add_limit(store, 'agent', 'bot', '1')
    now = datetime.now(UTC)
    held = decide(store, Request(Subject(agent='bot'), Decimal('0.5'), 'USD')).reservation_id
    assert consumption(store, day, now) == Decimal('0.5')
    row = ledger_row(created=now, cost='0.2', agent='bot')
    with writer(store.engine).begin() as connection:
        settle(connection, row, held)
    assert consumption(store, day, now) == Decimal('0.2')
    assert rows(store, SpendingReservation) == [] and len(rows(store, LlmCall)) == 1


def test_release_and_the_sweep_of_expired_reservations(store: Store) -> None:
    add_limit(store, 'agent', 'bot', '10')
    now = datetime.now(UTC)
    released = decide(store, Request(Subject(agent='bot'), Decimal(1), 'USD')).reservation_id
    assert released is not None
    with writer(store.engine).begin() as connection:
        limits.release(connection, released)
    kept = decide(store, Request(Subject(agent='bot'), Decimal(1), 'USD')).reservation_id
    dead = decide(
        store,
        Request(Subject(agent='bot'), Decimal(1), 'USD', ttl=timedelta(seconds=1)),
        now - timedelta(hours=1),
    )
    assert dead.reservation_id is not None
    assert sweep_expired(store) == 1
    assert [r.id for r in rows(store, SpendingReservation)] == [kept]
    assert sweep_expired(store) == 0


def test_the_refusal_names_the_limit() -> None:
    error = SpendingLimitExceeded(
        limit_id='x',
        scope='tenant',
        scope_id='org:acme',
        period='calendar_month',
        amount=Decimal('50'),
        currency='EUR',
        consumed=Decimal('49.5'),
        estimated=Decimal('0.75'),
    )
    assert str(error) == (
        "Spending limit reached: tenant 'org:acme' may spend 50 EUR per calendar month; 49.50 EUR is "
        'spent or reserved, and this model call could cost up to 0.75 EUR.'
    )
    assert error.overrun == Decimal('0.25')


# -- the settings ----------------------------------------------------------------------------


def test_the_accounting_settings_are_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    from synapse_agents.settings import SettingsError, load_settings

    monkeypatch.setenv('SYNAPSE_CURRENCY_RATES', '{"EUR": "1.08", "GBP": 1.27}')
    monkeypatch.setenv('SYNAPSE_LIMITS_TIMEZONE', 'Europe/Paris')
    loaded = load_settings()
    assert loaded.settings.currency_rates == {'EUR': Decimal('1.08'), 'GBP': Decimal('1.27')}
    assert (loaded.settings.limits_timezone, loaded.settings.reference_currency) == ('Europe/Paris', 'USD')
    assert (loaded.settings.usage_recorder, loaded.settings.default_max_output_tokens) == (None, 4096)
    shown = {value.name: value.display() for value in loaded.values}
    assert shown['currency_rates'] == 'EUR=1.08, GBP=1.27'
    for name, value, message in (
        ('CURRENCY_RATES', '{"eur": 1}', "'eur' is not a currency code"),
        ('CURRENCY_RATES', '{"EUR": 0}', 'must be a number above 0'),
        ('CURRENCY_RATES', 'EUR=1.08', 'expected JSON'),
        ('LIMITS_TIMEZONE', 'Mars/Olympus', "'Mars/Olympus' is not an IANA time zone"),
        ('REFERENCE_CURRENCY', 'dollars', 'reference_currency'),
        ('DEFAULT_MAX_OUTPUT_TOKENS', '0', 'default_max_output_tokens'),
    ):
        monkeypatch.setenv('SYNAPSE_CURRENCY_RATES', '{}')
        monkeypatch.setenv('SYNAPSE_LIMITS_TIMEZONE', 'UTC')
        monkeypatch.setenv(f'SYNAPSE_{name}', value)
        with pytest.raises(SettingsError, match=message):
            load_settings()
        monkeypatch.delenv(f'SYNAPSE_{name}')
