"""The example agents of ``synapse serve --demo``, run for real on the demo model."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic_ai import (
    Agent,
    AgentRunResultEvent,
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    PartStartEvent,
)
from pydantic_ai.agent import AgentRunResult
from pydantic_ai.messages import AgentStreamEvent, ModelResponse, NativeToolCallPart, NativeToolReturnPart
from pydantic_ai.models.fallback import FallbackModel

import synapse_agents.demo as demo
from synapse_agents.demo import (
    DemoModel,
    deps_agent,
    fallback_agent,
    flaky_agent,
    ops_agent,
    orchestrator,
    research_agent,
    structured_agent,
    summariser,
    support_agent,
)
from synapse_agents.demo._fixtures import TICKETS, AccountDeps
from synapse_agents.demo.agents import TriageResult

pytestmark = pytest.mark.anyio

Event = AgentStreamEvent | AgentRunResultEvent[Any]
AGENTS: dict[str, Agent[Any, Any]] = {
    'support_agent': support_agent,
    'summariser': summariser,
    'structured_agent': structured_agent,
    'flaky_agent': flaky_agent,
    'orchestrator': orchestrator,
    'deps_agent': deps_agent,
    'fallback_agent': fallback_agent,
    'research_agent': research_agent,
    'ops_agent': ops_agent,
}


@pytest.fixture
def anyio_backend() -> str:
    return 'asyncio'


@pytest.fixture(autouse=True)
def fast_demo_models() -> Iterator[None]:
    """Every demo agent (except the fallback one, which keeps its FallbackModel) on a zero-delay model."""
    with (
        support_agent.override(model=DemoModel(chunk_delay=0)),
        summariser.override(model=DemoModel(chunk_delay=0)),
        structured_agent.override(model=DemoModel(chunk_delay=0)),
        flaky_agent.override(model=DemoModel(chunk_delay=0)),
        orchestrator.override(model=DemoModel(chunk_delay=0)),
        deps_agent.override(model=DemoModel(chunk_delay=0)),
        research_agent.override(model=DemoModel(chunk_delay=0)),
    ):
        yield


async def stream(
    agent: Agent[Any, Any], prompt: str, **kwargs: Any
) -> tuple[list[Event], AgentRunResult[Any]]:
    events: list[Event] = []
    async with agent.run_stream_events(prompt, **kwargs) as run:
        async for event in run:
            events.append(event)
    final = events[-1]
    assert isinstance(final, AgentRunResultEvent)
    return events, final.result


async def collect(events: list[Event], agent: Agent[Any, Any], prompt: str) -> None:
    """Append the events of a streamed run to ``events`` (kept when the run raises)."""
    async with agent.run_stream_events(prompt) as run:
        async for event in run:
            events.append(event)


def tool_calls(events: list[Event]) -> list[tuple[str, dict[str, Any]]]:
    return [(e.part.tool_name, e.part.args_as_dict()) for e in events if isinstance(e, FunctionToolCallEvent)]


# -- the catalogue ------------------------------------------------------------------------------


def test_exports_and_names() -> None:
    assert set(AGENTS) | {'DemoModel', 'DEMO_TRIGGERS', 'make_account_deps'} <= set(demo.__all__)
    for name, agent in AGENTS.items():
        assert getattr(demo, name) is agent
        assert agent.name == name
        assert agent.description
        model = agent.model
        assert isinstance(model, DemoModel | FallbackModel)
        for tool in agent._function_toolset.tools.values():  # pyright: ignore[reportPrivateUsage]
            assert tool.description, f'{name}.{tool.name} has no description'


def test_support_agent_has_three_tools() -> None:
    tools = support_agent._function_toolset.tools  # pyright: ignore[reportPrivateUsage]
    assert sorted(tools) == ['create_ticket', 'lookup_order', 'search_knowledge_base']


# -- each agent, run ------------------------------------------------------------------------------


async def test_support_agent_looks_orders_up() -> None:
    events, result = await stream(support_agent, 'Where is my order A-1001?')
    assert tool_calls(events) == [('lookup_order', {'order_id': 'A-1001'})]
    assert 'shipped' in result.output and 'DHL' in result.output


async def test_support_agent_searches_and_opens_tickets() -> None:
    events, result = await stream(support_agent, 'Search the knowledge base for "refund policy"')
    assert tool_calls(events) == [('search_knowledge_base', {'query': 'refund policy'})]
    assert '30 days' in result.output

    before = len(TICKETS)
    events, result = await stream(support_agent, 'Urgent: please open a ticket, my parcel arrived damaged')
    assert [name for name, _ in tool_calls(events)] == ['create_ticket']
    assert TICKETS[-1]['priority'] == 'high' and len(TICKETS) == before + 1
    assert TICKETS[-1]['ticket_id'] in result.output


async def test_support_agent_unknown_order_is_retried_not_looped() -> None:
    events, result = await stream(support_agent, 'where is order Z-9?')
    results = [e for e in events if isinstance(e, FunctionToolResultEvent)]
    assert len(results) == 1 and results[0].part.outcome == 'retried'
    assert 'Known orders: A-1001' in result.output
    assert result.usage.requests == 2


def configured_metadata(agent: Agent[Any, Any]) -> dict[str, Any]:
    # pydantic-ai 2.68 keeps an agent's configured metadata private; a run reports it as `result.metadata`.
    metadata = agent._metadata  # pyright: ignore[reportPrivateUsage]
    assert isinstance(metadata, dict)
    return metadata


async def test_summariser_is_stateless_and_summarises() -> None:
    assert configured_metadata(summariser)['synapse.stateless'] is True
    result = await summariser.run('The board met on Monday. It approved the budget. Lunch was late.')
    assert result.metadata is not None and result.metadata['synapse.stateless'] is True
    assert result.output.startswith('**Summary** (12 words in): The board met on Monday.')
    # Without history (as Synapse runs a stateless agent) it has nothing to quote.
    assert "don't have any earlier message" in (await summariser.run('what did I say before?')).output


async def test_structured_agent_returns_a_valid_triage_result() -> None:
    prompt = 'Hi, I am Jane Doe (jane@acme.io). I was charged twice for order A-1001, please fix it ASAP!'
    _, result = await stream(structured_agent, prompt)
    triage = result.output
    assert isinstance(triage, TriageResult)
    assert triage.category == 'billing' and triage.priority == 'high'
    assert triage.customer.name == 'Jane Doe' and triage.customer.email == 'jane@acme.io'
    assert triage.order_ids == ['A-1001']
    assert len(triage.actions) >= 1 and all(0 <= a.due_in_days <= 30 for a in triage.actions)
    assert TriageResult.model_validate(triage.model_dump()) == triage


async def test_flaky_agent_tool_raises() -> None:
    events: list[Event] = []
    with pytest.raises(RuntimeError, match='inventory service unreachable'):
        await collect(events, flaky_agent, 'Is KB-87 in stock?')
    assert tool_calls(events) == [('check_inventory', {'sku': 'KB-87'})]
    assert not any(isinstance(e, FunctionToolResultEvent) for e in events)


async def test_orchestrator_runs_the_summariser_inside_its_tool() -> None:
    text = 'Summarise: The launch slipped a week. QA found two blockers.'
    events, result = await stream(orchestrator, text)
    assert tool_calls(events) == [('delegate_to_summariser', {'text': text})]
    returned = next(e for e in events if isinstance(e, FunctionToolResultEvent))
    assert str(returned.part.content).startswith('**Summary**')
    assert 'The launch slipped a week.' in result.output
    # usage=ctx.usage: the nested run's request is counted in the parent's usage.
    own_requests = sum(1 for m in result.all_messages() if isinstance(m, ModelResponse))
    assert own_requests == 2
    assert result.usage.requests == 3


async def test_deps_agent_runs_with_deps_from_its_factory() -> None:
    target = configured_metadata(deps_agent)['synapse.deps_factory']
    assert target == 'synapse_agents.demo.agents:make_account_deps'
    module_name, _, attribute = target.partition(':')
    factory = getattr(importlib.import_module(module_name), attribute)
    assert not inspect.signature(factory).parameters
    deps = factory()
    assert isinstance(deps, AccountDeps)

    events, result = await stream(deps_agent, 'Show my open invoices', deps=deps)
    assert tool_calls(events) == [('list_invoices', {'status': 'open'})]
    assert 'INV-2024-003' in result.output and 'INV-2024-001' not in result.output
    first_request = result.all_messages()[0]
    assert 'Example Robotics GmbH' in (getattr(first_request, 'instructions', None) or '')

    result = await deps_agent.run('How many seats does my account use?', deps=deps)
    assert '7 of 10 used' in result.output
    assert result.metadata is not None
    assert result.metadata['synapse.deps_factory'] == target  # a string in metadata is harmless at run time


async def test_fallback_agent_falls_back_to_the_working_model() -> None:
    model = fallback_agent.model
    assert isinstance(model, FallbackModel)
    primary, backup = model.models
    assert isinstance(primary, DemoModel) and primary.fail_with is not None
    assert isinstance(backup, DemoModel) and backup.fail_with is None
    configured = await fallback_agent.run('hello')  # not streamed: no chunk delays
    fast_fallback = FallbackModel(DemoModel.always_failing(chunk_delay=0), DemoModel(chunk_delay=0))
    with fallback_agent.override(model=fast_fallback):
        _, streamed = await stream(fallback_agent, 'hello')
    for result in (configured, streamed):
        response = result.response
        assert response.model_name == 'synapse-demo'
        attempts = response.failed_attempts or []
        assert len(attempts) == 1
        assert attempts[0].model_name == 'synapse-demo-unavailable'
        assert attempts[0].error is not None and '503' in attempts[0].error
        assert 'Demo reply' in result.output


async def test_research_agent_searches_the_web_natively() -> None:
    events, result = await stream(research_agent, 'What are the latest pydantic-ai releases?')
    parts = [e.part for e in events if isinstance(e, PartStartEvent)]
    assert any(isinstance(p, NativeToolCallPart) and p.tool_name == 'web_search' for p in parts)
    assert any(isinstance(p, NativeToolReturnPart) and p.provider_name == 'synapse' for p in parts)
    assert 'offline demo results' in result.output
    assert not tool_calls(events)


async def test_every_agent_answers_a_plain_hello() -> None:
    for name, agent in AGENTS.items():
        deps = demo.make_account_deps() if agent is deps_agent else None
        if agent is flaky_agent:
            with pytest.raises(RuntimeError):
                await agent.run('hello', deps=deps)
            continue
        result = await agent.run('hello', deps=deps)
        assert result.output, name
        assert result.usage.input_tokens > 0 and result.usage.output_tokens > 0, name


async def test_ops_agent_pauses_for_approval_and_for_on_call() -> None:
    from pydantic_ai import DeferredToolRequests

    from synapse_agents.demo.approvals import RESTARTS

    before = len(RESTARTS)
    paused = await ops_agent.run('Restart the billing service and delete backup 7.')
    assert isinstance(paused.output, DeferredToolRequests)
    assert [(c.tool_name, c.args) for c in paused.output.approvals] == [
        ('restart_service', {'service': 'billing'}),
        ('delete_backup', {'backup_id': 7}),
    ]
    assert len(RESTARTS) == before
    asked = await ops_agent.run('Ask on-call whether the deploy can go ahead.')
    assert isinstance(asked.output, DeferredToolRequests)
    assert [c.tool_name for c in asked.output.calls] == ['ask_on_call']
