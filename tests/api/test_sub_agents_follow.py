"""Sub-agents follow the turn's model: a turn that runs on another model than the agent's own runs
the agents its tools call on that model too, unless an agent opts out (`synapse.follow_model`), on
every selected database; the trace says which model each nested run used. A turn on the agent's
own model leaves its sub-agents on theirs, and the override never leaks into another turn."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from sqlalchemy import select

from chat_helpers import collect, failure, finished
from synapse_agents.chat.request import TurnRequest
from synapse_agents.chat.sub_agents import followers
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.targets.target import TurnTarget
from synapse_agents.traces.tables import TraceRun


def _paid(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    raise RuntimeError('the paid model was called')


async def _paid_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    raise RuntimeError('the paid model was called')
    yield ''  # pragma: no cover - makes this an async generator


def _own(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart('own model answered')])


async def _own_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    yield 'own model answered'


def _calls_every_tool_once(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1 and info.function_tools:
        return ModelResponse(parts=[ToolCallPart(tool.name, {'q': 'x'}) for tool in info.function_tools])
    return ModelResponse(parts=[TextPart('done')])


async def _calls_every_tool_once_stream(
    messages: list[ModelMessage], info: AgentInfo
) -> AsyncIterator[str | DeltaToolCalls]:
    if len(messages) == 1 and info.function_tools:
        yield {
            index: DeltaToolCall(name=tool.name, json_args='{"q": "x"}', tool_call_id=f'call_{index}')
            for index, tool in enumerate(info.function_tools)
        }
        return
    yield 'done'


def playground_model(name: str) -> FunctionModel:
    """A model like the playground's: it calls whatever tools the agent it runs for has, once."""
    return FunctionModel(
        _calls_every_tool_once, stream_function=_calls_every_tool_once_stream, model_name=name
    )


def _agents(own: Any = None) -> tuple[Agent[None, str], Agent[None, str], Agent[None, str]]:
    helper: Agent[None, str] = Agent(
        FunctionModel(_paid, stream_function=_paid_stream, model_name='paid'), name='helper'
    )
    keeper: Agent[None, str] = Agent(
        FunctionModel(_own, stream_function=_own_stream, model_name='keeper-own'),
        name='keeper',
        metadata={'synapse.follow_model': False},
    )
    orchestrator: Agent[None, str] = Agent(own or playground_model('orchestrator-own'), name='orchestrator')

    @orchestrator.tool
    async def ask_helper(ctx: RunContext[None], q: str) -> str:
        return (await helper.run(q)).output

    @orchestrator.tool
    async def ask_keeper(ctx: RunContext[None], q: str) -> str:
        return (await keeper.run(q)).output

    return orchestrator, helper, keeper


def _turn(client: TestClient, context: SynapseContext, agents: list[Any], model: Any) -> tuple[Any, Any]:
    orchestrator = agents[0]
    engine = context.chat_service().engine

    async def go() -> tuple[Any, Any]:
        prepared = await engine.prepare(
            TurnRequest(TurnTarget.for_agent(orchestrator), 'go', sub_agents=agents)
        )
        if model is not None:
            prepared.model = model
        events = await collect(engine.stream(prepared))
        return finished(events), failure(events)

    assert client.portal is not None
    outcome: tuple[Any, Any] = client.portal.call(go)
    return outcome


def _models(context: SynapseContext, root: str) -> dict[str, str | None]:
    deadline = time.monotonic() + 5
    while True:
        with context.store.read() as session:
            rows = session.scalars(select(TraceRun).where(TraceRun.root_run_id == root)).all()
            found = {row.agent_name or '': row.model for row in rows}
        if len(found) == 3 or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def test_sub_agents_run_on_the_turns_model_unless_they_opt_out(
    client: TestClient, context: SynapseContext
) -> None:
    orchestrator, helper, keeper = _agents()
    done, failed = _turn(client, context, [orchestrator, helper, keeper], playground_model('chosen'))
    assert failed is None, failed
    assert _models(context, done.run_id) == {
        'orchestrator': 'chosen',
        'helper': 'chosen',
        'keeper': 'keeper-own',
    }
    # The override held for that turn only: the agent itself is untouched.
    with pytest.raises(RuntimeError, match='the paid model was called'):
        helper.run_sync('outside any turn')


def test_on_the_agents_own_model_sub_agents_keep_theirs(client: TestClient, context: SynapseContext) -> None:
    orchestrator, helper, keeper = _agents(playground_model('own'))
    _done, failed = _turn(client, context, [orchestrator, helper, keeper], None)
    assert failed is not None and 'the paid model was called' in failed.message


def test_followers_leave_out_the_agent_itself_opt_outs_and_repeats() -> None:
    orchestrator, helper, keeper = _agents()
    assert followers([orchestrator, helper, keeper, helper, 'not an agent'], orchestrator) == [helper]
