"""The ledger is the books: deleting a conversation (one, `clear`, `synapse prune`, the daily
auto-prune, the sweep of rows whose conversation is gone) removes its history, never its
`llm_calls` rows, so a tenant's consumption, `/api/spend` and its limits are unchanged, on every
selected database. The model boundary is a priced `FunctionModel` (tests/spending_models.py)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic_ai import Agent
from sqlalchemy import update
from typer.testing import CliRunner

from chat_helpers import collect, failure
from spending_models import CALL_COST, add_limit, add_price, priced_agent, rows
from synapse_agents.accounting.limits import consumption
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.chat.engine import ChatEngine
from synapse_agents.chat.request import TurnRequest
from synapse_agents.cli import app as cli_app
from synapse_agents.conversations.tables import Conversation
from synapse_agents.runtime.maintenance import prune as auto_prune
from synapse_agents.scope import Scope
from synapse_agents.settings import Settings
from synapse_agents.store import Store
from synapse_agents.store.write_queue import WriteQueue
from synapse_agents.targets.target import TurnTarget

pytestmark = pytest.mark.anyio

ACME = Scope(tenant=('org', 'acme'), actor=('user', '1'))
TURNS = 2
LIMIT = CALL_COST * TURNS + CALL_COST / 2
"""Room for `TURNS` calls, not one more."""


@pytest.fixture
def engine(store: Store) -> Iterator[ChatEngine]:
    writes = WriteQueue(store)
    yield ChatEngine(store, writes, Settings())
    writes.close()


async def turn(engine: ChatEngine, agent: Agent[Any, Any]) -> list[Any]:
    target = TurnTarget.for_agent(agent, slug='priced')
    prepared = await engine.prepare(TurnRequest(target, 'Hi', scope=ACME, origin='app'))
    events = await collect(engine.stream(prepared))
    await engine.writes.drain()
    return events


def spend(client: TestClient) -> dict[str, Any]:
    response = client.get('/api/spend', params={'tenant': 'org:acme'})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def age(store: Store, days: int) -> None:
    """Every conversation was last updated `days` days ago."""
    with store.write() as session:
        session.execute(update(Conversation).values(updated_at=datetime.now(UTC) - timedelta(days=days)))


def remove(how: str, store: Store, client: TestClient) -> None:
    """Remove every conversation the way `how` names."""
    if how == 'delete':
        for conversation in rows(store, Conversation):
            assert client.delete(f'/api/conversations/{conversation.id}').status_code == 200
        # The sweep of rows whose conversation is gone leaves the ledger too.
        assert client.post('/api/conversations/clear').status_code == 200
    elif how == 'clear':
        answer = client.post('/api/conversations/clear')
        assert answer.status_code == 200 and answer.json()['deleted']['llm_calls'] == 0
    elif how == 'prune':
        age(store, 10)
        result = CliRunner().invoke(cli_app, ['prune', '--days', '7', '--yes'])
        assert result.exit_code == 0, result.output
        assert 'Removed 2 conversations' in result.output and 'ledger rows are kept' in result.output
    else:
        age(store, 10)
        assert auto_prune(store, 7) == TURNS


@pytest.mark.parametrize('how', ['delete', 'clear', 'prune', 'auto-prune'])
async def test_removing_conversations_keeps_their_ledger_and_the_limit_holds(
    how: str, engine: ChatEngine, store: Store, client: TestClient
) -> None:
    add_price(store)
    limit = add_limit(store, 'tenant', 'org:acme', LIMIT)
    for _ in range(TURNS):
        assert failure(await turn(engine, priced_agent())) is None
    ledger = [(row.id, row.conversation_id, row.cost) for row in rows(store, LlmCall)]
    assert len(ledger) == TURNS and all(conversation for _, conversation, _ in ledger)
    now = datetime.now(UTC)
    spent = consumption(store, limit, now, engine.settings)
    before = spend(client)
    assert spent == CALL_COST * TURNS and Decimal(before['totals']['cost']) == spent

    remove(how, store, client)

    assert rows(store, Conversation) == []
    # Every row is still there, naming the conversation it was made in.
    assert [(row.id, row.conversation_id, row.cost) for row in rows(store, LlmCall)] == ledger
    assert store.counts()['llm_calls'] == TURNS
    assert consumption(store, limit, now, engine.settings) == spent
    assert spend(client) == before
    refused = failure(await turn(engine, priced_agent()))
    assert refused is not None and refused.exception_class == 'SpendingLimitExceeded'
    assert len(rows(store, LlmCall)) == TURNS
