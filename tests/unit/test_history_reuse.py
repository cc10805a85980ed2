"""A conversation's history is read from the store at every turn, and validated messages are reused
only for a row whose stored text is unchanged: another process's turn, or a row changed in the
store, is in the next turn's history (SQLite and PostgreSQL)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelResponse,
    TextPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from sqlalchemy import select, update

from synapse_agents import Synapse
from synapse_agents.chat.replay import load_history
from synapse_agents.conversations.tables import Message
from synapse_agents.store import Store

pytestmark = pytest.mark.anyio


def echo_agent() -> tuple[Agent[Any, str], list[list[str]]]:
    """Answers with the prompts it was sent; the log of what each request saw."""
    seen: list[list[str]] = []

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        seen.append(
            [
                str(part.content)
                for message in messages
                for part in message.parts
                if isinstance(part, UserPromptPart)
            ]
        )
        yield 'heard: ' + ' | '.join(seen[-1])

    return Agent(FunctionModel(stream_function=stream, model_name='echo-model'), name='echo'), seen


async def test_a_turn_written_by_another_synapse_between_two_sends_is_in_the_next(database_url: str) -> None:
    agent, seen = echo_agent()
    async with Synapse(database_url=database_url, agents=[]) as mine:
        conv = await mine.conversation(agent, tenant=('firm', '7'))
        first = await conv.send('one')
        await conv.send('two')
        async with Synapse(database_url=database_url, agents=[]) as other:
            theirs = await other.conversation(agent, id=first.conversation_id)
            await theirs.send('three')
        await conv.send('four')
    assert seen[-1] == ['one', 'two', 'three', 'four']


async def test_a_stored_row_that_changed_is_read_again(database_url: str, tmp_path: Path) -> None:
    agent, _ = echo_agent()
    async with Synapse(database_url=database_url, agents=[]) as syn:
        reply = await (await syn.conversation(agent)).send('one')
    store = Store.open(database_url, Path('/nonexistent'))
    try:
        before = load_history(store, reply.conversation_id, tmp_path)
        assert [p.content for m in before for p in m.parts if isinstance(p, TextPart)] == ['heard: one']
        changed = [*before[:-1], ModelResponse(parts=[TextPart('changed')])]
        with store.write() as session:
            session.execute(
                update(Message)
                .where(Message.id == reply.message_id)
                .values(model_messages=ModelMessagesTypeAdapter.dump_python(changed, mode='json'))
            )
        after = load_history(store, reply.conversation_id, tmp_path)
        assert [p.content for m in after for p in m.parts if isinstance(p, TextPart)] == ['changed']
        with store.read() as session:
            assert session.scalar(select(Message.status).where(Message.id == reply.message_id)) == 'complete'
    finally:
        store.close()
