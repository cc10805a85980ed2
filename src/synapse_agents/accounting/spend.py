"""The spend report: calls, tokens and cost from the ledger (`llm_calls`), grouped and summed.

Rows are grouped by day, agent, user, tenant or model, with their totals and a daily series
stacked by agent or model (the dashboard's chart). A day is a calendar day in the `limits_timezone`
setting (the zone calendar limits count in by default), so a day of the report is the day a
`calendar_day` limit in that zone counts.

Three queries whatever the number of rows: two group in SQL by their keys and by the currency of the
amount. A row's amount is its `cost_reference` (in its `reference_currency`) when it has one, else
its `cost` (in its `currency`; a cost with no currency is USD, genai-prices' currency); the sums
per currency are converted to the reference currency in Python, exactly (`pricing.reference_amount`).
A call with no cost, or whose currency has no rate, is counted in `unpriced_calls`, never as 0;
`missing_rates` names those currencies, and those of registry prices that have no rate either.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from functools import cache
from typing import TYPE_CHECKING, Any, Literal
from zoneinfo import ZoneInfo

from sqlalchemy import ColumnElement, Select, case, func, literal, select
from sqlalchemy.orm import Session

from .pricing import reference_amount
from .rates import missing_rates, price_currencies
from .tables import LlmCall

if TYPE_CHECKING:
    from ..settings import Settings
    from ..store import Store

GroupBy = Literal['day', 'agent', 'user', 'tenant', 'model']
Stack = Literal['agent', 'model']
GROUPS: tuple[GroupBy, ...] = ('day', 'agent', 'user', 'tenant', 'model')
STACKS: tuple[Stack, ...] = ('agent', 'model')
UNPRICED_CURRENCY = 'USD'
"""The currency of a ledger cost that names none (every row genai-prices priced before 0007)."""

_COLUMNS: dict[str, Any] = {
    'agent': LlmCall.agent_key,
    'user': LlmCall.user,
    'tenant': LlmCall.tenant,
    'model': LlmCall.model,
}


@dataclass(frozen=True)
class SpendFilters:
    """Which ledger rows the report sums: a time range (`[date_from, date_to)`) and exact matches.

    `user` and `tenant` are `type:id`; a bare `type` (or `type:`) matches every id of that type.
    """

    date_from: datetime | None = None
    date_to: datetime | None = None
    agent: str | None = None
    user: str | None = None
    tenant: str | None = None
    model: str | None = None


@dataclass
class Figures:
    """Calls, tokens and cost (None when every call is unpriced) of a group of ledger rows."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: Decimal | None = None
    unpriced_calls: int = 0

    def add(self, other: Figures) -> None:
        self.calls += other.calls
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.unpriced_calls += other.unpriced_calls
        if other.cost is not None:
            self.cost = other.cost if self.cost is None else self.cost + other.cost


@dataclass
class SpendRow(Figures):
    """One group: its key (the day as `YYYY-MM-DD` when grouped by day; '' for rows naming none)."""

    key: str = ''
    day: date | None = None


@dataclass(frozen=True)
class SeriesPoint:
    """The cost of one stack key (an agent or a model) on one day."""

    day: date
    key: str
    cost: Decimal | None


@dataclass
class SpendReport:
    """The report: its rows, their totals and the daily series, amounts in `currency`."""

    by: GroupBy
    stack: Stack
    currency: str
    timezone: str
    rows: list[SpendRow]
    totals: Figures
    series: list[SeriesPoint] = field(default_factory=list)
    missing_rates: list[str] = field(default_factory=list)
    """Currencies of the report's calls and of registry prices that have no rate to `currency`."""


def spend_report(
    store: Store,
    settings: Settings,
    *,
    by: GroupBy = 'day',
    stack: Stack = 'agent',
    filters: SpendFilters | None = None,
) -> SpendReport:
    """The ledger's spend grouped `by`, with totals and the daily series stacked by `stack`."""
    filters = filters or SpendFilters()
    zone = settings.limits_timezone
    with store.read() as session:
        conditions = _conditions(filters)
        day = _local_day(store.dialect, ZoneInfo(zone), lambda: _span(session, conditions, filters))
        amount, currency = _amount(settings)
        base = select(
            LlmCall.input_tokens, LlmCall.output_tokens, amount.label('amount'), currency.label('currency')
        ).where(*conditions)
        row_key = day if by == 'day' else _COLUMNS[by]
        grouped = base.add_columns(row_key.label('key')).subquery()
        rows = session.execute(_sums(grouped, grouped.c.key)).all()
        stacked = base.add_columns(day.label('day'), _COLUMNS[stack].label('key')).subquery()
        points = session.execute(_sums(stacked, stacked.c.day, stacked.c.key)).all()
        priced_in = price_currencies(session)
    report_rows: dict[str, SpendRow] = {}
    for found in rows:
        key = found.key or ''
        row = report_rows.setdefault(key, SpendRow(key=key, day=_date(key) if by == 'day' else None))
        row.add(_figures(found, settings))
    series: dict[tuple[str, str], Figures] = {}
    for found in points:
        series.setdefault((found.day, found.key or ''), Figures()).add(_figures(found, settings))
    totals = Figures(cost=Decimal(0))
    for row in report_rows.values():
        totals.add(row)
    if totals.calls and totals.calls == totals.unpriced_calls:
        totals.cost = None
    return SpendReport(
        by=by,
        stack=stack,
        currency=settings.reference_currency,
        timezone=zone,
        rows=_ordered(report_rows.values(), by),
        totals=totals,
        series=[SeriesPoint(_date(d), key, figures.cost) for (d, key), figures in sorted(series.items())],
        missing_rates=missing_rates(
            [*priced_in, *(found.currency for found in rows if found.priced)], settings
        ),
    )


def _sums(source: Any, *keys: Any) -> Select[Any]:
    """Per keys and currency: calls, tokens, priced calls and the amount's exact sum."""
    return select(
        *keys,
        source.c.currency,
        func.count().label('calls'),
        func.coalesce(func.sum(source.c.input_tokens), 0).label('input_tokens'),
        func.coalesce(func.sum(source.c.output_tokens), 0).label('output_tokens'),
        func.count(source.c.amount).label('priced'),
        func.sum(source.c.amount).label('amount'),
    ).group_by(*keys, source.c.currency)


def _figures(found: Any, settings: Settings) -> Figures:
    """One grouped result row in the reference currency (unconvertible amounts count as unpriced)."""
    calls, priced = int(found.calls), int(found.priced)
    cost: Decimal | None = None
    if priced and found.amount is not None:
        cost = reference_amount(Decimal(found.amount), found.currency, settings)
        if cost is None:
            priced = 0
    return Figures(
        calls=calls,
        input_tokens=int(found.input_tokens),
        output_tokens=int(found.output_tokens),
        cost=cost,
        unpriced_calls=calls - priced,
    )


def _ordered(rows: Iterable[SpendRow], by: GroupBy) -> list[SpendRow]:
    """Days in order; any other grouping by cost, highest first (unpriced last), then calls."""
    if by == 'day':
        return sorted(rows, key=lambda row: row.key)
    return sorted(rows, key=lambda row: (row.cost is None, -(row.cost or 0), -row.calls, row.key))


def _date(text: str) -> date:
    return date.fromisoformat(text)


def _amount(settings: Settings) -> tuple[ColumnElement[Any], ColumnElement[Any]]:
    """A row's amount (`cost_reference`, else `cost`) and the currency it is in (NULL: unpriced)."""
    amount = func.coalesce(LlmCall.cost_reference, LlmCall.cost)
    currency = case(
        (
            LlmCall.cost_reference.is_not(None),
            func.coalesce(LlmCall.reference_currency, literal(settings.reference_currency)),
        ),
        (LlmCall.cost.is_not(None), func.coalesce(LlmCall.currency, literal(UNPRICED_CURRENCY))),
        else_=None,
    )
    return amount, currency


def _conditions(filters: SpendFilters) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if filters.date_from is not None:
        conditions.append(LlmCall.created_at >= filters.date_from)
    if filters.date_to is not None:
        conditions.append(LlmCall.created_at < filters.date_to)
    if filters.agent is not None:
        conditions.append(LlmCall.agent_key == filters.agent)
    if filters.model is not None:
        conditions.append(LlmCall.model == filters.model)
    for column, value in ((LlmCall.user, filters.user), (LlmCall.tenant, filters.tenant)):
        if value is None:
            continue
        kind, _colon, ident = value.partition(':')
        if ident:
            conditions.append(column == value)
        else:  # every id of the type
            conditions.append(column.startswith(f'{kind}:', autoescape=True))
    return conditions


# -- local days ----------------------------------------------------------------------------


def _span(
    session: Session, conditions: list[ColumnElement[bool]], filters: SpendFilters
) -> tuple[datetime, datetime]:
    """The times the report covers: the filters' bounds, else the matching rows' first and last."""
    start, end = filters.date_from, filters.date_to
    if start is None or end is None:
        first, last = session.execute(
            select(func.min(LlmCall.created_at), func.max(LlmCall.created_at)).where(*conditions)
        ).one()
        start = start or first or datetime.now(UTC)
        end = end or (last + timedelta(seconds=1) if last is not None else start)
    return start, max(start, end)


def _local_day(
    dialect: str, zone: ZoneInfo, span: Callable[[], tuple[datetime, datetime]]
) -> ColumnElement[Any]:
    """`created_at` as the `YYYY-MM-DD` of its day in `zone`.

    PostgreSQL converts with its own time zone database. SQLite knows only fixed offsets, so the
    span is cut where the zone's offset changes (daylight saving) and each piece adds its offset;
    `span` is called for the report's time range only when the zone has more than one offset.
    """
    if dialect == 'postgresql':
        return func.to_char(func.timezone(zone.key, LlmCall.created_at), 'YYYY-MM-DD')
    start, end = span() if _has_transitions(zone) else (datetime.now(UTC), datetime.now(UTC))
    pieces = list(_offsets(zone, start, end))
    whens = [
        (LlmCall.created_at < until, func.date(LlmCall.created_at, _modifier(offset)))
        for until, offset in pieces[:-1]
    ]
    last = func.date(LlmCall.created_at, _modifier(pieces[-1][1]))
    return case(*whens, else_=last) if whens else last


def _modifier(offset: timedelta) -> str:
    return f'{int(offset.total_seconds()) // 60:+d} minutes'


@cache
def _has_transitions(zone: ZoneInfo) -> bool:
    """Whether the zone's offset changed since 1970 or changes before 2050 (looked at weekly)."""
    moment = datetime(1970, 1, 1, tzinfo=UTC)
    first = _offset(zone, moment)
    return any(_offset(zone, moment + timedelta(weeks=week)) != first for week in range(1, 80 * 53))


def _offsets(zone: ZoneInfo, start: datetime, end: datetime) -> Iterator[tuple[datetime, timedelta]]:
    """`(until, offset)` pieces covering `[start, end]`: the zone's UTC offset holds until `until`."""
    step = max(timedelta(hours=6), (end - start) / 200_000)
    moment = start
    offset = _offset(zone, moment)
    while moment < end:
        following = min(moment + step, end)
        changed = _offset(zone, following)
        if changed != offset:
            low, high = moment, following  # the change is in (low, high]: find it to the second
            while high - low > timedelta(seconds=1):
                middle = low + (high - low) / 2
                if _offset(zone, middle) == offset:
                    low = middle
                else:
                    high = middle
            yield high.replace(microsecond=0), offset
            offset = changed
        moment = following
    yield end, offset


def _offset(zone: ZoneInfo, moment: datetime) -> timedelta:
    return moment.astimezone(zone).utcoffset() or timedelta(0)


def day_bound(value: str, zone: str, *, end: bool) -> datetime | None:
    """A report bound from an ISO date or datetime: a date is that whole day in `zone` (as `to`,
    up to its end); a datetime without an offset is in `zone` too. Empty: no bound.

    Raises `ValueError` for text that is neither; a bound past what a datetime holds is no bound.
    """
    if not value:
        return None
    tz = ZoneInfo(zone)
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            if end:
                day += timedelta(days=1)
            return datetime.combine(day, time.min, tzinfo=tz).astimezone(UTC)
        parsed = datetime.fromisoformat(value.replace('Z', '+00:00').replace('z', '+00:00'))
        return (parsed if parsed.tzinfo else parsed.replace(tzinfo=tz)).astimezone(UTC)
    except OverflowError:
        return None


def decimal_text(value: Decimal) -> str:
    """An amount as plain decimal text without trailing zeros: `2.5`, `3`, `0.0000001`."""
    text = format(value.normalize(), 'f')
    return text if text != '-0' else '0'
