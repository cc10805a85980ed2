"""Money on a reply and on its stored answer is the ledger's cost in the reference currency, the
currency of the conversation's totals, not pydantic-ai's USD figure (on every selected database)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, FunctionModel
from sqlalchemy import select

from chat_helpers import decode
from synapse_agents import Synapse
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.chat.engine import ChatEngine
from synapse_agents.chat.request import TurnRequest
from synapse_agents.conversations.tables import Conversation, Message
from synapse_agents.settings import Settings, load_settings
from synapse_agents.store import Store
from synapse_agents.store.write_queue import WriteQueue
from synapse_agents.targets.target import TurnTarget
from synapse_agents.web.vercel import encode_turn

pytestmark = pytest.mark.anyio

EUR_PER_USD = Decimal('0.5')


def usd_priced_agent() -> Agent[None, str]:
    """A `FunctionModel` named like an OpenAI model, so pydantic-ai prices its calls in USD."""

    async def answer(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield 'a priced answer'

    return Agent(FunctionModel(stream_function=answer, model_name='gpt-4o'), name='usd')


def stored(database_url: str, home: Path, model: Any, conversation_id: str) -> list[Any]:
    store = Store.open(database_url, home)
    try:
        with store.read() as session:
            return list(session.scalars(select(model).where(model.conversation_id == conversation_id)))
    finally:
        store.close()


async def test_reply_and_message_costs_are_the_ledgers_reference_cost(
    database_url: str, tmp_path: Path
) -> None:
    overrides = {'database_url': database_url, 'home': tmp_path / 'home'}
    loaded = load_settings(overrides, cwd=tmp_path)
    loaded.settings.reference_currency = 'EUR'
    loaded.settings.currency_rates = {'USD': EUR_PER_USD}
    async with Synapse(settings=loaded, discover=False) as syn:
        conv = await syn.conversation(usd_priced_agent())
        replies = [await conv.send('One'), await conv.send('Two')]
    assert conv.id is not None
    calls = stored(database_url, tmp_path, LlmCall, conv.id)
    answers = [m for m in stored(database_url, tmp_path, Message, conv.id) if m.role == 'assistant']
    for reply in replies:
        usd = reply.usage.cost
        assert usd is not None and usd > 0
        (call,) = [c for c in calls if c.run_id == reply.run_id]
        assert (call.cost, call.currency) == (usd, 'USD')
        assert (call.cost_reference, call.reference_currency) == (usd * EUR_PER_USD, 'EUR')
        assert reply.cost == call.cost_reference
        (message,) = [m for m in answers if m.id == reply.message_id]
        assert message.cost == reply.cost
    (row,) = [c for c in stored_conversations(database_url, tmp_path) if c.id == conv.id]
    assert row.cost == sum(reply.cost for reply in replies if reply.cost is not None)


def stored_conversations(database_url: str, home: Path) -> list[Conversation]:
    store = Store.open(database_url, home)
    try:
        with store.read() as session:
            return list(session.scalars(select(Conversation)))
    finally:
        store.close()


async def test_the_stream_names_the_reference_currency_of_its_cost(store: Store) -> None:
    writes = WriteQueue(store)
    engine = ChatEngine(
        store, writes, Settings(reference_currency='EUR', currency_rates={'USD': EUR_PER_USD})
    )
    try:
        target = TurnTarget.for_agent(usd_priced_agent(), slug='usd')
        prepared = await engine.prepare(TurnRequest(target, 'Hi', origin='app'))
        sse = ''.join([chunk async for chunk in encode_turn(engine.stream(prepared))])
        await writes.drain()
    finally:
        writes.close()
    metadata = [c['messageMetadata'] for c in decode(sse) if 'messageMetadata' in c]
    assert {m['currency'] for m in metadata} == {'EUR'}
    with store.read() as session:
        (call,) = session.scalars(select(LlmCall))
    assert call.reference_currency == 'EUR' and call.cost_reference is not None
    assert metadata[-1]['cost'] == float(call.cost_reference)
