"""The turn engine on every selected database: recording, memory, attachments, every error path."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from pydantic_ai.usage import UsageLimits
from sqlalchemy import select

from chat_helpers import decode, turn_target, types
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


async def test_a_turn_records_everything(engine: ChatEngine, store: Store) -> None:
    prepared, chunks = await run_turn(engine, turn_target('chat_agents.shop'), 'Where is A-1?')
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
    assert len(calls) == 2 and all(c.module == 'chat' and c.agent_key == 'chat_agents.shop' for c in calls)
    assert all(c.cost is None and c.currency is None for c in calls)
    assert sum(c.input_tokens for c in calls) == conversation.input_tokens


async def test_multi_turn_replays_history_and_stateless_does_not(engine: ChatEngine, store: Store) -> None:
    stateful = turn_target('chat_agents.echo')
    first, _ = await run_turn(engine, stateful, 'one')
    _, chunks = await run_turn(engine, stateful, 'two', conversation_id=first.conversation_id)
    assert 'prompts=2' in ''.join(c.get('delta', '') for c in chunks)

    stateless = turn_target('chat_agents.echo-stateless')
    first, _ = await run_turn(engine, stateless, 'one')
    _, chunks = await run_turn(engine, stateless, 'two', conversation_id=first.conversation_id)
    assert 'prompts=1' in ''.join(c.get('delta', '') for c in chunks)
    assert chunks[0]['messageMetadata']['stateless'] is True
    assert len(rows(store, Message, conversation_id=first.conversation_id)) == 4


async def test_attachments_are_saved_referenced_and_replayed(engine: ChatEngine, store: Store) -> None:
    target = turn_target('chat_agents.echo')
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
    prepared, chunks = await run_turn(engine, turn_target('chat_agents.boom'), 'go')
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
    prepared, chunks = await run_turn(engine, turn_target('chat_agents.picky'), 'go')
    assert 'tool-output-error' in types(chunks)
    tools = rows(store, ToolInvocation, conversation_id=prepared.conversation_id)
    assert tools[0].status == 'error' and 'try harder' in (tools[0].error or '')


@pytest.mark.parametrize(
    ('status', 'recoverable'),
    [('429', True), ('401', False), ('400', False), ('503', True)],
    ids=['rate-limit', 'authentication', 'context-window', 'overloaded'],
)
async def test_model_errors(engine: ChatEngine, store: Store, status: str, recoverable: bool) -> None:
    # `chat_agents.failing` answers with the HTTP error its message names.
    prepared, chunks = await run_turn(engine, turn_target('chat_agents.failing'), f'{status} hello')
    assert types(chunks) == ['start', 'data-error', 'error', 'finish', '[DONE]']
    assert chunks[1]['data']['class'] == 'ModelHTTPError' and status in chunks[1]['data']['message']
    assert chunks[1]['data']['recoverable'] is recoverable
    messages = rows(store, Message, conversation_id=prepared.conversation_id)
    assert [m.role for m in messages] == ['user', 'error']  # the empty answer is not kept


async def test_usage_limit_deps_factory_and_missing_key(engine: ChatEngine, store: Store) -> None:
    shop = turn_target('chat_agents.shop')
    prepared = await engine.prepare(TurnInput(shop, 'go'))
    limited = [c async for c in _stream_with(engine, prepared, usage_limits=UsageLimits(request_limit=1))]
    assert any('UsageLimitExceeded' in c for c in limited)

    # Its `synapse.deps_factory` (found by discovery) raises.
    _, chunks = await run_turn(engine, turn_target('chat_agents.needs-deps'), 'go')
    assert next(c for c in chunks if c['type'] == 'data-error')['data']['message'] == 'no database'

    _, chunks = await run_turn(engine, turn_target('chat_agents.no-factory'), 'go')
    assert next(c for c in chunks if c['type'] == 'data-error')['data']['class'] == 'DepsUnavailable'

    keyed = turn_target('chat_agents.keyed')
    assert keyed.missing_env == 'OPENAI_API_KEY'
    _, chunks = await run_turn(engine, keyed, 'go')
    assert 'OPENAI_API_KEY' in next(c for c in chunks if c['type'] == 'data-error')['data']['message']

    _, chunks = await run_turn(engine, shop, 'go', model_id='anthropic:claude-sonnet-5-5')
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
    target = turn_target('chat_agents.greeter')
    with pytest.raises(TurnRejected) as missing:
        await engine.prepare(TurnInput(target, 'x', conversation_id='nope'))
    assert missing.value.status == 404
    first, _ = await run_turn(engine, target, 'hello')
    other = turn_target('chat_agents.echo')
    with pytest.raises(TurnRejected) as foreign:
        await engine.prepare(TurnInput(other, 'x', conversation_id=first.conversation_id))
    assert foreign.value.status == 409


async def test_a_cancelled_turn_is_stored_as_interrupted(engine: ChatEngine, store: Store) -> None:
    # `chat_agents.slow` streams 'partial answer ', then sleeps 30 s.
    started = asyncio.Event()
    prepared = await engine.prepare(TurnInput(turn_target('chat_agents.slow'), 'go'))

    async def consume() -> None:
        async for chunk in engine.stream(prepared):
            if '"text-delta"' in chunk:
                started.set()

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
