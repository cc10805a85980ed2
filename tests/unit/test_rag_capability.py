"""`Retrieval(sources=[...])`: a search tool over the named sources only, within the run's tenant, whose
results carry citations; the prompt breakdown counts what it returned as its own block."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
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
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from sqlalchemy import select

from synapse_agents import Synapse
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.capabilities import Retrieval
from synapse_agents.chat.prompt_context import PromptSnapshot, breakdown
from synapse_agents.errors import RetrievalUnavailable
from synapse_agents.retrieval import sources
from synapse_agents.retrieval.capability import SEARCH_TOOL
from synapse_agents.retrieval.indexer import index_source

pytestmark = [pytest.mark.anyio, pytest.mark.vectors]

FIRM, OTHER = ('firm', '7'), ('firm', '8')
HANDBOOK = {
    'leave.md': '# Leave\n\nEvery employee gets twenty-five days of paid holiday a year.\n',
    'expenses.md': '# Expenses\n\nTaxi receipts are refunded within a month of the trip.\n',
}
SECRET = {'plans.md': '# Plans\n\nThe paid holiday policy changes next year: thirty days.\n'}


def model_of(answer: Callable[[list[ModelMessage], AgentInfo], ModelResponse]) -> FunctionModel:
    """`answer` as a model, streamed too (Synapse's turns stream)."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        for index, part in enumerate(answer(messages, info).parts):
            if isinstance(part, TextPart):
                yield part.content
            elif isinstance(part, ToolCallPart):
                yield {index: DeltaToolCall(name=part.tool_name, json_args=part.args_as_json_str())}

    return FunctionModel(answer, stream_function=stream, model_name='recorder')


def searching_agent(returns: list[Any], tools_seen: list[list[str]], **options: Any) -> Agent[Any, str]:
    """Calls `search_documents` with the prompt as its query, then answers `done`."""

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        tools_seen.append([t.name for t in info.function_tools])
        last = messages[-1]
        for part in last.parts:
            if isinstance(part, ToolReturnPart):
                returns.append(part.content)
                return ModelResponse(parts=[TextPart('done')])
        prompt = str(last.parts[-1].content)  # type: ignore[union-attr]
        return ModelResponse(parts=[ToolCallPart(SEARCH_TOOL, json.dumps({'query': prompt, 'k': 3}))])

    return Agent(model_of(answer), name='reader', capabilities=[Retrieval(**options)])


def folder(root: Path, name: str, files: dict[str, str]) -> Path:
    path = root / name
    path.mkdir()
    for file, text in files.items():
        (path / file).write_text(text)
    return path


async def indexed(syn: Synapse, slug: str, path: Path, tenant: str | None = None) -> None:
    runtime = syn.runtime
    row = sources.create(
        runtime.store,
        runtime.settings,
        runtime.plugins,
        slug=slug,
        name=slug.title(),
        kind='folder',
        path=str(path),
        tenant=tenant,
    )
    outcome = await index_source(runtime.store, runtime.settings, runtime.plugins, row.id)
    assert outcome.status == 'done'


async def test_the_tool_searches_only_the_named_sources_and_cites_each_chunk(
    database_url: str, tmp_path: Path
) -> None:
    returns: list[Any] = []
    tools_seen: list[list[str]] = []
    async with Synapse(database_url=database_url, agents=[]) as syn:
        await indexed(syn, 'handbook', folder(tmp_path, 'handbook', HANDBOOK))
        await indexed(syn, 'plans', folder(tmp_path, 'plans', SECRET))
        agent = searching_agent(returns, tools_seen, sources=['handbook'])
        conv = await syn.conversation(agent, tenant=FIRM)
        await conv.send('How many days of paid holiday do we get?')
        with syn.runtime.store.read() as session:
            rag_rows = list(session.scalars(select(LlmCall).where(LlmCall.module == 'rag')))
    assert tools_seen[0] == [SEARCH_TOOL]
    results = returns[0]['results']
    assert {r['source'] for r in results} == {'handbook'}  # `plans` matches better but is not named
    top = results[0]
    assert top['file'] == 'leave.md' and 'twenty-five days' in top['text']
    assert set(top) >= {'chunk_id', 'source_name', 'page', 'heading', 'chunk_index', 'chunk_total', 'score'}
    assert top['heading'] == 'Leave' and (top['chunk_index'], top['chunk_total']) == (0, 1)
    assert results == sorted(results, key=lambda r: -r['score'])
    assert any(row.tenant == 'firm:7' for row in rag_rows)  # the query's embedding is on the books


async def test_a_source_of_another_tenant_is_out_of_reach(database_url: str, tmp_path: Path) -> None:
    returns: list[Any] = []
    async with Synapse(database_url=database_url, agents=[]) as syn:
        await indexed(syn, 'firm7', folder(tmp_path, 'firm7', HANDBOOK), tenant='firm:7')
        agent = searching_agent(returns, [], sources=['firm7'])
        await (await syn.conversation(agent, tenant=OTHER)).send('paid holiday')
        await (await syn.conversation(agent, tenant=FIRM)).send('paid holiday')
    assert isinstance(returns[0], str) and returns[0].startswith('Not searched')
    assert returns[1]['results'] and all(r['source'] == 'firm7' for r in returns[1]['results'])


async def test_outside_synapse_it_needs_a_store_and_its_options_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match='sources'):
        Retrieval(sources=[])
    with pytest.raises(ValueError, match='sources'):
        Retrieval(sources=['ok', 3])  # type: ignore[list-item]
    with pytest.raises(ValueError, match='k must'):
        Retrieval(sources=['ok'], k=0)
    agent = searching_agent([], [], sources=['handbook'])
    with pytest.raises(RetrievalUnavailable):
        await agent.run('anything')


def test_the_breakdown_counts_retrieved_text_as_its_own_block() -> None:
    found = json.dumps({'results': [{'text': 'Every employee gets twenty-five days. ' * 20}]})
    messages: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart('How many days?')], run_id='r1'),
        ModelResponse(parts=[ToolCallPart(SEARCH_TOOL, '{"query": "days"}', tool_call_id='c1')], run_id='r1'),
        ModelRequest(
            parts=[
                ToolReturnPart(SEARCH_TOOL, found, tool_call_id='c1'),
                ToolReturnPart('clock', '10:00', tool_call_id='c2'),
            ],
            run_id='r1',
        ),
    ]
    snapshot = PromptSnapshot(
        messages=messages, parameters=ModelRequestParameters(), model='m', provider='p', run_id='r1'
    )
    blocks = {b['kind']: b for b in breakdown(snapshot, None)['blocks']}
    assert blocks['retrieved']['label'] == 'Retrieved documents'
    assert 'twenty-five days' in blocks['retrieved']['text']
    assert blocks['retrieved']['tokens'] > blocks['run']['tokens'] > 0
    assert 'twenty-five' not in blocks['run']['text'] and '10:00' in blocks['run']['text']
