"""Spending limits under real concurrency, on every selected database: 50 calls at once against a
limit that fits 10 spend at most the limit, whichever way they race.

Each call costs exactly `CALL_COST` and is estimated at exactly that (tests/spending_models.py), so
exactly 10 calls fit, and the other 40 must be refused with an overrun row each.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import func, select

from chat_helpers import collect, failure
from spending_models import CALL_COST, add_limit, add_price, priced_agent, priced_model, rows
from synapse_agents.accounting import limits
from synapse_agents.accounting.tables import LlmCall, SpendingOverrun, SpendingReservation
from synapse_agents.chat.engine import ChatEngine
from synapse_agents.chat.request import TurnRequest
from synapse_agents.scope import Scope
from synapse_agents.settings import Settings
from synapse_agents.store import Store
from synapse_agents.store.engine import writer
from synapse_agents.store.write_queue import WriteQueue
from synapse_agents.targets.target import TurnTarget

pytestmark = pytest.mark.anyio

CALLS = 50
FITS = 10
LIMIT = CALL_COST * FITS


@pytest.fixture
def engine(store: Store) -> Iterator[ChatEngine]:
    writes = WriteQueue(store)
    yield ChatEngine(store, writes, Settings())
    writes.close()


def spent(store: Store) -> Decimal:
    with store.read() as session:
        return Decimal(session.scalar(select(func.coalesce(func.sum(LlmCall.cost), 0))) or 0)


async def test_fifty_turns_at_once_spend_at_most_the_limit(engine: ChatEngine, store: Store) -> None:
    add_price(store)
    limit = add_limit(store, 'tenant', 'org:acme', LIMIT)
    in_flight = 0
    most = 0

    async def slow() -> None:
        # Every admitted call stays in flight a while, so the reservations of the others are live.
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        await asyncio.sleep(0.05)
        in_flight -= 1

    agent = priced_agent(priced_model(before=slow))
    target = TurnTarget.for_agent(agent, slug='priced')

    async def one(index: int) -> Any:
        scope = Scope(tenant=('org', 'acme'), actor=('user', str(index)))
        prepared = await engine.prepare(TurnRequest(target, f'Hi {index}', scope=scope, origin='app'))
        return failure(await collect(engine.stream(prepared)))

    failures = await asyncio.gather(*(one(index) for index in range(CALLS)))
    await engine.writes.drain()
    refused = [f for f in failures if f is not None]
    assert all(f.exception_class == 'SpendingLimitExceeded' for f in refused), {f.message for f in refused}
    assert (CALLS - len(refused), len(refused)) == (FITS, CALLS - FITS)
    assert most > 1, 'the admitted calls never overlapped'
    assert spent(store) == LIMIT
    assert len(rows(store, LlmCall)) == FITS
    overruns = rows(store, SpendingOverrun)
    assert len(overruns) == CALLS - FITS
    assert all(o.limit_id == limit.id and o.consumed + o.estimated > LIMIT for o in overruns)
    assert rows(store, SpendingReservation) == []


def test_fifty_reservations_from_fifty_threads_are_decided_in_the_database(store: Store) -> None:
    """No write queue: every reservation is a transaction of its own, from its own thread and
    connection (`BEGIN IMMEDIATE` on SQLite, row locks on PostgreSQL), and each touches three limits
    (locked in id order: no deadlock)."""
    tenant = add_limit(store, 'tenant', 'org:acme', LIMIT)
    add_limit(store, 'agent', 'bot', '1000')
    for index in range(CALLS):
        add_limit(store, 'user', f'user:{index}', '1000')
    settings = Settings()
    start = threading.Barrier(CALLS)

    def one(index: int) -> limits.Decision:
        request = limits.Request(limits.Subject('org:acme', f'user:{index}', 'bot'), CALL_COST, 'USD')
        start.wait()
        with writer(store.engine).begin() as connection:
            return limits.reserve(connection, request, settings)

    with ThreadPoolExecutor(CALLS) as pool:
        decisions = list(pool.map(one, range(CALLS)))
    admitted = [d for d in decisions if not d.refused]
    assert len(admitted) == FITS and all(d.limits == 3 for d in decisions)
    assert all([r.limit.id for r in d.refusals] == [tenant.id] for d in decisions if d.refused)
    assert sum(r.amount for r in rows(store, SpendingReservation)) == LIMIT
    assert len(rows(store, SpendingOverrun)) == CALLS - FITS
    assert limits.consumption(store, tenant, tenant.created_at) == LIMIT
