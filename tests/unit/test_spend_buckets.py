"""What a limit's window holds, summed from the running totals (`spend_buckets`), is what the ledger
holds: property tests of the pieces a window is cut into, and of the sums on every selected database
(ledger rows inserted, repriced, moved and deleted; windows in zones whose offset is not whole hours,
across summer time, sliding ones)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete, insert, select, update

from synapse_agents.accounting.buckets import DAY, HOUR, NO_END, pieces
from synapse_agents.accounting.limits import consumption
from synapse_agents.accounting.pricing import convert
from synapse_agents.accounting.tables import LlmCall, SpendBucket, SpendingLimit
from synapse_agents.accounting.windows import PERIODS, SLIDING, window
from synapse_agents.settings import Settings
from synapse_agents.store import Store
from synapse_agents.store.engine import writer

RATES = Settings(currency_rates={'EUR': Decimal('1.08')})
NOW = datetime(2026, 3, 29, 12, 17, 5, 250_000, tzinfo=UTC)  # the day Paris springs forward
ZONES = ['UTC', 'Europe/Paris', 'Asia/Kolkata', 'Asia/Kathmandu', 'America/St_Johns']
"""Whole-hour offsets, summer time, +5:30, +5:45 and -3:30 (-2:30 in summer)."""
TENANTS = ['org:a', 'org:b']
USERS = [None, 'user:1', 'user:2']

moments = st.datetimes(
    min_value=datetime(2026, 1, 1), max_value=datetime(2027, 1, 1), timezones=st.just(UTC)
).map(lambda moment: moment.replace(microsecond=moment.microsecond - moment.microsecond % 1000))


@given(
    start=moments,
    length=st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=40)),
    open_=st.booleans(),
)
def test_the_pieces_cover_the_window_once_each_from_what_can_sum_it(
    start: datetime, length: timedelta, open_: bool
) -> None:
    now = start + length
    end = None if open_ else now
    found = pieces(start, end, now)
    bound = end if end is not None else NO_END
    assert [p.start for p in found] == [start, *(p.end for p in found[:-1])] if found else start == bound
    assert not found or found[-1].end == bound  # contiguous, in order, from start to the end
    for piece in found:
        assert piece.start < piece.end
        if piece.kind == 'ledger':  # a part-hour: inside one hour
            assert piece.end - piece.start < HOUR
            assert _floor(piece.start, HOUR) == _floor(piece.end - timedelta(microseconds=1), HOUR)
        elif piece.kind == 'hours':
            assert piece.start == _floor(piece.start, HOUR)
            assert piece.end == NO_END or piece.end == _floor(piece.end, HOUR)
        else:
            assert piece.start == _floor(piece.start, DAY) and piece.end == _floor(piece.end, DAY)
    # At most two part-hours, three hour ranges' worth of buckets (46 hours) and the days between.
    assert sum(p.kind == 'ledger' for p in found) <= 2
    closed_hours = [p for p in found if p.kind == 'hours' and p.end != NO_END]
    if any(p.kind == 'days' for p in found):
        assert sum(((p.end - p.start) for p in closed_hours), timedelta(0)) < 2 * DAY


def _floor(moment: datetime, unit: timedelta) -> datetime:
    if unit == DAY:
        return moment.replace(hour=0, minute=0, second=0, microsecond=0)
    return moment.replace(minute=0, second=0, microsecond=0)


ledger_rows = st.lists(
    st.tuples(
        st.sampled_from(TENANTS),
        st.sampled_from(USERS),
        st.timedeltas(min_value=timedelta(days=-35), max_value=timedelta(hours=16)),  # ahead too: the ends
        st.one_of(st.none(), st.decimals(min_value=0, max_value=5, places=4)),
        st.sampled_from(['USD', 'EUR', None]),
    ),
    max_size=40,
)
changes = st.lists(
    st.tuples(st.sampled_from(['reprice', 'move', 'retenant', 'delete']), st.integers(0, 39)), max_size=6
)
limits = st.lists(
    st.tuples(
        st.sampled_from(['tenant', 'user']),
        st.sampled_from(PERIODS),
        st.sampled_from(ZONES),
        st.integers(0, 1),
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=ledger_rows, edits=changes, found=limits)
def test_a_window_holds_what_the_ledger_holds(
    store: Store, rows: list[tuple[Any, ...]], edits: list[tuple[str, int]], found: list[tuple[Any, ...]]
) -> None:
    with writer(store.engine).begin() as connection:  # what earlier examples wrote (the triggers follow)
        connection.execute(delete(LlmCall))
        assert connection.execute(select(SpendBucket.amount).where(SpendBucket.amount != 0)).first() is None
        if rows:
            connection.execute(
                insert(LlmCall),
                [
                    {
                        'id': f'row-{n}',
                        'tenant': tenant,
                        'user': user,
                        'cost': cost,
                        'currency': currency,
                        'created_at': NOW + offset,
                    }
                    for n, (tenant, user, offset, cost, currency) in enumerate(rows)
                ],
            )
        for kind, n in edits:
            where = LlmCall.id == f'row-{n}'
            if kind == 'reprice':
                connection.execute(update(LlmCall).where(where).values(cost=Decimal('0.125'), currency='EUR'))
            elif kind == 'move':
                connection.execute(
                    update(LlmCall).where(where).values(created_at=NOW - timedelta(days=3, minutes=7))
                )
            elif kind == 'retenant':
                connection.execute(update(LlmCall).where(where).values(tenant='org:b', user=None))
            else:
                connection.execute(delete(LlmCall).where(where))
        ledger = connection.execute(
            select(LlmCall.tenant, LlmCall.user, LlmCall.created_at, LlmCall.cost, LlmCall.currency)
        ).all()
    for scope, period, zone, which in found:
        scope_id = (TENANTS if scope == 'tenant' else ['user:1', 'user:2'])[which]
        limit = SpendingLimit(
            id='l',
            scope=scope,
            scope_id=scope_id,
            period=period,
            amount=Decimal(1),
            currency='USD',
            timezone=zone,
        )
        start, end = window(limit, NOW)
        expected = Decimal(0)
        for tenant, user, created, cost, currency in ledger:
            inside = created >= start and (period in SLIDING or created < end)
            if cost is not None and inside and (tenant if scope == 'tenant' else user) == scope_id:
                expected += convert(cost, currency, 'USD', RATES) or Decimal(0)
        assert consumption(store, limit, NOW, RATES) == expected.quantize(Decimal('1e-10')), (
            f'{scope} {scope_id} {period} in {zone}'
        )


@pytest.mark.parametrize('zone', ['Asia/Kathmandu', 'America/St_Johns'])
def test_a_calendar_day_in_a_zone_off_the_hour_reads_its_part_hours_from_the_ledger(zone: str) -> None:
    limit = SpendingLimit(scope='tenant', scope_id='org:a', period='calendar_day', timezone=zone)
    start, end = window(limit, NOW)
    found = pieces(start, end, NOW)
    assert [p.kind for p in found] == ['ledger', 'hours', 'ledger']
    assert found[0].start == start and found[-1].end == end


def test_rows_in_the_part_hours_at_both_ends_count_once(store: Store) -> None:
    # Kathmandu is UTC+5:45: its calendar day of NOW runs from 18:15 UTC the day before to 18:15.
    terms: dict[str, Any] = {'scope': 'tenant', 'scope_id': 'org:a', 'amount': Decimal(1), 'currency': 'USD'}
    day = SpendingLimit(**terms, period='calendar_day', timezone='Asia/Kathmandu')
    sliding = SpendingLimit(**terms, period='sliding_day', timezone='UTC')
    start, end = window(day, NOW)
    stamps = {
        start - timedelta(minutes=1): False,  # the day before
        start: True,
        start + timedelta(minutes=44): True,  # the first part-hour
        start + timedelta(hours=3): True,  # a whole hour
        end - timedelta(minutes=1): True,  # the last part-hour
        end: False,  # the next day
    }
    with writer(store.engine).begin() as connection:
        connection.execute(
            insert(LlmCall),
            [
                {
                    'id': f'r{n}',
                    'tenant': 'org:a',
                    'cost': Decimal(2**n),
                    'currency': 'USD',
                    'created_at': stamp,
                }
                for n, stamp in enumerate(stamps)
            ],
        )
    inside = sum(Decimal(2**n) for n, counted in enumerate(stamps.values()) if counted)
    assert consumption(store, day, NOW, RATES) == inside
    since = NOW - timedelta(days=1)
    recent = sum(Decimal(2**n) for n, stamp in enumerate(stamps) if stamp >= since)
    assert consumption(store, sliding, NOW, RATES) == recent  # no end: the row stamped ahead counts
