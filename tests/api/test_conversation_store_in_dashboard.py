"""A conversation saved through `SqlConversationStore` is in the dashboard: its history lists it and
its thread shows the user's messages, the answers and the tool calls, as for a playground turn."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic_ai import Agent, Conversation
from pydantic_ai.models.test import TestModel

from synapse_agents.conversations.log_mirror import mirror_id
from synapse_agents.conversations.sql_store import SqlConversationStore
from synapse_agents.store import Store

pytestmark = pytest.mark.anyio


def weather_agent() -> Agent[None, str]:
    agent = Agent(TestModel())

    @agent.tool_plain
    def weather(city: str) -> str:
        return f'sunny in {city}'

    return agent


async def turn(conversations: SqlConversationStore, conversation_id: str, prompt: str) -> str:
    conversation = await conversations.load(conversation_id, scope='user-7')
    result = await weather_agent().run(
        prompt, conversation=conversation or Conversation(conversation_id=conversation_id)
    )
    await conversations.save(result, scope='user-7')
    return result.output


def thread(client: TestClient, conversation_id: str) -> dict[str, Any]:
    response = client.get(f'/api/conversations/{conversation_id}')
    assert response.status_code == 200, response.text
    shown: dict[str, Any] = response.json()
    return shown


async def test_a_saved_conversation_is_listed_and_its_thread_shows_every_turn(
    client: TestClient, store: Store
) -> None:
    conversations = SqlConversationStore(store)
    first = await turn(conversations, 'app-thread-1', 'What is the weather in Paris?')
    second = await turn(conversations, 'app-thread-1', 'And tomorrow?')

    listed = client.get('/api/conversations').json()
    rows = [row for row in listed['conversations'] if row['id'] == mirror_id('app-thread-1')]
    assert len(rows) == 1
    assert rows[0]['title'] == 'What is the weather in Paris?'
    assert (
        rows[0]['message_count'] == 4 and rows[0]['tool_count'] == 1
    )  # the second answer reuses the first result

    shown = thread(client, mirror_id('app-thread-1'))
    messages = shown['messages']
    assert [m['role'] for m in messages] == ['user', 'assistant', 'user', 'assistant']
    assert [m['content'] for m in messages[::2]] == ['What is the weather in Paris?', 'And tomorrow?']
    assert [m['content'] for m in messages[1::2]] == [first, second]
    tools = [part['tool'] for m in messages[1::2] for part in m['parts'] if part['type'] == 'tool']
    assert [(tool['name'], tool['status']) for tool in tools] == [('weather', 'success')]
    assert all(tool['result'] == 'sunny in a' for tool in tools)


async def test_deleting_the_saved_conversation_deletes_it_from_the_dashboard(
    client: TestClient, store: Store
) -> None:
    conversations = SqlConversationStore(store)
    await turn(conversations, 'app-thread-2', 'Weather in Oslo?')
    assert client.get(f'/api/conversations/{mirror_id("app-thread-2")}').status_code == 200
    await conversations.delete('app-thread-2')
    assert client.get(f'/api/conversations/{mirror_id("app-thread-2")}').status_code == 404
