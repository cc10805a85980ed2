"""What filled each prompt: the blocks of every model request of a turn, on every selected database.

A turn of an agent with `Rules()`, `Compression`, instructions and a tool, late in a long
conversation: its first request holds the rules, the instructions, the tool definitions, the stored
summary, the newest turns verbatim and the new message; its second also the turn's own tool call
and result. Each block's text is what the model was sent.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

from synapse_agents import Synapse
from synapse_agents.capabilities import Compression, Rules
from synapse_agents.compression.capability import SUMMARY_HEADING
from synapse_agents.compression.history import estimate_tokens
from synapse_agents.conversations.prompt_contexts import for_message
from synapse_agents.rules import book
from synapse_agents.store import Store

pytestmark = pytest.mark.anyio
WORDS = 'lorem ipsum dolor sit amet ' * 8


def agent_with_everything() -> tuple[Agent[Any, str], list[list[ModelMessage]]]:
    sent: list[list[ModelMessage]] = []

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        sent.append(list(messages))
        last = messages[-1]
        if isinstance(last, ModelRequest) and not any(isinstance(p, ToolReturnPart) for p in last.parts):
            yield {
                0: DeltaToolCall(name='look', json_args=json.dumps({'q': 'x'}), tool_call_id=f'c{len(sent)}')
            }
            return
        yield 'answer ' + WORDS

    summariser = FunctionModel(lambda m, i: ModelResponse(parts=[TextPart('THE SUMMARY')]), model_name='sum')
    agent: Agent[Any, str] = Agent(
        FunctionModel(stream_function=stream, model_name='chatter'),
        name='full',
        metadata={'synapse.debug': True},  # an app turn keeps the bodies (the texts) when asked
        instructions='You help with cases.',
        capabilities=[Rules(), Compression(budget_tokens=700, keep_last=2, model=summariser)],
    )

    @agent.tool_plain
    def look(q: str) -> str:
        """Look something up."""
        return 'found ' + WORDS

    return agent, sent


async def test_each_request_is_broken_down_by_source(database_url: str) -> None:
    agent, sent = agent_with_everything()
    async with Synapse(database_url=database_url, agents=[]) as syn:
        book.add(syn.runtime.store, book.RuleInput(tenant='firm:7', text='Never quote fees.'))
        conv = await syn.conversation(agent, tenant=('firm', '7'))
        for index in range(6):
            reply = await conv.send(f'question {index} {WORDS}')
    store = Store.open(database_url, Path('/nonexistent'))
    try:
        requests = for_message(store, reply.message_id)
    finally:
        store.close()
    assert [r['position'] for r in requests] == [0, 1]
    first, second = requests
    kinds = [b['kind'] for b in first['blocks']]
    assert kinds == ['rules', 'instructions', 'tools', 'summary', 'history', 'message']
    assert [b['kind'] for b in second['blocks']] == [*kinds, 'run']
    text = {b['kind']: b['text'] for b in first['blocks']}
    assert 'Never quote fees.' in text['rules'] and text['instructions'] == 'You help with cases.'
    assert '"name": "look"' in text['tools'] and 'Look something up.' in text['tools']
    assert text['summary'].startswith(SUMMARY_HEADING) and 'THE SUMMARY' in text['summary']
    assert 'question 4 ' in text['history'] and 'question 0 ' not in text['history']
    assert text['message'] == f'question 5 {WORDS}'
    assert 'found ' in {b['kind']: b['text'] for b in second['blocks']}['run']
    # Estimates, said to be, near the capability's own count of the messages sent.
    message_blocks = sum(
        b['tokens'] for b in first['blocks'] if b['kind'] in ('summary', 'history', 'message')
    )
    assert first['estimated'] is True and abs(message_blocks - estimate_tokens(sent[-2])) <= 12
    assert first['estimated_tokens'] == sum(b['tokens'] for b in first['blocks'])
    assert first['model'] == 'chatter' and isinstance(first['input_tokens'], int)


async def test_without_bodies_the_blocks_keep_their_counts_only(database_url: str) -> None:
    agent, _ = agent_with_everything()
    agent2 = Agent(agent.model, name='quiet', metadata={'synapse.debug': False})
    async with Synapse(database_url=database_url, agents=[]) as syn:
        reply = await (await syn.conversation(agent2)).send('hello')
        loud = await (
            await syn.conversation(Agent(agent.model, name='loud', metadata={'synapse.debug': True}))
        ).send('hi')
    store = Store.open(database_url, Path('/nonexistent'))
    try:
        quiet = for_message(store, reply.message_id)
        loud_rows = for_message(store, loud.message_id)
    finally:
        store.close()
    assert quiet and all(r['blocks'] and all('text' not in b for b in r['blocks']) for r in quiet)
    assert loud_rows and all('text' in b for r in loud_rows for b in r['blocks'])
