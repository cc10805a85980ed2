"""A priced turn: its cost is exact in the store and a JSON number in the stream and the API."""

from __future__ import annotations

import json
from decimal import Decimal

from fastapi.testclient import TestClient
from sqlalchemy import select

from chat_helpers import agent_catalog, decode
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.conversations.tables import Conversation
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.store import Store


def test_a_priced_turn_sends_its_exact_cost_as_a_number(
    client: TestClient, context: SynapseContext, store: Store
) -> None:
    context.catalog = agent_catalog()
    response = client.post('/api/agents/chat_agents.priced/chat', data={'message': 'hi'})
    assert response.status_code == 200
    final = decode(response.text)[-2]['messageMetadata']
    conversation_id = final['conversation_id']
    with store.read() as session:
        ledger = session.scalars(select(LlmCall.cost).where(LlmCall.conversation_id == conversation_id)).one()
        conversation = session.get(Conversation, conversation_id)
    assert isinstance(ledger, Decimal) and ledger > 0
    assert conversation is not None and conversation.cost == ledger
    # The stream's metadata: a number (never a string) whose digits are the stored decimal's.
    assert isinstance(final['cost'], float) and Decimal(repr(final['cost'])) == ledger
    thread = client.get(f'/api/conversations/{conversation_id}')
    answer = thread.json()['messages'][1]
    assert isinstance(answer['cost'], float) and Decimal(repr(answer['cost'])) == ledger
    assert Decimal(repr(thread.json()['totals']['cost'])) == ledger
    listed = client.get('/api/conversations').json()['conversations'][0]
    assert isinstance(listed['cost'], float) and Decimal(repr(listed['cost'])) == ledger
    assert f'"cost":{json.dumps(float(ledger))}' in thread.text.replace(' ', '')
