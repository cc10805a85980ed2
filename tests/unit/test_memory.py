"""Memory: writing, recall by meaning and by recency, `Memory()` in the prompt and its tools.

On SQLite (sqlite-vec), PostgreSQL without pgvector (exact in Python) and PostgreSQL with pgvector
(`vectors` marker), with the offline embedder; fakes only at the model boundary (FunctionModel, an
embedding model that fails).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.embeddings import Embedder
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from sqlalchemy import select

from embedding_fakes import FailingEmbeddings
from synapse_agents import Synapse
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.capabilities import Memory
from synapse_agents.errors import MemoryUnavailable
from synapse_agents.memory import book
from synapse_agents.memory.capability import PERSONAL_HEADING, SHARED_HEADING
from synapse_agents.memory.recall import Recall
from synapse_agents.memory.tables import MemoryVector
from synapse_agents.scope import METADATA_KEY, Scope
from synapse_agents.settings import Settings
from synapse_agents.store import Store

pytestmark = [pytest.mark.anyio, pytest.mark.vectors]

FIRM, OTHER = ('firm', '7'), ('firm', '8')
MARIA, JUAN = ('user', 'maria'), ('user', 'juan')
CASE = ('case', '1')


def model_of(answer: Callable[[list[ModelMessage], AgentInfo], ModelResponse]) -> FunctionModel:
    """`answer` as a model, streamed too (Synapse's turns stream)."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        for index, part in enumerate(answer(messages, info).parts):
            if isinstance(part, TextPart):
                yield part.content
            elif isinstance(part, ToolCallPart):
                yield {index: DeltaToolCall(name=part.tool_name, json_args=part.args_as_json_str())}

    return FunctionModel(answer, stream_function=stream, model_name='recorder')


def opened(database_url: str) -> Store:
    return Store.open(database_url, Path('/nonexistent'))


def memory(content: str, tenant: str = 'firm:7', **axes: Any) -> book.MemoryInput:
    return book.MemoryInput(tenant=tenant, content=content, **axes)


async def test_search_ranks_by_meaning_within_the_scope_and_says_each_axis(
    database_url: str, dialect: str
) -> None:
    store = opened(database_url)
    recall = Recall.of(store, Settings())
    assert (
        recall.index.kind == {'sqlite': 'sqlite-vec', 'postgresql': 'exact', 'pgvector': 'pgvector'}[dialect]
    )
    await recall.remember(
        [
            memory('Invoices are sent to clients every two weeks.'),
            memory('The Lisbon office closes at five in the afternoon.'),
            memory('María wants answers as bullet points.', applies_to='user:maria'),
            memory('Juan wants long detailed answers.', applies_to='user:juan'),
            memory('Invoices are sent monthly.', tenant='firm:8'),
        ]
    )
    answer = await recall.search(Scope(tenant=FIRM, actor=MARIA), 'How often do we bill customers?', 10)
    assert answer.ranked_by == 'similarity'
    assert answer.embedder == 'local:all-MiniLM-L6-v2-int8'
    contents = [f.memory.content for f in answer.results]
    assert contents[0] == 'Invoices are sent to clients every two weeks.'
    assert 'Invoices are sent monthly.' not in contents  # another tenant's
    assert 'Juan wants long detailed answers.' not in contents  # another person's
    assert {f.memory.content: f.applies_to_everyone for f in answer.results} == {
        'Invoices are sent to clients every two weeks.': True,
        'The Lisbon office closes at five in the afternoon.': True,
        'María wants answers as bullet points.': False,
    }
    scores = [f.score for f in answer.results]
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]
    rows = _ledger(store)
    assert {r.module for r in rows} == {'embed'}
    assert all(r.cost == 0 and r.price_source == 'local' and r.input_tokens > 0 for r in rows)
    assert {r.tenant for r in rows} == {'firm:7', 'firm:8'} or {r.tenant for r in rows} == {'firm:7'}
    store.close()


async def test_the_same_thing_is_not_stored_twice_on_the_same_axes(database_url: str) -> None:
    store = opened(database_url)
    recall = Recall.of(store, Settings())
    first = await recall.remember([memory('Invoices are sent fortnightly.')])
    again = await recall.remember(
        [
            memory('invoices are sent   FORTNIGHTLY'),  # the same words
            memory('Invoices are sent fortnightly!'),
            memory('Invoices are sent fortnightly.', subject='case:1'),  # another subject: kept
            memory('Invoices are sent fortnightly.', tenant='firm:8'),  # another tenant: kept
        ]
    )
    assert len(first) == 1
    assert [(m.tenant, m.subject) for m in again] == [('firm:7', 'case:1'), ('firm:8', None)]
    store.close()


async def test_without_an_embedder_or_when_it_fails_search_ranks_by_recency_and_nothing_is_lost(
    database_url: str,
) -> None:
    store = opened(database_url)
    plain = Recall.of(store, Settings(embedder='off'))
    assert plain.embedder is None
    await plain.remember([memory('Older fact about invoices.'), memory('Newer fact about offices.')])
    down = Recall(store, Settings(), Embedder(FailingEmbeddings()), plain.index)
    kept = await down.remember([memory('Newest fact, written while the embedder was down.')])
    assert len(kept) == 1
    answer = await down.search(Scope(tenant=FIRM), 'invoices', 5)
    assert answer.ranked_by == 'recency'
    assert [f.memory.content for f in answer.results] == [
        'Newest fact, written while the embedder was down.',
        'Newer fact about offices.',
        'Older fact about invoices.',
    ]
    assert all(f.score is None for f in answer.results)
    with store.read() as session:
        assert session.scalars(select(MemoryVector)).all() == []
    # The offline embedder on: the unembedded memories still come, after the ranked ones.
    local = Recall.of(store, Settings())
    await local.remember([memory('Invoices are paid by bank transfer.')])
    ranked = await local.search(Scope(tenant=FIRM), 'how are invoices paid', 5)
    assert ranked.ranked_by == 'similarity'
    assert ranked.results[0].memory.content == 'Invoices are paid by bank transfer.'
    assert ranked.results[0].score is not None
    assert [f.score for f in ranked.results[1:]] == [None, None, None]
    store.close()


async def test_a_changed_content_is_embedded_again(database_url: str) -> None:
    store = opened(database_url)
    recall = Recall.of(store, Settings())
    (row,) = await recall.remember([memory('The office closes at six.')])
    await recall.remember([memory('Clients pay by card.')])
    await recall.change(row.id, {'content': 'Payments are made by bank transfer.'})
    answer = await recall.search(Scope(tenant=FIRM), 'bank transfer payments', 1)
    assert answer.results[0].memory.id == row.id
    assert answer.results[0].score is not None and answer.results[0].score > 0.5
    store.close()


def recording_agent(**options: Any) -> tuple[Agent[Any, str], list[str], list[Any]]:
    """An agent with `Memory()`: its model records each request's instructions, and first calls the
    tool its prompt names (`call save_memory {...}` / `call search_memories {...}`)."""
    seen: list[str] = []
    returns: list[Any] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info.instructions or '')
        last = messages[-1]
        for part in last.parts:
            if isinstance(part, ToolReturnPart):
                returns.append(part.content)
                return ModelResponse(parts=[TextPart('done')])
        prompt = str(last.parts[-1].content)  # type: ignore[union-attr]
        if prompt.startswith('call '):
            _, tool, args = prompt.split(' ', 2)
            return ModelResponse(parts=[ToolCallPart(tool, args)])
        return ModelResponse(parts=[TextPart('ok')])

    agent: Agent[Any, str] = Agent(
        model_of(answer),
        name='remembering',
        instructions='You help with cases.',
        capabilities=[Memory(**options)],
    )
    return agent, seen, returns


async def test_memory_block_follows_the_instructions_shared_then_personal(database_url: str) -> None:
    async with Synapse(database_url=database_url, agents=[]) as syn:
        recall = Recall.of(syn.runtime.store, syn.runtime.settings)
        await recall.remember([memory('We bill fortnightly.')])
        await recall.remember([memory('María likes bullet points.', applies_to='user:maria')])
        await recall.remember([memory('About case 1 only.', subject='case:1')])
        await recall.remember([memory('Juan only.', applies_to='user:juan')])
        await recall.remember([memory('Another firm.', tenant='firm:8')])
        agent, seen, _ = recording_agent()
        conv = await syn.conversation(agent, tenant=FIRM, actor=MARIA, subject=CASE)
        await conv.send('Hello')
        await (await syn.conversation(agent)).send('no tenant: no block')
    assert seen[0] == (
        'You help with cases.\n\n'
        f'{SHARED_HEADING}\n- We bill fortnightly.\n- About case 1 only.\n\n'
        f'{PERSONAL_HEADING}\n- María likes bullet points.'
    )
    assert seen[1] == 'You help with cases.'


async def test_save_memory_never_turns_a_personal_memory_into_a_shared_one(database_url: str) -> None:
    async with Synapse(database_url=database_url, agents=[]) as syn:
        store = syn.runtime.store
        agent, _, returns = recording_agent()
        nobody = await syn.conversation(agent, tenant=FIRM)
        await nobody.send('call save_memory {"content": "I like tea.", "about_this_person": true}')
        maria = await syn.conversation(agent, tenant=FIRM, actor=MARIA, subject=CASE)
        await maria.send('call save_memory {"content": "I like tea.", "about_this_person": true}')
        await maria.send('call save_memory {"content": "The court sits on Mondays."}')
        book.set_sharing(store, 'user:maria', False)
        await maria.send('call save_memory {"content": "The judge is strict."}')
        await maria.send('call search_memories {"query": "what does she drink"}')
        rows, _ = book.listing(store, book.MemoryFilters())
    assert returns[0].startswith('Not saved: nobody is at the other end')
    assert returns[1] == 'Saved (it applies only to the person you are talking to).'
    assert returns[2] == 'Saved (it applies to everyone here).'
    assert returns[3].startswith('Not saved: the person you are talking to chose not to share')
    found = returns[4]
    assert found[0]['memory'] == 'I like tea.'
    assert found[0]['applies_to'] == 'only the person you are talking to'
    assert {(r.content, r.applies_to, r.subject, r.source, r.agent_key) for r in rows} == {
        ('I like tea.', 'user:maria', 'case:1', 'tool', 'remembering'),
        ('The court sits on Mondays.', None, 'case:1', 'tool', 'remembering'),
    }
    assert all(r.conversation_id == maria.id for r in rows)


async def test_tools_can_be_left_out_and_outside_synapse_memory_needs_a_store(database_url: str) -> None:
    agent, _, _ = recording_agent(tools=False)
    assert agent.root_capability is not None
    plain, _, _ = recording_agent()
    with pytest.raises(MemoryUnavailable, match=r'Memory\.of\(synapse\)'):
        await plain.run('hi', metadata={METADATA_KEY: Scope(tenant=FIRM).as_json()})
    memory_at = Memory.at(database_url)
    try:
        store = memory_at.store
        assert store is not None
        await Recall.of(store, Settings()).remember([memory('Outside Synapse.')])
        outside: Agent[Any, str] = Agent(FunctionModel(_echo_instructions), capabilities=[memory_at])
        result = await outside.run('hi', metadata={METADATA_KEY: Scope(tenant=FIRM).as_json()})
        assert 'Outside Synapse.' in result.output
    finally:
        memory_at.close()
    async with Synapse(database_url=database_url, agents=[]) as syn:
        names: list[str] = []

        def tool_names(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            names.extend(t.name for t in info.function_tools)
            return ModelResponse(parts=[TextPart('ok')])

        for tools, expected in ((False, []), (True, ['save_memory', 'search_memories'])):
            names.clear()
            probe: Agent[Any, str] = Agent(
                model_of(tool_names), name='probe', capabilities=[Memory(tools=tools)]
            )
            await (await syn.conversation(probe, tenant=FIRM)).send('hi')
            assert sorted(names) == expected


def _echo_instructions(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart(info.instructions or '')])


def _ledger(store: Store) -> list[LlmCall]:
    with store.read() as session:
        return list(session.scalars(select(LlmCall)))


async def test_an_embedder_that_cannot_be_made_leaves_search_to_recency(database_url: str) -> None:
    store = opened(database_url)
    recall = Recall.of(store, Settings(embedder='nowhere:no-such-model'))
    assert recall.embedder is None and recall.embedder_problem is not None
    assert "embedder 'nowhere:no-such-model' cannot be used" in recall.embedder_problem
    await recall.remember([memory('Kept all the same.')])
    answer = await recall.search(Scope(tenant=FIRM), 'kept', 3)
    assert answer.ranked_by == 'recency' and [f.memory.content for f in answer.results] == [
        'Kept all the same.'
    ]
    store.close()
