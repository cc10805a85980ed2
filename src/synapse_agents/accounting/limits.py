"""Spending limits: their windows, what they hold, and the reservations that cannot be raced.

A limit (`accounting.tables.SpendingLimit`) caps what one tenant, user, agent or preset spends per
period: a calendar day or month in the limit's time zone, or a sliding day (24 hours) or month
(30 days) ending now. Several limits may apply to one call (its tenant's, its user's, its agent's,
its preset's); every one is checked.

What a limit holds (`consumption`) is the ledger's spend in its window plus every live
reservation that names its scope, in the limit's currency. A limit whose stored amount cannot be
read (edited by hand) refuses every call it applies to: `reserve` raises `corrupt.CorruptRow`
naming it, and no model call is made. Both are read by one statement, so a
call settling meanwhile (its reservation deleted in the transaction that inserts its ledger row)
is counted once, never twice or not at all. Amounts in another currency are converted with the
current `currency_rates`; a cost in a currency with no rate cannot be counted (add the rate).

`reserve` decides in the database, in one transaction: on PostgreSQL it locks the applicable
limit rows first (`SELECT ... FOR UPDATE`, in id order, so two processes never deadlock), on
SQLite the transaction holds the write lock from its start (`BEGIN IMMEDIATE`, see
`store.engine.writer`). Then no other reservation of the same limits can be decided until it
commits, and the consumption it reads is final. A call that would pass a limit gets an overrun row
(committed although the call is refused) instead of a reservation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol
from zoneinfo import ZoneInfo

from sqlalchemy import (
    ColumnElement,
    Connection,
    Integer,
    bindparam,
    delete,
    func,
    insert,
    literal_column,
    or_,
    select,
    type_coerce,
    union_all,
)

from ..corrupt import CorruptRow, unreadable_amount
from ..settings import Settings
from ..store.engine import writer
from ..store.ids import new_id
from ..store.prepared import execute, first_row
from ..store.schema import Money, utcnow
from .ledger_writes import record_llm_call, release_reservation
from .pricing import convert
from .tables import LlmCall, SpendingLimit, SpendingOverrun, SpendingReservation

if TYPE_CHECKING:
    from ..store import Store

PERIODS = ('calendar_day', 'calendar_month', 'sliding_day', 'sliding_month')
SCOPES = ('tenant', 'user', 'agent', 'preset')
SLIDING = {'sliding_day': timedelta(days=1), 'sliding_month': timedelta(days=30)}
RESERVATION_TTL = timedelta(minutes=15)
"""How long a reservation counts when its call never ends (its process died): the sweep removes it."""

UNREADABLE = 'amount is not a number'
REFUSED = 'every model call this limit applies to is refused until its amount is changed'


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


_LIMIT_COLUMNS = (
    SpendingLimit.id,
    SpendingLimit.scope,
    SpendingLimit.scope_id,
    SpendingLimit.period,
    SpendingLimit.amount,
    SpendingLimit.currency,
    SpendingLimit.timezone,
)
_INSERT_RESERVATION = insert(SpendingReservation.__table__)  # type: ignore[arg-type]


# -- windows -----------------------------------------------------------------------------------


def window(limit: LimitTerms, now: datetime) -> tuple[datetime, datetime]:
    """The limit's current window `[start, end)` in UTC.

    A calendar day or month starts at local midnight in the limit's time zone, so a day across a
    change to or from summer time lasts 23 or 25 hours. A sliding window ends at `now`."""
    now = _aware(now)
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


# -- consumption -------------------------------------------------------------------------------


_LEDGER = LlmCall.__table__.alias('l')
_RESERVED = SpendingReservation.__table__.alias('r')
# Short aliases keep the statement for ten limits short enough for the driver's own statement
# cache (psycopg converts a query of more than 4 KB again at every call).
_LEDGER_COLUMN = {'tenant': 'tenant', 'user': 'user', 'agent': 'agent_key', 'preset': 'preset'}


def _held(found: Sequence[LimitTerms], now: datetime) -> tuple[Any, dict[str, Any], list[list[int]]]:
    """The statement of what the limits' windows hold, its parameters, and which limits (their
    indexes in `found`) share each scope. It returns `(part, currency, amount)` rows: part `i < n`
    is the ledger's spend in limit `i`'s window, part `n + g` the live reservations of scope `g`
    (counted once per scope, however many of its limits there are). One statement: one snapshot,
    one round trip. It depends only on the limits' scopes and kinds of window, so it is built once
    for each such shape and its compiled form is reused."""
    moment = _aware(now)
    groups: dict[tuple[str, str], list[int]] = {}
    params: dict[str, Any] = {'now': moment}
    for index, limit in enumerate(found):
        start, end = window(limit, moment)
        params[f'id_{index}'] = limit.scope_id
        params[f'start_{index}'] = start
        if limit.period not in SLIDING:
            params[f'end_{index}'] = end
        groups.setdefault((limit.scope, limit.scope_id), []).append(index)
    shape = (
        tuple((limit.scope, limit.period in SLIDING) for limit in found),
        tuple((scope, members[0]) for (scope, _id), members in groups.items()),
    )
    return _held_statement(*shape), params, list(groups.values())


@lru_cache(maxsize=256)
def _held_statement(limits: tuple[tuple[str, bool], ...], scopes: tuple[tuple[str, int], ...]) -> Any:
    ledger, reserved = _LEDGER.c, _RESERVED.c
    when = ledger.created_at.type
    parts: list[Any] = []
    for index, (scope, sliding) in enumerate(limits):
        spent = select(_part(index), ledger.currency, ledger.cost.label('amount')).where(
            ledger[_LEDGER_COLUMN[scope]] == bindparam(f'id_{index}'),
            ledger.cost.is_not(None),
            ledger.created_at >= bindparam(f'start_{index}', type_=when),
        )
        if not sliding:
            # A sliding window has no upper bound: a row stamped by a clock a little ahead still counts.
            spent = spent.where(ledger.created_at < bindparam(f'end_{index}', type_=when))
        parts.append(spent)
    for group, (scope, first) in enumerate(scopes):
        parts.append(
            select(_part(len(limits) + group), reserved.currency, reserved.amount).where(
                reserved[_LEDGER_COLUMN[scope]] == bindparam(f'id_{first}'),
                reserved.expires_at > bindparam('now', type_=reserved.expires_at.type),
            )
        )
    both = union_all(*parts).subquery('u')
    total = type_coerce(func.sum(type_coerce(both.c.amount, Money())), Money())
    return select(both.c.part, both.c.currency, total).group_by(both.c.part, both.c.currency)


def _part(number: int) -> Any:
    return literal_column(str(number), Integer).label('part')


def consumptions_in(
    connection: Connection, found: Sequence[LimitTerms], now: datetime, settings: Settings
) -> list[Decimal]:
    """What each limit's current window holds, in its currency (one statement for them all)."""
    consumed = [Decimal(0) for _ in found]
    if not found:
        return consumed
    statement, params, groups = _held(found, now)
    held: dict[tuple[int, str], Decimal] = {}  # summed per currency first, then converted once
    for part, currency, amount in connection.execute(statement, params).all():
        if amount is None:
            continue
        for index in [part] if part < len(found) else groups[part - len(found)]:
            held[index, currency] = held.get((index, currency), Decimal(0)) + Decimal(amount)
    for (index, currency), amount in held.items():
        converted = convert(amount, currency, found[index].currency, settings)
        if converted is not None:
            consumed[index] += converted
    return consumed


def consumption(store: Store, limit: LimitTerms, now: datetime, settings: Settings | None = None) -> Decimal:
    """What the limit's current window holds: spent (ledger) plus reserved (live), in its currency.

    `settings` give the rates for amounts in other currencies (their defaults when left out)."""
    with store.read() as session:
        return consumptions_in(session.connection(), [limit], now, settings or _defaults())[0]


# -- which limits apply ------------------------------------------------------------------------


@dataclass(frozen=True)
class Subject:
    """Whom a model call is for: each is matched against the limits of its scope."""

    tenant: str | None = None
    user: str | None = None
    agent: str | None = None
    preset: str | None = None

    def ids(self) -> dict[str, str]:
        found = {'tenant': self.tenant, 'user': self.user, 'agent': self.agent, 'preset': self.preset}
        return {scope: value for scope, value in found.items() if value}


def _applicable(subject: Subject) -> ColumnElement[bool] | None:
    """The condition of the enabled limits that apply to `subject` (None: it names nothing)."""
    ids = subject.ids()
    if not ids:
        return None
    matches = [
        (SpendingLimit.scope == scope) & (SpendingLimit.scope_id == value) for scope, value in ids.items()
    ]
    return SpendingLimit.enabled.is_(True) & or_(*matches)


def _scope_params(ids: dict[str, str]) -> dict[str, str]:
    return {f'scope_{scope}': value for scope, value in ids.items()}


def _matching(scopes: tuple[str, ...]) -> ColumnElement[bool]:
    matches = [
        (SpendingLimit.scope == scope) & (SpendingLimit.scope_id == bindparam(f'scope_{scope}'))
        for scope in scopes
    ]
    return SpendingLimit.enabled.is_(True) & or_(*matches)


@lru_cache(maxsize=64)
def _any_of(scopes: tuple[str, ...]) -> Any:
    """Whether an enabled limit applies, for subjects naming these scopes (built once a shape)."""
    return select(SpendingLimit.id).where(_matching(scopes)).limit(1)


@lru_cache(maxsize=64)
def _limits_of(scopes: tuple[str, ...]) -> Any:
    """The enabled limits of subjects naming these scopes, by id, locked on PostgreSQL."""
    return select(*_LIMIT_COLUMNS).where(_matching(scopes)).order_by(SpendingLimit.id).with_for_update()


def applicable_limits(
    store: Store, *, tenant: str | None, user: str | None, agent: str | None, preset: str | None
) -> list[SpendingLimit]:
    """The enabled limits a call for this tenant, user, agent and preset must respect, by id."""
    condition = _applicable(Subject(tenant, user, agent, preset))
    if condition is None:
        return []
    with store.read() as session:
        rows = list(session.scalars(select(SpendingLimit).where(condition).order_by(SpendingLimit.id)))
        session.expunge_all()
        return rows


def any_limits(store: Store, subject: Subject) -> bool:
    """Whether any enabled limit applies (a plain read, before deciding in a transaction)."""
    ids = subject.ids()
    if not ids:
        return False
    return first_row(store.engine, _any_of(tuple(ids)), _scope_params(ids)) is not None


# -- reserve, settle, release ------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    """A model call about to be made, and its worst-case cost."""

    subject: Subject
    amount: Decimal
    currency: str
    run_id: str | None = None
    conversation_id: str | None = None
    ttl: timedelta = RESERVATION_TTL


@dataclass(frozen=True)
class Refusal:
    """A limit the call would pass (its overrun row is written)."""

    limit: LimitTerms
    consumed: Decimal
    estimated: Decimal


@dataclass(frozen=True)
class Decision:
    """What `reserve` decided: a reservation (None when no limit applies), or the refusals."""

    reservation_id: str | None = None
    refusals: list[Refusal] = field(default_factory=list)
    limits: int = 0
    """How many limits applied."""

    @property
    def refused(self) -> bool:
        return bool(self.refusals)


def _check_readable(found: Sequence[LimitTerms]) -> None:
    """A limit whose amount cannot be read lets nothing through (`CorruptRow` names it)."""
    for limit in found:
        if unreadable_amount(limit.amount):
            raise CorruptRow('spending_limits', limit.id, f'{UNREADABLE}: {REFUSED}')


def reached(
    store: Store, subject: Subject, settings: Settings | None = None, now: datetime | None = None
) -> list[Refusal]:
    """The limits applying to `subject` whose window is already full (spent and reserved at or over
    the amount), by id: no priced call for `subject` can pass them, so a run is refused before it
    starts (a task). The limits, windows and consumption are `reserve`'s, read in one statement; each
    call is still decided by `reserve`. `CorruptRow` for a limit whose amount cannot be read."""
    condition = _applicable(subject)
    if condition is None:
        return []
    moment = _aware(now or utcnow())
    with store.read() as session:
        connection = session.connection()
        query = select(*_LIMIT_COLUMNS).where(condition).order_by(SpendingLimit.id)
        found = [Limit(*row) for row in connection.execute(query).all()]
        _check_readable(found)
        consumed = consumptions_in(connection, found, moment, settings or _defaults())
    return [
        Refusal(limit, spent, Decimal(0))
        for limit, spent in zip(found, consumed, strict=True)
        if spent >= limit.amount
    ]


class WouldRefuse(Exception):
    """A provisional `reserve` would refuse the call: nothing is written (see `reserve`)."""


def reserve(
    connection: Connection,
    request: Request,
    settings: Settings,
    now: datetime | None = None,
    *,
    final: bool = True,
) -> Decision:
    """Check every applicable limit and reserve the call's worst case against them, or refuse it.

    Runs in the caller's write transaction (`BEGIN IMMEDIATE` on SQLite); never raises for a
    refusal, so the overrun rows it writes commit with the transaction. Not `final`, it raises
    `WouldRefuse` instead of refusing (the caller rolls back and decides again, finally, once what
    might change the answer is committed)."""
    moment = _aware(now or utcnow())
    ids = request.subject.ids()
    if not ids:
        return Decision()
    locked = connection.execute(_limits_of(tuple(ids)), _scope_params(ids)).all()
    limits = [Limit(*row) for row in locked]
    if not limits:
        return Decision()
    _check_readable(limits)
    refusals: list[Refusal] = []
    for limit, consumed in zip(limits, consumptions_in(connection, limits, moment, settings), strict=True):
        estimated = convert(request.amount, request.currency, limit.currency, settings)
        if estimated is None:
            continue  # the estimate's currency has no rate: this limit cannot judge it
        if consumed + estimated > limit.amount:
            refusals.append(Refusal(limit, consumed, estimated))
    if refusals:
        if not final:
            raise WouldRefuse()
        for refusal in refusals:
            connection.execute(insert(SpendingOverrun).values(**_overrun(refusal, request, moment)))
        return Decision(refusals=refusals, limits=len(limits))
    reservation_id = new_id()
    execute(
        connection,
        _INSERT_RESERVATION,
        {
            'id': reservation_id,
            'run_id': request.run_id,
            'tenant': request.subject.tenant,
            'user': request.subject.user,
            'agent_key': request.subject.agent,
            'preset': request.subject.preset,
            'amount': request.amount,
            'currency': request.currency,
            'created_at': moment,
            'expires_at': moment + request.ttl,
        },
    )
    return Decision(reservation_id=reservation_id, limits=len(limits))


def _overrun(refusal: Refusal, request: Request, moment: datetime) -> dict[str, Any]:
    limit = refusal.limit
    return {
        'id': new_id(),
        'limit_id': limit.id,
        'user': request.subject.user,
        'tenant': request.subject.tenant,
        'scope': limit.scope,
        'scope_id': limit.scope_id,
        'period': limit.period,
        'limit_amount': limit.amount,
        'consumed': refusal.consumed,
        'estimated': refusal.estimated,
        'overrun': refusal.consumed + refusal.estimated - limit.amount,
        'currency': limit.currency,
        'agent_key': request.subject.agent,
        'conversation_id': request.conversation_id,
        'run_id': request.run_id,
        'created_at': moment,
    }


def settle(connection: Connection, ledger_row: dict[str, Any], reservation_id: str | None) -> None:
    """Insert the call's ledger row and delete its reservation, in the one transaction."""
    record_llm_call(ledger_row, reservation_id)(connection)


def release(connection: Connection, reservation_id: str) -> None:
    """Delete a reservation (its call failed or was cancelled)."""
    release_reservation(reservation_id)(connection)


def sweep_expired(store: Store, now: datetime | None = None) -> int:
    """Delete the reservations past their `expires_at` (their process died); how many."""
    with writer(store.engine).begin() as connection:
        result = connection.execute(
            delete(SpendingReservation).where(SpendingReservation.expires_at <= _aware(now or utcnow()))
        )
    return int(result.rowcount or 0)


def _defaults() -> Settings:
    return Settings()


def _aware(moment: datetime) -> datetime:
    return moment.astimezone(UTC) if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
