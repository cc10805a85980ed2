"""Spending limits: their windows, what they hold, and the reservations that cannot be raced.

A limit (`accounting.tables.SpendingLimit`) caps what one tenant, user, agent or preset spends per
period: a calendar day or month in the limit's time zone, or a sliding day (24 hours) or month
(30 days) ending now. Several limits may apply to one call (its tenant's, its user's, its agent's,
its preset's); every one is checked.

What a limit holds (`consumption`) is the ledger's spend in its window plus every live
reservation that names its scope, in the limit's currency (`held.py`: one statement for any
number of limits, summed from the ledger's running totals). A limit whose stored amount cannot be
read (edited by hand) refuses every call it applies to: `reserve` raises `corrupt.CorruptRow`
naming it, and no model call is made. A cost in a currency with no rate cannot be counted (add
the rate). Windows and terms: `windows.py`.

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
from datetime import datetime, timedelta
from decimal import Decimal
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, Connection, bindparam, delete, insert, or_, select

from ..corrupt import CorruptRow, unreadable_amount
from ..settings import Settings
from ..store.engine import writer
from ..store.ids import new_id
from ..store.prepared import execute, first_row
from ..store.schema import utcnow
from .held import consumptions_in
from .ledger_writes import record_llm_call, release_reservation
from .pricing import convert
from .tables import SpendingLimit, SpendingOverrun, SpendingReservation
from .windows import Limit, LimitTerms, aware

if TYPE_CHECKING:
    from ..store import Store

SCOPES = ('tenant', 'user', 'agent', 'preset')
RESERVATION_TTL = timedelta(minutes=15)
"""How long a reservation counts when its call never ends (its process died): the sweep removes it."""

UNREADABLE = 'amount is not a number'
REFUSED = 'every model call this limit applies to is refused until its amount is changed'


_LIMIT_COLUMNS = (  # in `windows.Limit`'s field order: a row is `Limit(*row)`
    SpendingLimit.id,
    SpendingLimit.scope,
    SpendingLimit.scope_id,
    SpendingLimit.period,
    SpendingLimit.amount,
    SpendingLimit.currency,
    SpendingLimit.timezone,
)
_INSERT_RESERVATION = insert(SpendingReservation.__table__)  # type: ignore[arg-type]


# -- consumption -------------------------------------------------------------------------------


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
    moment = aware(now or utcnow())
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
    moment = aware(now or utcnow())
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
            delete(SpendingReservation).where(SpendingReservation.expires_at <= aware(now or utcnow()))
        )
    return int(result.rowcount or 0)


def _defaults() -> Settings:
    return Settings()
