"""The turn engine on every selected database: recording, memory, attachments, every error path."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import UsageLimits
from sqlalchemy import select

from chat_helpers import decode, echo_history_model, simple_agent, text_model, tool_then_text_model, types
from synapse_agents.chat.attachments import Upload
from synapse_agents.chat.engine import ChatEngine, TurnInput, TurnRejected
from synapse_agents.chat.target import TurnTarget
from synapse_agents.store import Conversation, LlmCall, Message, Store, ToolInvocation
from synapse_agents.store.recording import sweep_in_flight
from synapse_agents.store.write_queue import WriteQueue

pytestmark = pytest.mark.anyio


@pytest.fixture
def engine(store: Store) -> Iterator[ChatEngine]:
    writes = WriteQueue(store)
    yield ChatEngine(store, writes)
    writes.close()


async def run_turn(
    engine: ChatEngine, target: TurnTarget, message: str, **kwargs: Any
) -> tuple[Any, list[dict[str, Any]]]:
    prepared = await engine.prepare(TurnInput(target, message, **kwargs))
    sse = ''.join([chunk async for chunk in engine.stream(prepared)])
    await engine.writes.drain()
    return prepared, decode(sse)


def rows(store: Store, model: Any, **where: Any) -> list[Any]:
    with store.read() as session:
        query = select(model)
        for key, value in where.items():
            query = query.where(getattr(model, key) == value)
        return list(session.scalars(query.order_by(model.id)))


def lookup_agent() -> Agent[Any, Any]:
    agent = simple_agent(tool_then_text_model('lookup', {'order_id': 'A-1'}, 'It shipped.'), name='shop')

    @agent.tool_plain
    def lookup(order_id: str) -> dict[str, str]:
        return {'order_id': order_id, 'status': 'shipped'}

    return agent


async def test_a_turn_records_everything(engine: ChatEngine, store: Store) -> None:
    target = TurnTarget.for_agent(lookup_agent(), slug='tests.shop')
    prepared, chunks = await run_turn(engine, target, 'Where is A-1?')
    assert types(chunks)[0] == 'start' and types(chunks)[-2:] == ['finish', '[DONE]']
    assert 'tool-output-available' in types(chunks)
    final = chunks[-2]['messageMetadata']
    assert final['conversation_id'] == prepared.conversation_id
    assert final['message_id'] == prepared.assistant_message_id
    assert final['usage']['requests'] == 2 and final['usage']['tool_calls'] == 1
    assert final['model'] == 'scripted' and final['provider'] == 'function'
    assert final['cost'] is None  # unknown price stays null, never 0

    conversation = store.get_conversation(prepared.conversation_id)
    assert conversation is not None
    assert conversation.title == 'Where is A-1?'
    assert conversation.message_count == 2 and conversation.tool_count == 1
    assert conversation.input_tokens == final['usage']['input_tokens'] > 0
    assert conversation.cost is None and conversation.has_error is False

    user, assistant = rows(store, Message, conversation_id=prepared.conversation_id)
    assert (user.role, assistant.role, assistant.status) == ('user', 'assistant', 'complete')
    assert assistant.content.strip() == 'It shipped.'
    assert [p['type'] for p in assistant.parts] == ['tool', 'text']
    assert assistant.model_messages and assistant.model_messages[0]['kind'] == 'request'
    assert assistant.meta['model'] == 'scripted'

    (tool,) = rows(store, ToolInvocation, conversation_id=prepared.conversation_id)
    assert (tool.kind, tool.name, tool.status) == ('function', 'lookup', 'success')
    assert tool.arguments == {'order_id': 'A-1'} and tool.result == {'order_id': 'A-1', 'status': 'shipped'}
    assert tool.message_id == assistant.id and tool.duration_ms is not None and tool.finished_at is not None

    calls = rows(store, LlmCall, conversation_id=prepared.conversation_id)
    assert len(calls) == 2 and all(c.module == 'chat' and c.agent_key == 'tests.shop' for c in calls)
    assert all(c.cost is None and c.currency is None for c in calls)
    assert sum(c.input_tokens for c in calls) == conversation.input_tokens


async def test_multi_turn_replays_history_and_stateless_does_not(engine: ChatEngine, store: Store) -> None:
    agent = simple_agent(echo_history_model(), name='echo')
    stateful = TurnTarget.for_agent(agent, slug='tests.echo')
    first, _ = await run_turn(engine, stateful, 'one')
    _, chunks = await run_turn(engine, stateful, 'two', conversation_id=first.conversation_id)
    assert 'prompts=2' in ''.join(c.get('delta', '') for c in chunks)

    stateless = TurnTarget.for_agent(agent, slug='tests.echo-stateless', stateless=True)
    first, _ = await run_turn(engine, stateless, 'one')
    _, chunks = await run_turn(engine, stateless, 'two', conversation_id=first.conversation_id)
    assert 'prompts=1' in ''.join(c.get('delta', '') for c in chunks)
    assert chunks[0]['messageMetadata']['stateless'] is True
    assert len(rows(store, Message, conversation_id=first.conversation_id)) == 4


async def test_attachments_are_saved_referenced_and_replayed(engine: ChatEngine, store: Store) -> None:
    target = TurnTarget.for_agent(simple_agent(echo_history_model(), name='files'), slug='tests.files')
    upload = Upload('../../etc/pass wd.txt', 'text/plain', b'hello file')
    first, chunks = await run_turn(engine, target, 'read this', uploads=[upload])
    assert 'files=[10]' in ''.join(c.get('delta', '') for c in chunks)
    user = rows(store, Message, conversation_id=first.conversation_id)[0]
    (reference,) = user.attachments
    assert reference['name'] == 'pass_wd.txt' and reference['size'] == 10
    path = store.attachments_dir / reference['path']
    assert path.read_bytes() == b'hello file'
    assistant = rows(store, Message, conversation_id=first.conversation_id)[1]
    assert 'aGVsbG8gZmlsZQ' not in str(assistant.model_messages)  # the bytes are not embedded
    _, chunks = await run_turn(engine, target, 'again', conversation_id=first.conversation_id)
    assert 'files=[10]' in ''.join(c.get('delta', '') for c in chunks)  # read back from disk


async def test_a_tool_that_raises_becomes_an_error_card(engine: ChatEngine, store: Store) -> None:
    agent = simple_agent(tool_then_text_model('explode', {}, 'never'), name='boom')

    @agent.tool_plain
    def explode() -> str:
        raise RuntimeError('inventory down')

    prepared, chunks = await run_turn(engine, TurnTarget.for_agent(agent), 'go')
    assert types(chunks)[-5:] == ['tool-output-error', 'data-error', 'error', 'finish', '[DONE]'] or types(
        chunks
    )[-6:-2] == ['tool-output-error', 'data-error', 'error', 'finish-step']
    error_chunk = next(c for c in chunks if c['type'] == 'data-error')['data']
    assert error_chunk['class'] == 'RuntimeError' and error_chunk['message'] == 'inventory down'
    assert 'Traceback' in error_chunk['traceback'] and error_chunk['recoverable'] is False
    assert (
        next(c for c in chunks if c['type'] == 'tool-output-error')['errorText']
        == 'RuntimeError: inventory down'
    )
    assert chunks[-2]['finishReason'] == 'error'
    error_row = rows(store, Message, conversation_id=prepared.conversation_id, role='error')[0]
    assert error_row.details['class'] == 'RuntimeError' and error_row.content == 'inventory down'
    (tool,) = rows(store, ToolInvocation, conversation_id=prepared.conversation_id)
    assert tool.status == 'error' and tool.error == 'RuntimeError: inventory down'
    assert store.get_conversation(prepared.conversation_id).has_error is True  # type: ignore[union-attr]


async def test_model_retry_is_a_tool_error_not_a_turn_error(engine: ChatEngine, store: Store) -> None:
    agent = simple_agent(tool_then_text_model('picky', {'x': 1}, 'fine then'), name='picky', retries=1)
    attempts: list[int] = []

    @agent.tool_plain
    def picky(x: int) -> str:
        attempts.append(x)
        raise ModelRetry('try harder')

    prepared, chunks = await run_turn(engine, TurnTarget.for_agent(agent), 'go')
    assert 'tool-output-error' in types(chunks)
    tools = rows(store, ToolInvocation, conversation_id=prepared.conversation_id)
    assert tools[0].status == 'error' and 'try harder' in (tools[0].error or '')


def failing_model(error: Exception) -> FunctionModel:
    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        raise error
        yield ''

    return FunctionModel(stream_function=stream, model_name='failing')


@pytest.mark.parametrize(
    ('error', 'recoverable'),
    [
        (ModelHTTPError(429, 'm', {'error': 'rate limited'}), True),
        (ModelHTTPError(401, 'm', {'error': 'bad key'}), False),
        (ModelHTTPError(400, 'm', {'error': 'context window exceeded'}), False),
    ],
    ids=['rate-limit', 'authentication', 'context-window'],
)
async def test_model_errors(engine: ChatEngine, store: Store, error: Exception, recoverable: bool) -> None:
    target = TurnTarget.for_agent(simple_agent(failing_model(error), name='failing'))
    prepared, chunks = await run_turn(engine, target, 'hello')
    assert types(chunks) == ['start', 'data-error', 'error', 'finish', '[DONE]']
    assert chunks[1]['data']['class'] == 'ModelHTTPError'
    assert chunks[1]['data']['recoverable'] is recoverable
    messages = rows(store, Message, conversation_id=prepared.conversation_id)
    assert [m.role for m in messages] == ['user', 'error']  # the empty answer is not kept


async def test_usage_limit_deps_factory_and_missing_key(engine: ChatEngine, store: Store) -> None:
    agent = lookup_agent()
    prepared = await engine.prepare(TurnInput(TurnTarget.for_agent(agent), 'go'))
    limited = [c async for c in _stream_with(engine, prepared, usage_limits=UsageLimits(request_limit=1))]
    assert any('UsageLimitExceeded' in c for c in limited)

    def broken_deps() -> Any:
        raise ValueError('no database')

    target = TurnTarget.for_agent(agent, deps_factory=broken_deps)
    _, chunks = await run_turn(engine, target, 'go')
    assert next(c for c in chunks if c['type'] == 'data-error')['data']['message'] == 'no database'

    target = TurnTarget.for_agent(agent, deps_required=True)
    _, chunks = await run_turn(engine, target, 'go')
    assert next(c for c in chunks if c['type'] == 'data-error')['data']['class'] == 'DepsUnavailable'

    keyed = TurnTarget.for_agent(agent, own_model_id='openai:gpt-5.6-sol', missing_env='OPENAI_API_KEY')
    _, chunks = await run_turn(engine, keyed, 'go')
    assert 'OPENAI_API_KEY' in next(c for c in chunks if c['type'] == 'data-error')['data']['message']

    _, chunks = await run_turn(
        engine, TurnTarget.for_agent(agent), 'go', model_id='anthropic:claude-sonnet-5-5'
    )
    assert 'ANTHROPIC_API_KEY' in next(c for c in chunks if c['type'] == 'error')['errorText']

    _, chunks = await run_turn(engine, TurnTarget(agent=None, slug='gone', name='gone'), 'go')
    assert types(chunks) == ['start', 'data-error', 'error', 'finish', '[DONE]']


async def _stream_with(engine: ChatEngine, prepared: Any, **run_kwargs: Any) -> AsyncIterator[str]:
    agent = prepared.target.agent
    original = agent.run_stream_events

    def patched(*args: Any, **kwargs: Any) -> Any:
        return original(*args, **{**kwargs, **run_kwargs})

    agent.run_stream_events = patched
    try:
        async for chunk in engine.stream(prepared):
            yield chunk
    finally:
        del agent.run_stream_events
        await engine.writes.drain()


async def test_unknown_or_foreign_conversation_is_rejected(engine: ChatEngine) -> None:
    target = TurnTarget.for_agent(simple_agent(text_model('hi'), name='a'), slug='a')
    with pytest.raises(TurnRejected) as missing:
        await engine.prepare(TurnInput(target, 'x', conversation_id='nope'))
    assert missing.value.status == 404
    first, _ = await run_turn(engine, target, 'hello')
    other = TurnTarget.for_agent(simple_agent(text_model('hi'), name='b'), slug='b')
    with pytest.raises(TurnRejected) as foreign:
        await engine.prepare(TurnInput(other, 'x', conversation_id=first.conversation_id))
    assert foreign.value.status == 409


async def test_a_cancelled_turn_is_stored_as_interrupted(engine: ChatEngine, store: Store) -> None:
    started = asyncio.Event()

    async def slow(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield 'partial answer '
        started.set()
        await asyncio.sleep(30)
        yield 'never'

    target = TurnTarget.for_agent(simple_agent(FunctionModel(stream_function=slow), name='slow'))
    prepared = await engine.prepare(TurnInput(target, 'go'))

    async def consume() -> None:
        async for _ in engine.stream(prepared):
            pass

    task = asyncio.create_task(consume())
    await asyncio.wait_for(started.wait(), 5)
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await engine.writes.drain()
    assistant = rows(store, Message, conversation_id=prepared.conversation_id, role='assistant')[0]
    assert assistant.status == 'interrupted'
    assert assistant.content.startswith('partial answer')


def test_sweep_marks_turns_left_in_flight(store: Store) -> None:
    conversation = store.create_conversation(agent_key='a')
    with store.write() as session:
        session.add(
            Message(conversation_id=conversation.id, role='assistant', status='streaming', content='')
        )
        session.add(
            ToolInvocation(conversation_id=conversation.id, tool_call_id='c', name='t', status='pending')
        )
    with store.write() as session:
        assert sweep_in_flight(session) == (1, 1)
    assert rows(store, Message)[0].status == 'interrupted'
    assert rows(store, ToolInvocation)[0].status == 'interrupted'
    with store.read() as session:
        assert session.get(Conversation, conversation.id) is not None
