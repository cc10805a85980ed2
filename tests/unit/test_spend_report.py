"""The spend report over the ledger: exact sums, groups, filters, totals, days in a zone, the series."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import event

from spend_helpers import at, ledger_row, seed
from synapse_agents.accounting.spend import SpendFilters, day_bound, spend_report
from synapse_agents.settings import Settings
from synapse_agents.store import Store


def settings(zone: str = 'UTC', **extra: Any) -> Settings:
    return Settings(
        reference_currency='USD', currency_rates={'EUR': Decimal('1.08')}, limits_timezone=zone, **extra
    )


@contextmanager
def counted(store: Store) -> Iterator[list[str]]:
    """The SQL statements run inside the block."""
    statements: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement)

    event.listen(store.engine, 'before_cursor_execute', count)
    try:
        yield statements
    finally:
        event.remove(store.engine, 'before_cursor_execute', count)


def test_ten_tenths_sum_to_exactly_one_and_totals_add_up(store: Store) -> None:
    seed(store, *(ledger_row(created=at('2026-05-01 10:00'), cost='0.1') for _ in range(10)))
    seed(store, ledger_row(created=at('2026-05-02 10:00'), cost='0.0000000001', agent='billing'))
    report = spend_report(store, settings(), by='agent')
    assert [(row.key, row.calls, row.cost) for row in report.rows] == [
        ('support', 10, Decimal('1')),
        ('billing', 1, Decimal('0.0000000001')),
    ]
    assert report.totals.cost == Decimal('1.0000000001')
    assert (report.totals.calls, report.totals.input_tokens, report.totals.output_tokens) == (11, 1100, 220)
    assert report.currency == 'USD' and report.timezone == 'UTC'


@pytest.mark.parametrize(
    ('by', 'expected'),
    [
        ('agent', {'support': 3, 'billing': 1, '': 1}),
        ('user', {'customer:1': 2, 'customer:2': 1, '': 2}),
        ('tenant', {'acme:1': 3, 'globex:9': 1, '': 1}),
        ('model', {'gpt-x': 3, 'claude-y': 2}),
        ('day', {'2026-05-01': 2, '2026-05-02': 2, '2026-05-03': 1}),
    ],
)
def test_rows_group_by_each_key_and_a_missing_one_is_empty(
    store: Store, by: Any, expected: dict[str, int]
) -> None:
    seed(
        store,
        ledger_row(created=at('2026-05-01 01:00'), cost='1', user='customer:1', tenant='acme:1'),
        ledger_row(created=at('2026-05-01 23:00'), cost='1', user='customer:1', tenant='acme:1'),
        ledger_row(
            created=at('2026-05-02 00:00'), cost='1', user='customer:2', tenant='acme:1', model='claude-y'
        ),
        ledger_row(
            created=at('2026-05-02 12:00'), cost='1', agent='billing', tenant='globex:9', model='claude-y'
        ),
        ledger_row(created=at('2026-05-03 12:00'), cost='1', agent=None),
    )
    report = spend_report(store, settings(), by=by)
    assert {row.key: row.calls for row in report.rows} == expected
    assert sum(row.cost or 0 for row in report.rows) == report.totals.cost == Decimal(5)
    if by == 'day':
        assert [row.day for row in report.rows] == [date(2026, 5, 1), date(2026, 5, 2), date(2026, 5, 3)]
    else:
        assert all(row.day is None for row in report.rows)


def test_unpriced_calls_are_counted_never_summed_as_zero(store: Store) -> None:
    seed(
        store,
        ledger_row(created=at('2026-05-01 10:00'), cost=None, agent='free'),
        ledger_row(created=at('2026-05-01 11:00'), cost=None, agent='free'),
        ledger_row(created=at('2026-05-01 12:00'), cost='0.5', agent='mixed'),
        ledger_row(created=at('2026-05-01 13:00'), cost=None, agent='mixed'),
    )
    report = spend_report(store, settings(), by='agent')
    rows = {row.key: row for row in report.rows}
    assert (rows['free'].cost, rows['free'].unpriced_calls, rows['free'].calls) == (None, 2, 2)
    assert (rows['mixed'].cost, rows['mixed'].unpriced_calls, rows['mixed'].calls) == (Decimal('0.5'), 1, 2)
    assert (report.totals.cost, report.totals.unpriced_calls) == (Decimal('0.5'), 3)
    assert [row.key for row in report.rows] == ['mixed', 'free']  # priced first, highest cost first


def test_only_unpriced_calls_total_null_and_no_calls_total_zero(store: Store) -> None:
    assert spend_report(store, settings()).totals.cost == Decimal(0)
    seed(store, ledger_row(created=at('2026-05-01 10:00'), cost=None))
    report = spend_report(store, settings())
    assert (report.totals.cost, report.totals.unpriced_calls) == (None, 1)
    assert [point.cost for point in report.series] == [None]


def test_amounts_are_the_reference_cost_else_the_cost_converted(store: Store) -> None:
    seed(
        store,
        # priced in EUR with its reference cost written at call time: the reference cost counts
        ledger_row(
            created=at('2026-05-01 10:00'),
            cost='1',
            currency='EUR',
            cost_reference='1.2',
            reference_currency='USD',
            agent='a',
        ),
        # no reference cost: converted with today's rate (1 EUR = 1.08 USD)
        ledger_row(created=at('2026-05-01 10:00'), cost='2', currency='EUR', agent='b'),
        ledger_row(created=at('2026-05-01 10:00'), cost='0.25', currency='USD', agent='c'),
        # a currency with no rate cannot be summed: it counts as unpriced
        ledger_row(created=at('2026-05-01 10:00'), cost='3', currency='GBP', agent='d'),
        # a reference cost in an earlier reference currency is converted too
        ledger_row(
            created=at('2026-05-01 10:00'),
            cost='9',
            currency='JPY',
            cost_reference='10',
            reference_currency='EUR',
            agent='e',
        ),
    )
    rows = {row.key: row for row in spend_report(store, settings(), by='agent').rows}
    assert rows['a'].cost == Decimal('1.2')
    assert rows['b'].cost == Decimal('2.16')
    assert rows['c'].cost == Decimal('0.25')
    assert (rows['d'].cost, rows['d'].unpriced_calls) == (None, 1)
    assert rows['e'].cost == Decimal('10.8')


def test_a_day_is_a_day_of_limits_timezone_across_daylight_saving(store: Store) -> None:
    # Paris moves from UTC+1 to UTC+2 at 01:00 UTC on 2026-03-29, and back at 01:00 UTC on 2026-10-25.
    seed(
        store,
        ledger_row(created=at('2026-03-28 22:59'), cost='1'),  # 23:59 on the 28th in Paris
        ledger_row(created=at('2026-03-28 23:00'), cost='2'),  # 00:00 on the 29th
        ledger_row(created=at('2026-03-29 21:59'), cost='4'),  # 23:59 on the 29th (summer time)
        ledger_row(created=at('2026-03-29 22:00'), cost='8'),  # 00:00 on the 30th
        ledger_row(created=at('2026-10-24 21:59'), cost='16'),  # 23:59 on the 24th
        ledger_row(created=at('2026-10-24 22:00'), cost='32'),  # 00:00 on the 25th
        ledger_row(created=at('2026-10-25 22:59'), cost='64'),  # 23:59 on the 25th (winter time)
        ledger_row(created=at('2026-10-25 23:00'), cost='128'),  # 00:00 on the 26th
    )
    days = {row.key: row.cost for row in spend_report(store, settings('Europe/Paris'), by='day').rows}
    assert days == {
        '2026-03-28': Decimal(1),
        '2026-03-29': Decimal(6),
        '2026-03-30': Decimal(8),
        '2026-10-24': Decimal(16),
        '2026-10-25': Decimal(96),
        '2026-10-26': Decimal(128),
    }
    in_utc = {row.key: row.cost for row in spend_report(store, settings('UTC'), by='day').rows}
    assert in_utc['2026-03-28'] == Decimal(3) and in_utc['2026-10-25'] == Decimal(192)
    kolkata = spend_report(store, settings('Asia/Kolkata'), by='day')  # +05:30, no daylight saving
    assert {row.key: row.cost for row in kolkata.rows if row.key.startswith('2026-03')} == {
        '2026-03-29': Decimal(3),
        '2026-03-30': Decimal(12),
    }


def test_filters_select_rows_by_time_agent_user_tenant_and_model(store: Store) -> None:
    seed(
        store,
        ledger_row(created=at('2026-05-01 10:00'), cost='1', user='customer:1', tenant='acme:1'),
        ledger_row(created=at('2026-05-02 10:00'), cost='2', user='customer:2', tenant='acme:2', model='m2'),
        ledger_row(created=at('2026-05-03 10:00'), cost='4', user='staff:1', agent='billing'),
        ledger_row(created=at('2026-05-04 10:00'), cost='8', user='customer_x:1'),
    )

    def total(**filters: Any) -> Decimal | None:
        return spend_report(store, settings(), filters=SpendFilters(**filters)).totals.cost

    assert total() == Decimal(15)
    assert total(date_from=at('2026-05-02 00:00')) == Decimal(14)
    assert total(date_to=at('2026-05-02 10:00')) == Decimal(1)  # the end is excluded
    assert total(date_from=at('2026-05-02 00:00'), date_to=at('2026-05-04 00:00')) == Decimal(6)
    assert total(agent='billing') == Decimal(4)
    assert total(user='customer:2') == Decimal(2)
    assert total(user='customer') == Decimal(3)  # a bare type: every id of it (not customer_x)
    assert total(user='customer:') == Decimal(3)
    assert total(tenant='acme:1') == Decimal(1)
    assert total(tenant='acme') == Decimal(3)
    assert total(model='m2') == Decimal(2)
    assert total(model='m2', user='staff:1') == Decimal(0)


def test_the_series_stacks_each_day_by_agent_or_model(store: Store) -> None:
    seed(
        store,
        ledger_row(created=at('2026-05-01 10:00'), cost='1', agent='a', model='m1'),
        ledger_row(created=at('2026-05-01 11:00'), cost='2', agent='a', model='m2'),
        ledger_row(created=at('2026-05-01 12:00'), cost='4', agent='b', model='m1'),
        ledger_row(created=at('2026-05-02 12:00'), cost=None, agent='b', model='m1'),
    )
    by_agent = spend_report(store, settings(), by='user', stack='agent').series
    assert [(p.day.isoformat(), p.key, p.cost) for p in by_agent] == [
        ('2026-05-01', 'a', Decimal(3)),
        ('2026-05-01', 'b', Decimal(4)),
        ('2026-05-02', 'b', None),
    ]
    by_model = spend_report(store, settings(), stack='model').series
    assert [(p.day.isoformat(), p.key, p.cost) for p in by_model] == [
        ('2026-05-01', 'm1', Decimal(5)),
        ('2026-05-01', 'm2', Decimal(2)),
        ('2026-05-02', 'm1', None),
    ]


@pytest.mark.parametrize('zone', ['UTC', 'Europe/Paris'])
def test_the_number_of_queries_does_not_grow_with_the_rows(store: Store, zone: str) -> None:
    def queries() -> int:
        with counted(store) as statements:
            spend_report(store, settings(zone), by='agent')
        return len([s for s in statements if s.lstrip().upper().startswith('SELECT')])

    seed(store, ledger_row(created=at('2026-05-01 10:00'), cost='1'))
    few = queries()
    seed(
        store,
        *(
            ledger_row(created=at(f'2026-{month:02d}-{day:02d} 10:00'), cost='1', agent=f'agent-{day}')
            for month in range(1, 13)
            for day in range(1, 28, 3)
        ),
    )
    assert queries() == few <= 4


def test_day_bounds_are_days_of_the_zone() -> None:
    assert day_bound('', 'UTC', end=False) is None
    assert day_bound('2026-03-29', 'Europe/Paris', end=False) == at('2026-03-28 23:00')
    assert day_bound('2026-03-29', 'Europe/Paris', end=True) == at('2026-03-29 22:00')  # the day included
    assert day_bound('2026-03-29T12:00', 'Europe/Paris', end=False) == at('2026-03-29 10:00')
    assert day_bound('2026-03-29T12:00Z', 'Europe/Paris', end=False) == at('2026-03-29 12:00')
    assert day_bound('2026-03-29T12:00+05:00', 'UTC', end=True) == datetime(2026, 3, 29, 7, tzinfo=UTC)
    assert day_bound('9999-12-31', 'UTC', end=True) is None  # past what a datetime holds: no bound
    with pytest.raises(ValueError, match='yesterday'):
        day_bound('yesterday', 'UTC', end=False)
