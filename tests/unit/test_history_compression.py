"""`Compression`: what the model is sent in a long conversation, on every selected database.

A FunctionModel records the messages of each request; a second one is the summariser and records
what it is asked. Together they prove the budget, the newest turns kept verbatim, tool calls kept
with their returns, the stored summary reused and then extended (a handful of summary calls for a
long conversation, not one per turn), a failure that sends the history as it was and is not retried
every turn, the ledger rows (module `compression`), the plugins' hook, and the stored conversation
left whole.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from sqlalchemy import select

from spending_models import OUTPUT_TOKENS, PRICED, add_limit, add_price
from synapse_agents import Synapse
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.capabilities import Compression
from synapse_agents.compression.capability import SUMMARY_HEADING
from synapse_agents.compression.history import estimate_tokens
from synapse_agents.compression.tables import HistorySummary
from synapse_agents.conversations.tables import Message
from synapse_agents.errors import CompressionUnavailable
from synapse_agents.plugins.hookspecs import hookimpl
from synapse_agents.store import Store
from synapse_agents.traces import read

pytestmark = pytest.mark.anyio
FIRM = ('firm', '7')
WORDS = 'lorem ipsum dolor sit amet ' * 8  # about 54 tokens a message


class Summariser:
    """The summary model: answers `SUMMARY <n>` and records each prompt; can be told to fail."""

    def __init__(self) -> None:
        self.prompts: list[str] = []
        self.fail = False

    def model(self) -> FunctionModel:
        def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            prompt = messages[-1].parts[-1]
            assert isinstance(prompt, UserPromptPart) and isinstance(prompt.content, str)
            self.prompts.append(prompt.content)
            if self.fail:
                raise RuntimeError('the summariser is down')
            return ModelResponse(parts=[TextPart(f'SUMMARY {len(self.prompts)}')])

        return FunctionModel(answer, model_name='summariser')


def chat_agent(
    summariser: Summariser, *, tools: bool = False, **options: Any
) -> tuple[Agent[Any, str], list[list[ModelMessage]]]:
    """An agent with `Compression` whose model records what each request is sent."""
    sent: list[list[ModelMessage]] = []

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        sent.append(list(messages))
        last = messages[-1]
        if tools and not any(isinstance(p, ToolReturnPart) for p in last.parts):
            yield {
                0: DeltaToolCall(name='look', json_args=json.dumps({'q': 'x'}), tool_call_id=f'c{len(sent)}')
            }
            return
        yield 'answer ' + WORDS

    agent: Agent[Any, str] = Agent(
        FunctionModel(stream_function=stream, model_name='chatter'),
        name='long',
        capabilities=[
            Compression(model=summariser.model(), **{'budget_tokens': 600, 'keep_last': 2, **options})
        ],
    )
    if tools:

        @agent.tool_plain
        def look(q: str) -> str:
            return 'found ' + WORDS

    return agent, sent


def prompts_of(messages: list[ModelMessage]) -> list[str]:
    return [
        p.content
        for m in messages
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, UserPromptPart) and isinstance(p.content, str)
    ]


def stored(database_url: str, model: Any, conversation_id: str) -> list[Any]:
    """The conversation's rows of `model`, by primary key (ids are time-ordered: the order written)."""
    store = Store.open(database_url, Path('/nonexistent'))
    try:
        with store.read() as session:
            query = select(model).where(model.conversation_id == conversation_id)
            return list(session.scalars(query.order_by(*model.__table__.primary_key.columns)))
    finally:
        store.close()


async def talk(agent: Agent[Any, str], database_url: str, turns: int, **scope: Any) -> str:
    async with Synapse(database_url=database_url, agents=[]) as syn:
        conv = await syn.conversation(agent, tenant=FIRM, **scope)
        for index in range(turns):
            await conv.send(f'question {index} {WORDS}')
        assert conv.id is not None
        return conv.id


async def test_the_budget_keeps_the_newest_turns_and_reuses_then_extends_the_summary(
    database_url: str,
) -> None:
    summariser = Summariser()
    agent, sent = chat_agent(summariser)
    conversation_id = await talk(agent, database_url, 14)

    # 14 turns, each about 120 tokens: a handful of summary calls, not one per turn.
    assert 2 <= len(summariser.prompts) <= 5, summariser.prompts
    # Each summary after the first extends the one before it with the newer turns.
    for number, prompt in enumerate(summariser.prompts[1:], start=1):
        assert prompt.startswith(f'Previous summary:\nSUMMARY {number}\n\nNewer messages:\nUser: question')
    assert summariser.prompts[0].startswith('Messages:\nUser: question 0 ')
    for index, messages in enumerate(sent):
        questions = [p for p in prompts_of(messages) if p.startswith('question')]
        # The newest two turns (this one included) are always there, verbatim and in order.
        assert questions[-1].startswith(f'question {index} ')
        if index >= 1:
            assert questions[-2].startswith(f'question {index - 1} ')
        summaries = [p for p in prompts_of(messages) if p.startswith(SUMMARY_HEADING)]
        if summaries:
            assert len(summaries) == 1 and estimate_tokens(messages) <= 600
            assert not any(q.startswith('question 0 ') for q in questions)  # summarised, not repeated
    assert any(SUMMARY_HEADING in p for p in prompts_of(sent[-1]))

    # The stored conversation keeps every original message; the summary is stored beside it.
    rows = stored(database_url, Message, conversation_id)
    assert sum(1 for r in rows if r.role == 'user') == 14
    (summary,) = stored(database_url, HistorySummary, conversation_id)
    assert summary.summary == f'SUMMARY {len(summariser.prompts)}'
    assert summary.summary_calls == len(summariser.prompts)
    # Each compression left a notice in the conversation, with its summary (the playground's marker).
    notices = [m for m in stored(database_url, Message, conversation_id) if m.role == 'notice']
    assert [n.meta['summary'] for n in notices] == [
        f'SUMMARY {i}' for i in range(1, len(summariser.prompts) + 1)
    ]
    # Every summary call is a ledger row of the conversation, under module `compression`.
    calls = stored(database_url, LlmCall, conversation_id)
    assert sorted(c.module for c in calls).count('compression') == len(summariser.prompts)
    assert sum(1 for c in calls if c.module == 'chat') == 14


async def test_a_short_conversation_is_sent_whole(database_url: str) -> None:
    summariser = Summariser()
    agent, sent = chat_agent(summariser, budget_tokens=100_000)
    await talk(agent, database_url, 4)
    assert summariser.prompts == []
    assert [len(prompts_of(m)) for m in sent] == [1, 2, 3, 4]


async def test_tool_calls_stay_with_their_returns(database_url: str) -> None:
    summariser = Summariser()
    agent, sent = chat_agent(summariser, tools=True)
    await talk(agent, database_url, 8)
    assert summariser.prompts, 'the conversation should have been compressed'
    assert 'Assistant called look({"q":"x"})' in summariser.prompts[0]
    for messages in sent:
        calls = {
            p.tool_call_id
            for m in messages
            if isinstance(m, ModelResponse)
            for p in m.parts
            if isinstance(p, ToolCallPart)
        }
        returns = {
            p.tool_call_id
            for m in messages
            if isinstance(m, ModelRequest)
            for p in m.parts
            if isinstance(p, ToolReturnPart)
        }
        assert returns <= calls and calls - returns <= {
            p.tool_call_id for p in messages[-1].parts if isinstance(p, ToolCallPart)
        }


async def test_a_failed_summary_sends_the_history_as_it_was_and_is_not_retried_every_turn(
    database_url: str,
) -> None:
    summariser = Summariser()
    summariser.fail = True
    agent, sent = chat_agent(summariser)
    async with Synapse(database_url=database_url, agents=[]) as syn:
        conv = await syn.conversation(agent, tenant=FIRM)
        for index in range(9):
            await conv.send(f'question {index} {WORDS}')
    failed_at = len(summariser.prompts)
    assert 1 <= failed_at <= 3, summariser.prompts  # 9 turns over the budget: not 6 attempts
    assert all(SUMMARY_HEADING not in p for m in sent for p in prompts_of(m))
    assert [len(prompts_of(m)) for m in sent] == list(range(1, 10))  # every turn sent whole
    assert conv.id is not None
    notices = [m for m in stored(database_url, Message, conv.id) if m.role == 'notice']
    assert [n.meta['kind'] for n in notices] == ['compression_failed'] * failed_at
    assert 'the summariser is down' in notices[0].content
    (row,) = stored(database_url, HistorySummary, conv.id)
    assert (
        row.summary is None
        and row.failures == failed_at
        and 'the summariser is down' in (row.last_error or '')
    )


async def test_the_plugins_hear_of_each_compression(database_url: str) -> None:
    heard: list[Any] = []

    class Listener:
        @hookimpl
        def conversation_compressed(self, runtime: Any, compressed: Any) -> None:
            heard.append(compressed)

    summariser = Summariser()
    agent, _ = chat_agent(summariser)
    listener = Listener()
    async with Synapse(database_url=database_url, agents=[]) as syn:
        syn.runtime.plugins.register(listener)  # the process's manager: taken off again below
        try:
            conv = await syn.conversation(agent, tenant=FIRM, actor=('user', '1'))
            for index in range(6):
                await conv.send(f'question {index} {WORDS}')
        finally:
            syn.runtime.plugins.unregister(listener)
    assert heard and len(heard) == len(summariser.prompts)
    assert heard[0].conversation_id == conv.id and heard[0].scope['tenant'] == ['firm', '7']
    assert heard[-1].summary == f'SUMMARY {len(summariser.prompts)}'


async def test_outside_synapse_compression_needs_a_store_and_a_conversation(database_url: str) -> None:
    summariser = Summariser()

    def plain(capability: Compression) -> Agent[Any, str]:
        model = FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart('ok ' + WORDS)]))
        return Agent(model, capabilities=[capability])

    bare = plain(Compression(budget_tokens=10, keep_last=1, model=summariser.model()))
    history = (await bare.run('first')).all_messages()  # one message: nothing to compress yet
    with pytest.raises(CompressionUnavailable, match=r'Compression\.at'):
        await bare.run('second', message_history=history)
    compression = Compression.at(database_url, budget_tokens=10, keep_last=1, model=summariser.model())
    conversation = '01a240d1-9a3d-72d6-882d-707a30e36d51'
    try:
        own = plain(compression)
        first = await own.run('first ' + WORDS, conversation_id=conversation)
        await own.run('second', message_history=first.all_messages(), conversation_id=conversation)
    finally:
        compression.close()
    assert summariser.prompts == [f'Messages:\nUser: first {WORDS}\nAssistant: ok {WORDS}']


def test_the_model_and_the_budget_are_required() -> None:
    with pytest.raises(TypeError):
        Compression(budget_tokens=100)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match='budget_tokens'):
        Compression(budget_tokens=0, model='test')
    with pytest.raises(ValueError, match='keep_last'):
        Compression(budget_tokens=100, keep_last=0, model='test')


async def test_the_summary_call_is_a_run_in_the_turns_trace(database_url: str) -> None:
    summariser = Summariser()
    agent, _ = chat_agent(summariser)
    runs: list[str] = []
    async with Synapse(database_url=database_url, agents=[]) as syn:
        conv = await syn.conversation(agent, tenant=FIRM)
        for index in range(8):
            runs.append((await conv.send(f'question {index} {WORDS}')).run_id)
    assert summariser.prompts
    store = Store.open(database_url, Path('/nonexistent'))
    try:
        trees = [read.tree(store, run_id) for run_id in runs]
    finally:
        store.close()
    nested = [
        child
        for tree in trees
        if tree is not None
        for child in tree['children']
        if child['kind'] == 'run' and child['name'] == 'compression'
    ]
    assert len(nested) == len(summariser.prompts)
    assert all(run['children'] and run['children'][0]['kind'] == 'model' for run in nested)


async def test_summary_calls_are_held_to_the_spending_limits(database_url: str) -> None:
    def priced(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart('tok ' * OUTPUT_TOKENS)], model_name=PRICED)

    agent, sent = chat_agent(Summariser())
    capability = Compression(budget_tokens=600, keep_last=2, model=FunctionModel(priced, model_name=PRICED))
    agent = Agent(agent.model, name='long', capabilities=[capability])
    async with Synapse(database_url=database_url, agents=[]) as syn:
        store = syn.runtime.store
        add_price(store, max_output_tokens=OUTPUT_TOKENS)
        add_limit(store, 'agent', 'compression', '0.05')  # one summary call costs 0.1
        conv = await syn.conversation(agent, tenant=FIRM)
        for index in range(8):
            await conv.send(f'question {index} {WORDS}')
    assert conv.id is not None
    notices = [m for m in stored(database_url, Message, conv.id) if m.role == 'notice']
    assert notices and {n.meta['kind'] for n in notices} == {'compression_failed'}
    assert 'SpendingLimitExceeded' in notices[0].content
    assert all(SUMMARY_HEADING not in p for m in sent for p in prompts_of(m))
    assert [c.module for c in stored(database_url, LlmCall, conv.id)].count('compression') == 0
