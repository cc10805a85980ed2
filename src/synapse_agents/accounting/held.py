"""What spending limits' windows hold: the ledger's spend in each window plus the live reservations
of each limit's scope, in one statement (one snapshot, one round trip) for any number of limits.

A window is summed from whole UTC days and hours of `spend_buckets` (the ledger's running totals)
and, for the part-hours at its ends, from the ledger's rows (`buckets.pieces`): the rows read are
bounded by the window's length, not by how many calls it holds. The pieces travel as one JSON
parameter, so the statement's text is the same whatever the limits: it is compiled once, and
PostgreSQL's driver keeps it prepared. A reservation is counted once per scope, however many of its
limits there are. A call settling meanwhile (its reservation deleted in the transaction that
inserts its ledger row) is counted once, never twice or not at all, as the one statement reads one
snapshot. Amounts in another currency are converted with the current `currency_rates`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, String, bindparam, text

from ..settings import Settings
from ..store.prepared import all_rows
from ..store.schema import Money, UtcDateTime
from .buckets import pieces
from .pricing import convert
from .windows import SLIDING, LimitTerms, aware, window

_LEDGER_COLUMN = {'tenant': 'tenant', 'user': '"user"', 'agent': 'agent_key', 'preset': 'preset'}
_SPAN = {'hours': 'h', 'days': 'd', 'ledger': 'l'}
_RESERVED = 'r'
_MONEY = Money()


def _statement(dialect: str) -> Any:
    """The statement for `dialect`: the pieces (`w`) joined to the buckets, the ledger and the live
    reservations (one part per scope column), summed by part and currency."""
    if dialect == 'postgresql':
        windows = (
            'SELECT * FROM jsonb_to_recordset(CAST(:windows AS jsonb)) '
            'AS w(p int, s text, i text, k text, lo timestamptz, hi timestamptz)'
        )
    else:  # SQLite compares its timestamps as text, in the form they are stored in
        windows = (
            "SELECT json_extract(value, '$.p') AS p, json_extract(value, '$.s') AS s, "
            "json_extract(value, '$.i') AS i, json_extract(value, '$.k') AS k, "
            "json_extract(value, '$.lo') AS lo, json_extract(value, '$.hi') AS hi FROM json_each(:windows)"
        )
    parts = [
        'SELECT w.p, b.currency, b.amount FROM w JOIN spend_buckets AS b ON b.scope = w.s '
        'AND b.scope_id = w.i AND b.span = w.k AND b.start >= w.lo AND b.start < w.hi'
    ]
    for scope, column in _LEDGER_COLUMN.items():
        parts.append(
            f"SELECT w.p, l.currency, l.cost FROM w JOIN llm_calls AS l ON w.k = 'l' AND w.s = '{scope}' "
            f'AND l.{column} = w.i AND l.cost IS NOT NULL AND l.created_at >= w.lo AND l.created_at < w.hi'
        )
        parts.append(
            f"SELECT w.p, r.currency, r.amount FROM w JOIN spending_reservations AS r ON w.k = '{_RESERVED}' "
            f"AND w.s = '{scope}' AND r.{column} = w.i AND r.expires_at > :now"
        )
    union = ' UNION ALL '.join(parts)
    sql = f'WITH w AS MATERIALIZED ({windows}) SELECT p, currency, sum(amount) AS amount FROM ({union}) AS u'
    sql += ' GROUP BY p, currency'
    # No result types: the rows are read as the driver returns them (`all_rows`), the sums converted here.
    return text(sql).bindparams(bindparam('windows', type_=String()), bindparam('now', type_=UtcDateTime()))


_STATEMENTS = {dialect: _statement(dialect) for dialect in ('sqlite', 'postgresql')}


def consumptions_in(
    connection: Connection, found: Sequence[LimitTerms], now: datetime, settings: Settings
) -> list[Decimal]:
    """What each limit's current window holds, in its currency (one statement for them all)."""
    consumed = [Decimal(0) for _ in found]
    if not found:
        return consumed
    moment = aware(now)
    dialect = connection.dialect.name
    rows: list[dict[str, Any]] = []
    groups: dict[tuple[str, str], list[int]] = {}
    for index, limit in enumerate(found):
        start, end = window(limit, moment)
        for piece in pieces(start, None if limit.period in SLIDING else end, moment):
            rows.append(
                {
                    'p': index,
                    's': limit.scope,
                    'i': limit.scope_id,
                    'k': _SPAN[piece.kind],
                    'lo': _stamp(piece.start, dialect),
                    'hi': _stamp(piece.end, dialect),
                }
            )
        groups.setdefault((limit.scope, limit.scope_id), []).append(index)
    shared: list[list[int]] = []
    for (scope, scope_id), members in groups.items():
        rows.append({'p': len(found) + len(shared), 's': scope, 'i': scope_id, 'k': _RESERVED})
        shared.append(members)
    params = {'windows': json.dumps(rows), 'now': moment}
    held: dict[tuple[int, str | None], Decimal] = {}  # summed per currency first, then converted once
    for part, currency, raw in all_rows(connection, _STATEMENTS[dialect], params):
        amount = _MONEY.process_result_value(raw, connection.dialect)
        if amount is None:
            continue
        currency = currency or None  # a bucket's '' is a cost that names no currency
        for index in [part] if part < len(found) else shared[part - len(found)]:
            held[index, currency] = held.get((index, currency), Decimal(0)) + Decimal(amount)
    for (index, currency), amount in held.items():
        converted = convert(amount, currency, found[index].currency, settings)
        if converted is not None:
            consumed[index] += converted
    return consumed


def _stamp(moment: datetime, dialect: str) -> str:
    """A bound of a piece as the JSON parameter carries it (SQLite: as its timestamps are stored)."""
    if moment.tzinfo is not UTC:
        moment = moment.astimezone(UTC)
    if dialect == 'postgresql':
        return moment.isoformat()
    return moment.isoformat(sep=' ', timespec='microseconds')[:26]  # without its '+00:00'
