"""Two real `synapse serve` processes on one PostgreSQL database, driven over HTTP at once: 50 chats
against a spending limit that fits 10 spend at most the limit, however the two processes race.

The project's agent streams 100 one-token words as `acme-1`, which the registry prices at 1000 per
million output tokens, and asks for at most 100 tokens: each call costs, and is estimated at,
exactly 0.1.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from chat_helpers import decode
from spending_models import CALL_COST, add_limit, add_price, rows
from synapse_agents.accounting.tables import LlmCall, SpendingOverrun, SpendingReservation
from synapse_agents.store import Store, upgrade

pytestmark = [pytest.mark.slow, pytest.mark.postgresql]

SLUG = 'agents.priced.priced'
CALLS = 50
FITS = 10

AGENT_MODULE = """
import asyncio

from pydantic_ai import Agent
from pydantic_ai.models.function import FunctionModel


async def stream(messages, info):
    await asyncio.sleep(0.1)  # long enough for the other calls' reservations to be live
    for _ in range(100):
        yield 'tok '


model = FunctionModel(stream_function=stream, model_name='acme-1')
priced = Agent(model, name='priced', model_settings={'max_tokens': 100})
"""


@pytest.fixture
def project(isolated_env: Path) -> Path:
    (isolated_env / 'agents').mkdir()
    (isolated_env / 'agents' / 'priced.py').write_text(AGENT_MODULE)
    return isolated_env


def chat(url: str, index: int, start: threading.Barrier) -> list[dict[str, Any]]:
    start.wait()
    response = httpx.post(f'{url}/api/agents/{SLUG}/chat', data={'message': f'Hi {index}'}, timeout=60)
    assert response.status_code == 200, response.text
    return decode(response.text)


def test_two_servers_at_once_spend_at_most_the_limit(
    live_server: Any, project: Path, empty_postgres_database: str
) -> None:
    store = Store.open(empty_postgres_database, project / 'unused')
    upgrade(store.engine)
    try:
        add_price(store)
        limit = add_limit(store, 'agent', SLUG, CALL_COST * FITS)
        env = {'SYNAPSE_DATABASE_URL': empty_postgres_database}
        servers = [live_server(['agents'], env=env), live_server(['agents'], env=env)]
        start = threading.Barrier(CALLS)
        with ThreadPoolExecutor(CALLS) as pool:
            streams = list(pool.map(lambda i: chat(servers[i % 2].url, i, start), range(CALLS)))

        errors = [next((c for c in s if c['type'] == 'error'), None) for s in streams]
        refused = [e for e in errors if e is not None]
        assert all(
            e['errorText'].startswith('SpendingLimitExceeded: Spending limit reached') for e in refused
        ), refused
        assert (CALLS - len(refused), len(refused)) == (FITS, CALLS - FITS)
        # Each server had 25 of the calls and at most 10 fit in all: both refused some.
        assert {servers[i % 2].url for i, e in enumerate(errors) if e is not None} == {s.url for s in servers}
        with store.read() as session:
            total = session.scalar(select(func.sum(LlmCall.cost)))
        assert total == CALL_COST * FITS and len(rows(store, LlmCall)) == FITS
        overruns = rows(store, SpendingOverrun)
        assert len(overruns) == CALLS - FITS and {o.limit_id for o in overruns} == {limit.id}
        assert all(o.consumed + o.estimated > limit.amount and o.overrun > Decimal(0) for o in overruns)
        assert rows(store, SpendingReservation) == []
    finally:
        store.close()
