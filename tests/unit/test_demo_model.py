"""The offline demo model, exercised through real agent runs (streamed and not)."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field
from pydantic_ai import (
    Agent,
    AgentRunResultEvent,
    FinalResultEvent,
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    ModelRetry,
    NativeOutput,
    PartDeltaEvent,
    PartStartEvent,
    PromptedOutput,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ThinkingPartDelta,
    ToolCallPart,
)
from pydantic_ai.agent import AgentRunResult
from pydantic_ai.capabilities import WebSearch
from pydantic_ai.messages import (
    AgentStreamEvent,
    ModelMessage,
    ModelResponse,
    NativeToolCallPart,
    NativeToolReturnPart,
)

from synapse_agents.demo import DemoModel

pytestmark = pytest.mark.anyio

Event = AgentStreamEvent | AgentRunResultEvent[Any]


@pytest.fixture
def anyio_backend() -> str:
    return 'asyncio'


def fast() -> DemoModel:
    return DemoModel(chunk_delay=0)


async def stream(
    agent: Agent[Any, Any], prompt: str, **kwargs: Any
) -> tuple[list[Event], AgentRunResult[Any]]:
    """Run ``agent`` through ``run_stream_events`` and return every event and the result."""
    events: list[Event] = []
    async with agent.run_stream_events(prompt, **kwargs) as run:
        async for event in run:
            events.append(event)
    final = events[-1]
    assert isinstance(final, AgentRunResultEvent)
    return events, final.result


def responses(messages: Sequence[ModelMessage]) -> list[ModelResponse]:
    return [message for message in messages if isinstance(message, ModelResponse)]


def text_deltas(events: list[Event]) -> list[str]:
    return [
        e.delta.content_delta
        for e in events
        if isinstance(e, PartDeltaEvent) and isinstance(e.delta, TextPartDelta)
    ]


# -- streaming, thinking, names, usage ---------------------------------------------------------


async def test_streams_text_in_several_deltas_after_thinking() -> None:
    agent = Agent(fast(), instructions='Be helpful.')
    events, result = await stream(agent, 'Hello there, demo model!')

    starts = [e for e in events if isinstance(e, PartStartEvent)]
    assert isinstance(starts[0].part, ThinkingPart)
    assert isinstance(starts[1].part, TextPart)
    thinking_deltas = [
        e for e in events if isinstance(e, PartDeltaEvent) and isinstance(e.delta, ThinkingPartDelta)
    ]
    assert len(thinking_deltas) >= 2
    deltas = text_deltas(events)
    assert len(deltas) >= 5
    assert starts[1].part.content + ''.join(deltas) == result.output
    assert 'Hello there, demo model!' in result.output
    assert any(isinstance(e, FinalResultEvent) for e in events)
    thinking = result.response.thinking
    assert thinking is not None and 'Hello there' in thinking


async def test_thinking_can_be_turned_off() -> None:
    _, result = await stream(Agent(DemoModel(chunk_delay=0, thinking=False)), 'hi')
    assert not any(isinstance(part, ThinkingPart) for part in result.response.parts)
    _, result = await stream(Agent(fast(), model_settings={'thinking': False}), 'hi')
    assert not any(isinstance(part, ThinkingPart) for part in result.response.parts)


async def test_chunk_delay_paces_the_stream() -> None:
    agent = Agent(DemoModel(chunk_delay=0.01, words_per_chunk=20))
    started = time.perf_counter()
    events, _ = await stream(agent, 'hi')
    elapsed = time.perf_counter() - started
    deltas = [e for e in events if isinstance(e, PartStartEvent | PartDeltaEvent)]
    assert elapsed >= 0.01 * len(deltas) * 0.9


async def test_words_per_chunk_controls_delta_size() -> None:
    coarse, _ = await stream(Agent(DemoModel(chunk_delay=0, words_per_chunk=50)), 'hi')
    fine, _ = await stream(Agent(DemoModel(chunk_delay=0, words_per_chunk=1)), 'hi')
    assert len(text_deltas(fine)) > 3 * len(text_deltas(coarse))


async def test_names_itself_a_demo_model_everywhere() -> None:
    model = fast()
    assert (model.model_name, model.system, model.model_id) == (
        'synapse-demo',
        'synapse',
        'synapse:synapse-demo',
    )
    assert repr(model) == "DemoModel(model_name='synapse-demo', system='synapse', chunk_delay=0)"
    assert str(model) == repr(model)
    _, streamed = await stream(Agent(model), 'hi')
    ran = await Agent(model).run('hi')
    for response in (streamed.response, ran.response):
        assert (response.model_name, response.provider_name) == ('synapse-demo', 'synapse')
        assert response.provider_response_id is not None and response.provider_response_id.startswith('demo-')
        assert response.finish_reason == 'stop'


async def test_cost_is_unknown_not_zero() -> None:
    _, result = await stream(Agent(fast()), 'hi')
    assert result.response.usage.cost is None
    assert result.usage.cost is None
    with pytest.raises(LookupError):
        result.response.cost()


async def test_usage_counts_four_characters_per_token() -> None:
    prompt = 'x' * 398
    agent = Agent(fast(), instructions='ab')  # 400 characters in all: 100 tokens
    _, streamed = await stream(agent, prompt)
    ran = await agent.run(prompt)
    for result in (streamed, ran):
        usage = result.response.usage
        assert usage.input_tokens == 100
        generated = sum(
            len(p.content) for p in result.response.parts if isinstance(p, TextPart | ThinkingPart)
        )
        assert usage.output_tokens == math.ceil(generated / 4)
        assert result.usage.requests == 1


async def test_usage_is_never_zero_and_counts_tool_returns() -> None:
    agent = Agent(fast())

    @agent.tool_plain
    def fetch_report(topic: str) -> str:
        """Fetch the long report about a topic."""
        return 'r' * 4000

    _, result = await stream(agent, '')
    assert result.usage.input_tokens >= 1 and result.usage.output_tokens >= 1
    _, result = await stream(agent, 'fetch the report about cats')
    first, second = (r.usage for r in responses(result.all_messages()))
    assert second.input_tokens >= first.input_tokens + 1000
    assert first.output_tokens > 0 and second.output_tokens > 0


# -- function tools ------------------------------------------------------------------------------


class Address(BaseModel):
    city: str
    postcode: str | None = None


class Shipment(BaseModel):
    order_id: str
    quantity: int = Field(ge=1, le=10)
    express: bool
    tags: list[str]
    address: Address
    mode: Literal['air', 'sea', 'road']


async def test_calls_matching_tool_with_schema_valid_args_then_answers_from_results() -> None:
    agent = Agent(fast())
    received: list[dict[str, Any]] = []

    @agent.tool_plain
    def schedule_shipment(shipment: Shipment, notify_email: str, note: str | None = None) -> str:
        """Schedule the shipment of an order."""
        received.append({'shipment': shipment, 'email': notify_email})
        return f'shipment of {shipment.order_id} booked, reference SHP-77'

    @agent.tool_plain
    def weather_forecast(city: str) -> str:
        """The weather in a city."""
        raise AssertionError('must not be called')

    prompt = 'Please schedule shipment of order A-1001, 3 units by air, to jane@example.com'
    events, result = await stream(agent, prompt)

    calls = [e for e in events if isinstance(e, FunctionToolCallEvent)]
    assert [c.part.tool_name for c in calls] == ['schedule_shipment']
    assert calls[0].args_valid is True
    shipment = received[0]['shipment']
    assert shipment.order_id == 'A-1001'
    assert shipment.quantity == 3
    assert shipment.mode == 'air'
    assert received[0]['email'] == 'jane@example.com'
    returned = [e for e in events if isinstance(e, FunctionToolResultEvent)]
    assert len(returned) == 1
    assert 'SHP-77' in result.output and 'schedule_shipment' in result.output
    assert result.usage.requests == 2
    first = responses(result.all_messages())[0]
    assert first.finish_reason == 'tool_call'
    assert isinstance(first.parts[0], ThinkingPart) and 'schedule_shipment' in first.parts[0].content


async def test_several_matching_tools_are_called_in_one_response() -> None:
    agent = Agent(fast())

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return f'sunny in {city}'

    @agent.tool_plain
    def get_time(city: str) -> str:
        """Current local time for a city."""
        return '09:41'

    @agent.tool_plain
    def convert_currency(amount: float, currency: Literal['EUR', 'USD']) -> float:
        """Convert money between currencies."""
        return amount

    events, result = await stream(agent, 'What is the weather and the time in "Lisbon"?')
    calls = [e.part for e in events if isinstance(e, FunctionToolCallEvent)]
    assert sorted(c.tool_name for c in calls) == ['get_time', 'get_weather']
    assert all(c.args_as_dict() == {'city': 'Lisbon'} for c in calls)
    first = responses(result.all_messages())[0]
    assert len([p for p in first.parts if isinstance(p, ToolCallPart)]) == 2
    assert 'sunny in Lisbon' in result.output and '09:41' in result.output


async def test_single_tool_is_called_and_use_all_tools_calls_every_tool() -> None:
    agent = Agent(fast())
    called: list[str] = []

    @agent.tool_plain
    def alpha(value: int) -> int:
        """Alpha."""
        called.append('alpha')
        return value

    @agent.tool_plain
    def beta(flag: bool, count: int = 2) -> str:
        """Beta."""
        called.append('beta')
        return 'ok'

    _, result = await stream(agent, 'hello')
    assert called == [] and 'alpha' in result.output  # no match among several tools: lists them
    await stream(agent, 'use all tools please')
    assert sorted(called) == ['alpha', 'beta']

    solo = Agent(fast())
    solo.tool_plain(alpha)
    called.clear()
    await stream(solo, 'anything at all')
    assert called == ['alpha']


async def test_never_loops_when_a_tool_keeps_asking_for_a_retry() -> None:
    agent = Agent(fast(), retries=5)
    attempts: list[str] = []

    @agent.tool_plain
    def lookup_order(order_id: str) -> str:
        """Look an order up."""
        attempts.append(order_id)
        raise ModelRetry(f'no order {order_id}')

    _, result = await stream(agent, 'where is order Q-42?')
    assert attempts == ['Q-42']
    assert result.usage.requests == 2
    assert 'no order Q-42' in result.output and 'did not succeed' in result.output


# -- structured output ----------------------------------------------------------------------------


class Contact(BaseModel):
    name: str
    email: str | None
    phone: str | None = None
    company: Address
    tags: list[str] = Field(min_length=1)
    score: float = Field(ge=0, le=1)


@pytest.mark.parametrize('mode', ['tool', 'native', 'prompted'])
async def test_structured_output_validates_and_uses_the_prompt(mode: str) -> None:
    output_type: Any = {
        'tool': Contact,
        'native': NativeOutput(Contact),
        'prompted': PromptedOutput(Contact),
    }[mode]
    agent = Agent(fast(), output_type=output_type)
    prompt = 'Save the contact Ada Lovelace, ada@example.org, +44 20 7946 0958, tags "vip" and "math"'
    _, streamed = await stream(agent, prompt)
    ran = await agent.run(prompt)
    for result in (streamed, ran):
        contact = result.output
        assert isinstance(contact, Contact)
        assert contact.name == 'Ada Lovelace'
        assert contact.email == 'ada@example.org'
        assert contact.phone == '+44 20 7946 0958'
        assert contact.tags == ['vip', 'math']
        assert 0 <= contact.score <= 1
        last = result.response
        if mode == 'tool':
            assert any(isinstance(p, ToolCallPart) and p.tool_name == 'final_result' for p in last.parts)
        else:
            text = ''.join(p.content for p in last.parts if isinstance(p, TextPart))
            assert Contact.model_validate_json(text) == contact


async def test_output_without_facts_still_validates() -> None:
    agent = Agent(fast(), output_type=Contact)
    result = await agent.run('')
    assert isinstance(result.output, Contact)
    assert result.output.email is None and len(result.output.tags) >= 1


async def test_union_with_text_answers_in_text_unless_the_prompt_names_the_output() -> None:
    agent = Agent(fast(), output_type=[str, Contact])
    assert isinstance((await agent.run('hello')).output, str)
    assert isinstance((await agent.run('save this contact: Grace Hopper')).output, Contact)


async def test_scalar_and_list_outputs() -> None:
    assert (await Agent(fast(), output_type=int).run('pick 7')).output == 7
    words = (await Agent(fast(), output_type=list[str]).run('colours "red" and "blue"')).output
    assert words == ['red', 'blue']


# -- conversation ----------------------------------------------------------------------------------


async def test_previous_message_is_quoted_from_history() -> None:
    agent = Agent(fast())
    first = await agent.run('My favourite colour is teal.')
    second = await agent.run('Something else entirely.', message_history=first.all_messages())
    _, result = await stream(agent, 'What did I say before?', message_history=second.all_messages())
    assert 'Something else entirely.' in result.output
    assert '2 earlier messages' in result.output
    result = await agent.run('what was my first message?', message_history=second.all_messages())
    assert 'My favourite colour is teal.' in result.output


async def test_previous_message_without_history_says_so() -> None:
    result = await Agent(fast()).run('what was my previous message?')
    assert "don't have any earlier message" in result.output


# -- native tools ----------------------------------------------------------------------------------


async def test_native_web_search_is_answered_offline() -> None:
    agent = Agent(fast(), capabilities=[WebSearch(local=False)])
    events, result = await stream(agent, 'Search the web for the pydantic-ai changelog')
    parts = [e.part for e in events if isinstance(e, PartStartEvent)]
    call = next(p for p in parts if isinstance(p, NativeToolCallPart))
    ret = next(p for p in parts if isinstance(p, NativeToolReturnPart))
    assert (call.tool_name, call.provider_name) == ('web_search', 'synapse')
    assert call.args_as_dict() == {'query': 'pydantic-ai changelog'}
    assert ret.tool_call_id == call.tool_call_id and ret.provider_name == 'synapse'
    content: Any = ret.content
    assert isinstance(content, dict) and 'Offline demo' in content['notice']
    assert len(content['results']) == 3
    assert 'offline demo results' in result.output
    assert 'https://example.com/articles/pydantic-ai-changelog' in result.output
    assert result.response.native_tool_calls and result.usage.requests == 1
    ran = await agent.run('search the web for cats')
    assert len(ran.response.native_tool_calls) == 1


async def test_native_tool_is_not_used_when_not_asked_for() -> None:
    agent = Agent(fast(), capabilities=[WebSearch(local=False)])

    @agent.tool_plain
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    result = await agent.run('add 2 and 40')
    assert not result.response.native_tool_calls
    assert 'returned: 42' in result.output
