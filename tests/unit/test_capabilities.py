"""`synapse_agents.capabilities`: Synapse's rules on an app's own pydantic-ai agent, built from public
objects only (an open `Synapse`, or a database URL), on every selected database."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage
from sqlalchemy import select

from spending_models import CALL_COST, OUTPUT_TOKENS, PRICED, add_limit, add_price
from synapse_agents import Synapse
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.capabilities import Spending
from synapse_agents.errors import SpendingLimitExceeded
from synapse_agents.store import Store

pytestmark = pytest.mark.anyio


def plain_agent(spending: Spending) -> Agent[None, str]:
    """A pydantic-ai agent of the app's, on a `FunctionModel` whose every call costs `CALL_COST`
    (`OUTPUT_TOKENS` at the registry's price for `PRICED`, and no more asked for)."""

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(
            parts=[TextPart('tok ' * OUTPUT_TOKENS)], usage=RequestUsage(output_tokens=OUTPUT_TOKENS)
        )

    model = FunctionModel(answer, model_name=PRICED)
    return Agent(model, name='reports', model_settings={'max_tokens': OUTPUT_TOKENS}, capabilities=[spending])


def ledger(store: Store) -> list[Any]:
    with store.read() as session:
        return list(session.scalars(select(LlmCall)))


async def test_spending_of_a_synapse_enforces_a_limit_and_writes_the_ledger(
    store: Store, database_url: str, tmp_path: Path
) -> None:
    add_price(store)
    add_limit(store, 'tenant', 'org:acme', CALL_COST * 3 / 2)  # room for one call, not two
    async with Synapse(database_url=database_url, home=tmp_path / 'home', discover=False) as syn:
        agent = plain_agent(Spending.of(syn, tenant='org:acme', user='user:42'))
        result = await agent.run('First')
        assert result.output.startswith('tok')
        with pytest.raises(SpendingLimitExceeded) as refused:
            await agent.run('Second')
    assert refused.value.scope_id == 'org:acme' and refused.value.consumed == CALL_COST
    (row,) = ledger(store)
    assert (row.module, row.agent_key, row.tenant, row.user) == ('app', 'reports', 'org:acme', 'user:42')
    assert (row.cost, row.price_source, row.output_tokens) == (CALL_COST, 'registry', 100)


async def test_spending_at_a_database_url_needs_no_synapse(store: Store, database_url: str) -> None:
    add_price(store)
    add_limit(store, 'agent', 'reports', Decimal('0.05'))  # less than one call
    limited, unlimited = Spending.at(database_url), Spending.at(database_url, agent='unlimited')
    try:
        with pytest.raises(SpendingLimitExceeded):
            await plain_agent(limited).run('Hi')
        await plain_agent(unlimited).run('Hi')  # its ledger key is not the limited one
    finally:
        limited.close()
        unlimited.close()
    (row,) = ledger(store)
    assert (row.agent_key, row.cost) == ('unlimited', CALL_COST)
