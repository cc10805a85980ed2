"""A spending limit's terms and its current window: a calendar day or month in the limit's time
zone, or a sliding day (24 hours) or month (30 days) ending now."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Protocol
from zoneinfo import ZoneInfo

PERIODS = ('calendar_day', 'calendar_month', 'sliding_day', 'sliding_month')
SLIDING = {'sliding_day': timedelta(days=1), 'sliding_month': timedelta(days=30)}


class LimitTerms(Protocol):
    """What deciding a limit reads of it: a `SpendingLimit` row, or the `Limit` a reservation reads."""

    @property
    def id(self) -> str: ...
    @property
    def scope(self) -> str: ...
    @property
    def scope_id(self) -> str: ...
    @property
    def period(self) -> str: ...
    @property
    def amount(self) -> Decimal: ...
    @property
    def currency(self) -> str: ...
    @property
    def timezone(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Limit:
    """An enabled limit as a reservation reads it: its terms only, a plain value (no ORM state)."""

    id: str
    scope: str
    scope_id: str
    period: str
    amount: Decimal
    currency: str
    timezone: str


def window(limit: LimitTerms, now: datetime) -> tuple[datetime, datetime]:
    """The limit's current window `[start, end)` in UTC.

    A calendar day or month starts at local midnight in the limit's time zone, so a day across a
    change to or from summer time lasts 23 or 25 hours. A sliding window ends at `now`."""
    now = aware(now)
    span = SLIDING.get(limit.period)
    if span is not None:
        return now - span, now
    zone = ZoneInfo(limit.timezone or 'UTC')
    local = now.astimezone(zone)
    if limit.period == 'calendar_day':
        start = datetime(local.year, local.month, local.day, tzinfo=zone)
        following = (start + timedelta(days=1, hours=12)).date()  # noon tomorrow, whatever the offset
        end = datetime(following.year, following.month, following.day, tzinfo=zone)
    elif limit.period == 'calendar_month':
        start = datetime(local.year, local.month, 1, tzinfo=zone)
        year, month = (local.year + 1, 1) if local.month == 12 else (local.year, local.month + 1)
        end = datetime(year, month, 1, tzinfo=zone)
    else:
        raise ValueError(f'unknown period {limit.period!r}: expected one of {", ".join(PERIODS)}')
    return start.astimezone(UTC), end.astimezone(UTC)


def aware(moment: datetime) -> datetime:
    """`moment` in UTC (a naive one is taken as UTC)."""
    return moment.astimezone(UTC) if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
