"""A limit's window as pieces the database sums cheaply: whole UTC days and whole UTC hours from
`spend_buckets` (the ledger's running totals, kept by triggers: migration 0018), and the ledger's
own rows only for the part-hours at its ends.

So the rows read for one window are bounded by its length (a month: about 30 days, 46 hours and
two part-hours of rows), not by how many calls it holds. A calendar window in a zone whose offset
is whole hours starts and ends on UTC hours and has no part-hour; a sliding one starts at any
moment (its first part-hour is read from the ledger) and has no end: every bucket from its start
on counts, so a row stamped by a clock a little ahead still does.

The pieces cover the window exactly once (`pieces` is checked against the plain ledger sum by
property tests on both databases).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

HOUR = timedelta(hours=1)
DAY = timedelta(days=1)
NO_END = datetime(9999, 12, 31, tzinfo=UTC)
"""The upper bound of a window that has none (a sliding window's)."""

Kind = Literal['ledger', 'hours', 'days']
"""Where a piece is summed from: the ledger's rows, or the hour or day buckets."""


@dataclass(frozen=True)
class Piece:
    """`[start, end)` of the window, summed from `kind`."""

    kind: Kind
    start: datetime
    end: datetime


def pieces(start: datetime, end: datetime | None, now: datetime) -> list[Piece]:
    """`[start, end)` (UTC; `end` None: no upper bound) as ledger part-hours, hour ranges and a day
    range that cover it exactly once, the empty ones left out. `now` places the last whole day of a
    window with no end (its hours from that day on are summed as hours)."""
    first_hour = _ceil(start, HOUR)
    if end is not None and end <= first_hour:
        return [Piece('ledger', start, end)] if start < end else []
    last_hour = NO_END if end is None else _floor(end, HOUR)
    first_day = _ceil(first_hour, DAY)
    last_day = _floor(now if end is None else last_hour, DAY)
    found = [Piece('ledger', start, first_hour)]
    if first_day < last_day:
        found += [
            Piece('hours', first_hour, first_day),
            Piece('days', first_day, last_day),
            Piece('hours', last_day, last_hour),
        ]
    else:
        found.append(Piece('hours', first_hour, last_hour))
    if end is not None:
        found.append(Piece('ledger', last_hour, end))
    return [piece for piece in found if piece.start < piece.end]


def _floor(moment: datetime, unit: timedelta) -> datetime:
    if moment.tzinfo is not UTC:
        moment = moment.astimezone(UTC)
    if unit == DAY:
        return moment.replace(hour=0, minute=0, second=0, microsecond=0)
    return moment.replace(minute=0, second=0, microsecond=0)


def _ceil(moment: datetime, unit: timedelta) -> datetime:
    floor = _floor(moment, unit)
    return floor if floor == moment else floor + unit
