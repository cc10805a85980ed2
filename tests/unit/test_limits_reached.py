"""`limits.reached`: the window check a task makes before it starts, on the limits, windows and
consumption every model call is decided on (`limits.reserve`), on every selected database."""

from __future__ import annotations

from decimal import Decimal

import pytest
from sqlalchemy import text

from spending_models import add_limit
from synapse_agents.accounting import limits
from synapse_agents.accounting.limits import Request, Subject
from synapse_agents.corrupt import CorruptRow
from synapse_agents.settings import Settings
from synapse_agents.store import Store
from synapse_agents.store.engine import writer

SUBJECT = Subject(tenant='org:acme', agent='bot')


def reserve(store: Store, amount: str) -> limits.Decision:
    with writer(store.engine).begin() as connection:
        return limits.reserve(connection, Request(SUBJECT, Decimal(amount), 'USD'), Settings())


def test_a_window_filled_by_reservations_is_reached_for_its_subject_only(store: Store) -> None:
    tenant = add_limit(store, 'tenant', 'org:acme', '1')
    add_limit(store, 'agent', 'bot', '5')
    add_limit(store, 'tenant', 'org:other', '0.5')
    assert limits.reached(store, SUBJECT) == []
    assert not reserve(store, '0.6').refused
    assert limits.reached(store, SUBJECT) == []
    assert not reserve(store, '0.4').refused  # exactly the amount: the window is full
    [full] = limits.reached(store, SUBJECT)
    assert (full.limit.id, full.consumed, full.estimated) == (tenant.id, Decimal('1'), Decimal(0))
    assert reserve(store, '0.01').refused, 'what `reached` reports full, `reserve` refuses'
    assert limits.reached(store, Subject(tenant='org:beta')) == []
    assert limits.reached(store, Subject()) == []


def test_a_limit_whose_amount_cannot_be_read_refuses_as_reserve_does(store: Store) -> None:
    bad = add_limit(store, 'tenant', 'org:acme', '1')
    # Text on SQLite, NaN on PostgreSQL (its NUMERIC takes no text).
    value, cast = ('lots', ':value') if store.dialect == 'sqlite' else ('NaN', 'CAST(:value AS NUMERIC)')
    with store.write() as session:
        session.execute(
            text(f'UPDATE spending_limits SET amount = {cast} WHERE id = :id'), {'value': value, 'id': bad.id}
        )
    with pytest.raises(CorruptRow) as reached:
        limits.reached(store, SUBJECT)
    with pytest.raises(CorruptRow) as reserved:
        reserve(store, '0.1')
    assert str(reached.value) == str(reserved.value)
    assert str(reached.value).startswith(f'spending_limits {bad.id}: amount is not a number')
