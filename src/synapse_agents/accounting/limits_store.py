"""Spending limits kept in the store: create, list, change and remove them, and read the overrun log.

The inputs are validated here, so the HTTP API, the CLI and a program calling these functions
refuse the same things in the same words: a scope and a period among `limits.SCOPES` and
`windows.PERIODS`, a `type:id` for a tenant or a user, a real IANA time zone, a currency that is the
reference one or has a rate (`currency_rates`), an amount above 0. One limit per scope, scope id
and period: a second is refused (409), `upsert` changes the one there is. Blocking: call from a
thread.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, Literal
from zoneinfo import available_timezones

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..corrupt import CorruptRow, note, unreadable_amount
from ..store.schema import utcnow
from .limits import UNREADABLE, consumption
from .tables import SpendingLimit, SpendingOverrun
from .windows import window

if TYPE_CHECKING:
    from ..settings import Settings
    from ..store import Store

Scope = Literal['tenant', 'user', 'agent', 'preset']
"""What a limit applies to (`limits.SCOPES`)."""
Period = Literal['calendar_day', 'calendar_month', 'sliding_day', 'sliding_month']
"""How a limit's window runs (`windows.PERIODS`)."""
MAX_AMOUNT = Decimal(100_000_000)
"""The largest limit (the store keeps amounts up to about 9·10⁸ on SQLite)."""
OVERRUNS_PAGE_SIZE = 50

ScopeId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=255,
        pattern=r'^[^\x00\s](?:[^\x00]*[^\x00\s])?$',
        description="`type:id` for a tenant or a user, the agent's slug, the preset's key.",
    ),
]
_FRACTIONS = '|'.join(
    '0' * zeros + '[1-9]' + (f'[0-9]{{0,{9 - zeros}}}' if zeros < 9 else '') for zeros in range(10)
)
"""The fraction of an amount below 1: ten digits at most, one of them not 0."""
AMOUNT_PATTERN = rf'^(?:[1-9][0-9]{{0,7}}(?:\.[0-9]{{1,10}})?|0\.(?:{_FRACTIONS})|100000000(?:\.0{{1,10}})?)$'
"""A decimal string above 0, at most 100000000, with at most 10 decimals (`5`, `0.50`, `12.25`)."""
AMOUNT_SCHEMA = {
    'anyOf': [
        {'type': 'number', 'exclusiveMinimum': 0, 'maximum': 100_000_000},
        {'type': 'string', 'pattern': AMOUNT_PATTERN},
    ],
    'description': 'Above 0, at most 100000000, 10 decimals at most: a decimal string ("5.5") or a number.',
}


def _amount_text(value: Any) -> Any:
    """A string amount must be plain decimal text (no exponent, sign or spaces), as the schema says."""
    if isinstance(value, str) and not re.fullmatch(AMOUNT_PATTERN, value):
        raise ValueError(f'expected a decimal above 0 and at most {MAX_AMOUNT}, with 10 decimals at most')
    return value


Amount = Annotated[
    Decimal,
    BeforeValidator(_amount_text),
    Field(gt=0, le=MAX_AMOUNT, decimal_places=10, allow_inf_nan=False),
    WithJsonSchema(AMOUNT_SCHEMA),
]
Currency = Annotated[
    str,
    Field(pattern=r'^[A-Z]{3}$', description='An ISO 4217 code: the reference currency or one with a rate.'),
]
TimeZone = Annotated[
    str,
    Field(
        min_length=1,
        max_length=64,
        pattern=r'^[A-Za-z0-9_+\-]+(?:/[A-Za-z0-9_+\-]+)*$',
        description='An IANA time zone (`Europe/Paris`) for calendar periods.',
    ),
]


class LimitError(Exception):
    """A limit operation refused; `status` is the HTTP status, `fields` the bad inputs."""

    def __init__(self, status: int, message: str, fields: list[dict[str, str]] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.fields = fields


def invalid(field: str, problem: str) -> LimitError:
    """A 422 about one input: `timezone: 'Mars/Base' is not an IANA time zone`."""
    return LimitError(422, f'{field}: {problem}', [{'location': f'body.{field}', 'message': problem}])


def not_found(limit_id: str) -> LimitError:
    return LimitError(404, f'No spending limit with id {limit_id[:40]!r}.')


class LimitInput(BaseModel):
    """A new limit: at most `amount` in `currency` per `period` for one scope id."""

    model_config = ConfigDict(extra='forbid')

    scope: Scope
    scope_id: ScopeId
    period: Period
    amount: Amount
    currency: Currency | None = Field(None, description='The reference currency when left out.')
    timezone: TimeZone | None = Field(None, description='The `limits_timezone` setting when left out.')
    enabled: bool = True


class LimitPatch(BaseModel):
    """A change to a limit: the fields given replace the limit's."""

    model_config = ConfigDict(extra='forbid')

    scope: Scope | None = None
    scope_id: ScopeId | None = None
    period: Period | None = None
    amount: Amount | None = None
    currency: Currency | None = None
    timezone: TimeZone | None = None
    enabled: bool | None = None


@dataclass(frozen=True)
class LimitStatus:
    """A limit with what its current window holds: spent and reserved, and what is left."""

    limit: SpendingLimit
    consumed: Decimal
    headroom: Decimal
    """`amount - consumed`, never below 0."""
    window_start: datetime
    window_end: datetime
    corrupt: str | None = None
    """Set when the stored amount is not a number (`unreadable`): nothing may be spent (headroom 0)."""


def unreadable(limit: SpendingLimit) -> CorruptRow | None:
    """The error naming a limit whose stored amount cannot be read (edited by hand), or None."""
    if unreadable_amount(limit.amount):
        return CorruptRow('spending_limits', limit.id, UNREADABLE)
    return None


# -- validation --------------------------------------------------------------------------------


@cache
def _zones() -> frozenset[str]:
    return frozenset(available_timezones()) | {'UTC'}


def check_timezone(name: str, field: str = 'timezone') -> str:
    """`name` when it is an IANA time zone, else a 422 naming `field`."""
    if name not in _zones():
        raise invalid(field, f'{name[:64]!r} is not an IANA time zone (such as UTC or Europe/Paris)')
    return name


def check_currency(code: str, settings: Settings) -> str:
    """`code` when it is the reference currency or `currency_rates` has it, else a 422."""
    known = {settings.reference_currency, *settings.currency_rates}
    if code not in known:
        listed = ', '.join(sorted(known))
        raise invalid('currency', f'{code!r} has no rate: use one of {listed} or add it to currency_rates')
    return code


def _check_scope_id(scope: str, scope_id: str) -> None:
    if scope in ('tenant', 'user'):
        kind, colon, ident = scope_id.partition(':')
        if not (kind and colon and ident):
            raise invalid(
                'scope_id', f'a {scope} is named as type:id (such as customer:42), not {scope_id[:80]!r}'
            )


def _validated(values: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """The limit's columns, checked; defaults filled in (the reference currency, `limits_timezone`)."""
    values['currency'] = check_currency(values.get('currency') or settings.reference_currency, settings)
    values['timezone'] = check_timezone(values.get('timezone') or settings.limits_timezone)
    _check_scope_id(values['scope'], values['scope_id'])
    return values


def _same(session: Session, values: dict[str, Any], other_than: str | None = None) -> SpendingLimit | None:
    """The limit of the same scope id and period as `values` (other than `other_than`)."""
    query = select(SpendingLimit).where(
        SpendingLimit.scope == values['scope'],
        SpendingLimit.scope_id == values['scope_id'],
        SpendingLimit.period == values['period'],
    )
    if other_than is not None:
        query = query.where(SpendingLimit.id != other_than)
    return session.scalars(query.limit(1)).one_or_none()


def _conflict(existing: SpendingLimit) -> LimitError:
    return LimitError(
        409,
        f'A {existing.period} limit for {existing.scope} {existing.scope_id!r} exists already '
        f'(id {existing.id}): change that one.',
    )


# -- the operations ----------------------------------------------------------------------------


def listing(store: Store) -> Sequence[SpendingLimit]:
    """Every limit, by scope, scope id and period."""
    query = select(SpendingLimit).order_by(SpendingLimit.scope, SpendingLimit.scope_id, SpendingLimit.period)
    with store.read() as session:
        rows = list(session.scalars(query))
        session.expunge_all()
        return rows


def get(store: Store, limit_id: str, *, readable: bool = False) -> SpendingLimit:
    """One limit; a 404 `LimitError` when there is none, `CorruptRow` when `readable` and its amount
    cannot be read."""
    with store.read() as session:
        found = session.get(SpendingLimit, limit_id)
        if found is None:
            raise not_found(limit_id)
        session.expunge(found)
    if readable and (problem := unreadable(found)) is not None:
        raise problem
    return found


def create(store: Store, settings: Settings, body: LimitInput) -> SpendingLimit:
    """Add a limit (409 when its scope id already has one for that period)."""
    values = _validated(body.model_dump(), settings)
    now = utcnow()
    row = SpendingLimit(**values, created_at=now, updated_at=now)
    with store.write() as session:
        existing = _same(session, values)
        if existing is not None:
            raise _conflict(existing)
        session.add(row)
    return row


def update(store: Store, settings: Settings, limit_id: str, patch: LimitPatch) -> SpendingLimit:
    """Change the fields `patch` gives (null is refused for every field)."""
    given = patch.model_dump(exclude_unset=True)
    for name, value in given.items():
        if value is None:
            raise invalid(name, 'may not be null')
    with store.write() as session:
        row = session.get(SpendingLimit, limit_id)
        if row is None:
            raise not_found(limit_id)
        current = {name: getattr(row, name) for name in LimitInput.model_fields}
        if 'amount' not in given and (problem := unreadable(row)) is not None:
            raise problem  # a change that gives no amount would keep the one that cannot be read
        values = _validated({**current, **given}, settings)
        existing = _same(session, values, other_than=limit_id)
        if existing is not None:
            raise _conflict(existing)
        for name, value in values.items():
            setattr(row, name, value)
        row.updated_at = utcnow()
    return row


def upsert(store: Store, settings: Settings, body: LimitInput) -> tuple[SpendingLimit, bool]:
    """Set the limit of a scope id for a period: change the one there is, else add it (True)."""
    with store.read() as session:
        existing = _same(session, body.model_dump())
    if existing is None:
        return create(store, settings, body), True
    patch = LimitPatch(**body.model_dump(exclude={'scope', 'scope_id', 'period'}, exclude_none=True))
    return update(store, settings, existing.id, patch), False


def delete(store: Store, limit_id: str) -> SpendingLimit:
    """Remove a limit (its overruns stay in the log, naming its id)."""
    with store.write() as session:
        row = session.get(SpendingLimit, limit_id)
        if row is None:
            raise not_found(limit_id)
        session.delete(row)
    return row


def status(
    store: Store, settings: Settings, limit: SpendingLimit, now: datetime | None = None
) -> LimitStatus:
    """The limit's current window and what it holds (`limits.consumption`, with the settings' rates)."""
    moment = now or utcnow()
    start, end = window(limit, moment)
    consumed = consumption(store, limit, moment, settings)
    if unreadable_amount(limit.amount):
        corrupt = note('spending_limits', limit.id, UNREADABLE)
        return LimitStatus(limit, consumed, Decimal(0), start, end, corrupt)
    return LimitStatus(limit, consumed, max(limit.amount - consumed, Decimal(0)), start, end)


# -- overruns ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class OverrunFilters:
    """Which refused calls to list: one limit's, in `[date_from, date_to)`; page 1 is the newest."""

    limit_id: str | None = None
    date_from: datetime | None = None
    date_to: datetime | None = None
    page: int = 1


def overruns(store: Store, filters: OverrunFilters) -> tuple[Sequence[SpendingOverrun], int]:
    """A page of overruns (newest first, `OVERRUNS_PAGE_SIZE` a page) and how many match."""
    conditions = []
    if filters.limit_id is not None:
        conditions.append(SpendingOverrun.limit_id == filters.limit_id)
    if filters.date_from is not None:
        conditions.append(SpendingOverrun.created_at >= filters.date_from)
    if filters.date_to is not None:
        conditions.append(SpendingOverrun.created_at < filters.date_to)
    query = (
        select(SpendingOverrun)
        .where(*conditions)
        .order_by(SpendingOverrun.created_at.desc(), SpendingOverrun.id.desc())
        .limit(OVERRUNS_PAGE_SIZE)
        .offset((filters.page - 1) * OVERRUNS_PAGE_SIZE)
    )
    with store.read() as session:
        total = session.scalar(select(func.count()).select_from(SpendingOverrun).where(*conditions)) or 0
        rows = list(session.scalars(query))
        session.expunge_all()
        return rows, total
