"""A tool's stored duration follows its own result event, however far the run ran ahead.

Two tools called in one response: the fast one finishes while the slow consumer (an HTTP client, a
busy event loop) is still on an earlier event. Its `ToolTimed` must not be handed out before its
result: the dashboard places a duration right after the tool's output.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import FunctionToolResultEvent, ModelMessage
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

from synapse_agents.chat.engine import ChatEngine
from synapse_agents.chat.request import TurnRequest
from synapse_agents.events import ToolTimed
from synapse_agents.store import Store
from synapse_agents.store.write_queue import WriteQueue
from synapse_agents.targets.target import TurnTarget

pytestmark = pytest.mark.anyio


async def _two_calls(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
    if len(messages) == 1:
        yield {
            0: DeltaToolCall(name='fast', json_args='{}', tool_call_id='call-fast'),
            1: DeltaToolCall(name='slow', json_args='{}', tool_call_id='call-slow'),
        }
        return
    yield 'both done'


def two_tools_agent() -> Agent[None, str]:
    agent = Agent(FunctionModel(stream_function=_two_calls, model_name='two-calls'), name='two_tools')

    @agent.tool_plain
    def fast() -> str:
        return 'fast'

    @agent.tool_plain
    async def slow() -> str:
        await asyncio.sleep(0.2)
        return 'slow'

    return agent


@pytest.fixture
def engine(store: Store) -> Iterator[ChatEngine]:
    writes = WriteQueue(store)
    yield ChatEngine(store, writes)
    writes.close()


async def test_each_duration_comes_right_after_its_own_result(engine: ChatEngine) -> None:
    target = TurnTarget.for_agent(two_tools_agent())
    prepared = await engine.prepare(TurnRequest(target, 'go'))
    events: list[Any] = []
    async for event in engine.stream(prepared):
        events.append(event)
        await asyncio.sleep(0.02)  # a slow reader: the run gets ahead of it
    await engine.writes.drain()
    timed = [(index, e) for index, e in enumerate(events) if isinstance(e, ToolTimed)]
    assert sorted(e.tool_call_id for _, e in timed) == ['call-fast', 'call-slow']
    for index, timing in timed:
        before = events[index - 1]
        assert isinstance(before, FunctionToolResultEvent), (timing.tool_call_id, type(before).__name__)
        assert before.tool_call_id == timing.tool_call_id
