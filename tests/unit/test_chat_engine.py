"""The turn engine on every selected database: its events, recording, memory, attachments, every
error path."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic_ai.messages import PartDeltaEvent, PartStartEvent, TextPart, ToolReturnPart
from pydantic_ai.run import AgentRunResultEvent
from sqlalchemy import select

from chat_helpers import answer_text, collect, failure, finished, tool_results, turn_target
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.chat.attachments import Upload
from synapse_agents.chat.engine import ChatEngine
from synapse_agents.chat.request import TurnRequest
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.conversations.tables import Conversation, Message, ToolInvocation
from synapse_agents.conversations.turn_writes import sweep_in_flight
from synapse_agents.errors import ConversationNotFound, WrongAgent
from synapse_agents.events import TurnFailed, TurnFinished, TurnStarted
from synapse_agents.store import Store
from synapse_agents.store.write_queue import WriteQueue
from synapse_agents.targets.target import TurnTarget

pytestmark = pytest.mark.anyio


@pytest.fixture
def engine(store: Store) -> Iterator[ChatEngine]:
    writes = WriteQueue(store)
    yield ChatEngine(store, writes)
    writes.close()


async def run_turn(
    engine: ChatEngine, target: TurnTarget, message: str, **kwargs: Any
) -> tuple[Any, list[Any]]:
    """Prepare and run one turn; its prepared form and every event it yielded."""
    prepared = await engine.prepare(TurnRequest(target, message, **kwargs))
    events = await collect(engine.stream(prepared))
    await engine.writes.drain()
    return prepared, events


def card(events: list[Any]) -> TurnFailed:
    """The turn's error card (it must have one)."""
    failed = failure(events)
    assert failed is not None, 'the turn did not fail'
    return failed


def rows(store: Store, model: Any, **where: Any) -> list[Any]:
    with store.read() as session:
        query = select(model)
        for key, value in where.items():
            query = query.where(getattr(model, key) == value)
        return list(session.scalars(query.order_by(model.id)))


async def test_a_turn_records_everything(engine: ChatEngine, store: Store) -> None:
    prepared, events = await run_turn(engine, turn_target('chat_agents.shop'), 'Where is A-1?')
    started = events[0]
    assert isinstance(started, TurnStarted)
    assert (started.conversation_id, started.message_id, started.run_id) == (
        prepared.conversation_id,
        prepared.assistant_message_id,
        prepared.run_id,
    )
    assert isinstance(events[-2], AgentRunResultEvent) and failure(events) is None
    (result,) = tool_results(events)
    assert result.tool_name == 'lookup' and result.content == {'order_id': 'A-1', 'status': 'shipped'}
    assert answer_text(events).strip() == 'It shipped.'
    final = finished(events)
    assert (final.status, final.saved) == ('complete', True)
    assert final.conversation_id == prepared.conversation_id
    assert final.message_id == prepared.assistant_message_id
    assert final.usage is not None and (final.usage.requests, final.usage.tool_calls) == (2, 1)
    assert final.model == 'scripted' and final.provider == 'function'
    assert final.cost is None  # unknown price stays None, never 0
    assert final.duration_ms is not None

    conversation = ConversationRepository(store).get(prepared.conversation_id)
    assert conversation is not None
    assert conversation.title == 'Where is A-1?'
    assert conversation.message_count == 2 and conversation.tool_count == 1
    assert conversation.input_tokens == final.usage.input_tokens > 0
    assert conversation.cost is None and conversation.has_error is False
    assert conversation.origin == 'playground' and conversation.tenant_type is None

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
    assert all(c.run_id == prepared.run_id and c.parent_run_id is None for c in calls)
    assert all(c.cost is None and c.currency is None for c in calls)
    assert sum(c.input_tokens for c in calls) == conversation.input_tokens


async def test_the_result_comes_once_the_answer_is_stored(engine: ChatEngine, store: Store) -> None:
    prepared = await engine.prepare(TurnRequest(turn_target('chat_agents.greeter'), 'hi'))
    seen = False
    async for event in engine.stream(prepared):
        if isinstance(event, AgentRunResultEvent):
            seen = True
            (_, assistant) = rows(store, Message, conversation_id=prepared.conversation_id)
            assert (assistant.status, assistant.content.strip()) == ('complete', 'Hello there friend')
    assert seen


async def test_multi_turn_replays_history_and_stateless_does_not(engine: ChatEngine, store: Store) -> None:
    stateful = turn_target('chat_agents.echo')
    first, _ = await run_turn(engine, stateful, 'one')
    _, events = await run_turn(engine, stateful, 'two', conversation_id=first.conversation_id)
    assert 'prompts=2' in answer_text(events)

    stateless = turn_target('chat_agents.echo-stateless')
    first, _ = await run_turn(engine, stateless, 'one')
    _, events = await run_turn(engine, stateless, 'two', conversation_id=first.conversation_id)
    assert 'prompts=1' in answer_text(events)
    assert events[0].stateless is True and finished(events).stateless is True
    assert len(rows(store, Message, conversation_id=first.conversation_id)) == 4


async def test_attachments_are_saved_referenced_and_replayed(engine: ChatEngine, store: Store) -> None:
    target = turn_target('chat_agents.echo')
    upload = Upload('../../etc/pass wd.txt', 'text/plain', b'hello file')
    first, events = await run_turn(engine, target, 'read this', uploads=[upload])
    assert 'files=[10]' in answer_text(events)
    user = rows(store, Message, conversation_id=first.conversation_id)[0]
    (reference,) = user.attachments
    assert reference['name'] == 'pass_wd.txt' and reference['size'] == 10
    path = store.attachments_dir / reference['path']
    assert path.read_bytes() == b'hello file'
    assistant = rows(store, Message, conversation_id=first.conversation_id)[1]
    assert 'aGVsbG8gZmlsZQ' not in str(assistant.model_messages)  # the bytes are not embedded
    _, events = await run_turn(engine, target, 'again', conversation_id=first.conversation_id)
    assert 'files=[10]' in answer_text(events)  # read back from disk


async def test_a_tool_that_raises_becomes_an_error_card(engine: ChatEngine, store: Store) -> None:
    prepared, events = await run_turn(engine, turn_target('chat_agents.boom'), 'go')
    assert [type(e) for e in events[-2:]] == [TurnFailed, TurnFinished]
    assert not any(isinstance(e, AgentRunResultEvent) for e in events)
    failed = card(events)
    assert failed.exception_class == 'RuntimeError' and failed.message == 'inventory down'
    assert 'Traceback' in failed.traceback and failed.recoverable is False
    assert isinstance(failed.error, RuntimeError)
    assert finished(events).saved is True
    error_row = rows(store, Message, conversation_id=prepared.conversation_id, role='error')[0]
    assert error_row.details['class'] == 'RuntimeError' and error_row.content == 'inventory down'
    (tool,) = rows(store, ToolInvocation, conversation_id=prepared.conversation_id)
    assert tool.status == 'error' and tool.error == 'RuntimeError: inventory down'
    assert ConversationRepository(store).get(prepared.conversation_id).has_error is True  # type: ignore[union-attr]


async def test_model_retry_is_a_tool_error_not_a_turn_error(engine: ChatEngine, store: Store) -> None:
    prepared, events = await run_turn(engine, turn_target('chat_agents.picky'), 'go')
    (retried,) = tool_results(events)[:1]
    assert failure(events) is None and isinstance(retried, ToolReturnPart) and retried.outcome == 'retried'
    tools = rows(store, ToolInvocation, conversation_id=prepared.conversation_id)
    assert tools[0].status == 'error' and 'try harder' in (tools[0].error or '')


@pytest.mark.parametrize(
    ('status', 'recoverable'),
    [('429', True), ('401', False), ('400', False), ('503', True)],
    ids=['rate-limit', 'authentication', 'context-window', 'overloaded'],
)
async def test_model_errors(engine: ChatEngine, store: Store, status: str, recoverable: bool) -> None:
    # `chat_agents.failing` answers with the HTTP error its message names.
    prepared, events = await run_turn(engine, turn_target('chat_agents.failing'), f'{status} hello')
    assert [type(e) for e in events] == [TurnStarted, TurnFailed, TurnFinished]
    failed = card(events)
    assert failed.exception_class == 'ModelHTTPError' and status in failed.message
    assert failed.recoverable is recoverable
    messages = rows(store, Message, conversation_id=prepared.conversation_id)
    assert [m.role for m in messages] == ['user', 'error']  # the empty answer is not kept


async def test_a_provider_refusal_is_described_in_the_providers_words(
    engine: ChatEngine, store: Store
) -> None:
    prepared, events = await run_turn(engine, turn_target('chat_agents.failing'), '429 hello')
    failed = card(events)
    assert failed.message == '429 Rate limit reached for requests', 'not the exception summary'
    assert failed.provider == {
        'status': 429,
        'type': 'requests',
        'code': 'rate_limit_exceeded',
        'message': 'Rate limit reached for requests',
        'retry_after': 20.0,
        'model': 'scripted',
        'kind': 'rate_limited',
    }
    assert failed.payload()['provider'] == failed.provider
    [error] = [m for m in rows(store, Message, conversation_id=prepared.conversation_id) if m.role == 'error']
    assert error.content == failed.message
    assert error.details is not None and error.details['provider'] == failed.provider

    _, events = await run_turn(engine, turn_target('chat_agents.failing'), '401 hello')
    assert card(events).message == '401 bad key' and card(events).provider is not None


async def test_deps_factory_and_missing_key(engine: ChatEngine, store: Store) -> None:
    # Its `synapse.deps_factory` (found by discovery) raises.
    _, events = await run_turn(engine, turn_target('chat_agents.needs-deps'), 'go')
    assert card(events).message == 'no database'

    _, events = await run_turn(engine, turn_target('chat_agents.no-factory'), 'go')
    assert card(events).exception_class == 'DepsUnavailable'
    assert '"chat_agents:no_factory" = "your.module:make_deps"' in card(events).message

    keyed = turn_target('chat_agents.keyed')
    assert keyed.missing_env == 'OPENAI_API_KEY'
    _, events = await run_turn(engine, keyed, 'go')
    assert 'OPENAI_API_KEY' in card(events).message

    _, events = await run_turn(
        engine, turn_target('chat_agents.shop'), 'go', model_id='anthropic:claude-sonnet-5-5'
    )
    assert 'ANTHROPIC_API_KEY' in card(events).message

    _, events = await run_turn(engine, TurnTarget(agent=None, slug='gone', name='gone'), 'go')
    assert [type(e) for e in events] == [TurnStarted, TurnFailed, TurnFinished]


async def test_unknown_or_foreign_conversation_is_rejected(engine: ChatEngine) -> None:
    target = turn_target('chat_agents.greeter')
    with pytest.raises(ConversationNotFound):  # the HTTP API's 404
        await engine.prepare(TurnRequest(target, 'x', conversation_id='nope'))
    first, _ = await run_turn(engine, target, 'hello')
    other = turn_target('chat_agents.echo')
    with pytest.raises(WrongAgent):  # the HTTP API's 409
        await engine.prepare(TurnRequest(other, 'x', conversation_id=first.conversation_id))


def _is_text(event: Any) -> bool:
    return (isinstance(event, PartStartEvent) and isinstance(event.part, TextPart)) or isinstance(
        event, PartDeltaEvent
    )


async def test_a_cancelled_turn_is_stored_as_interrupted(engine: ChatEngine, store: Store) -> None:
    # `chat_agents.slow` streams 'partial answer ', then sleeps 30 s.
    started = asyncio.Event()
    prepared = await engine.prepare(TurnRequest(turn_target('chat_agents.slow'), 'go'))

    async def consume() -> None:
        async for event in engine.stream(prepared):
            if _is_text(event):
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


async def test_a_stream_closed_early_is_stored_as_interrupted(engine: ChatEngine, store: Store) -> None:
    prepared = await engine.prepare(TurnRequest(turn_target('chat_agents.slow'), 'go'))
    events = engine.stream(prepared)
    async for event in events:
        if _is_text(event):
            break
    await events.aclose()  # the consumer stops reading: the turn ends now, not at garbage collection
    await engine.writes.drain()
    assistant = rows(store, Message, conversation_id=prepared.conversation_id, role='assistant')[0]
    assert assistant.status == 'interrupted' and assistant.content.startswith('partial answer')


def test_sweep_marks_turns_left_in_flight(store: Store) -> None:
    conversation = ConversationRepository(store).create(agent_key='a')
    with store.write() as session:
        session.add(
            Message(conversation_id=conversation.id, role='assistant', status='streaming', content='')
        )
        session.add(
            ToolInvocation(conversation_id=conversation.id, tool_call_id='c', name='t', status='pending')
        )
    with store.write() as session:
        assert sweep_in_flight(session.connection()) == (1, 1)
    assert rows(store, Message)[0].status == 'interrupted'
    assert rows(store, ToolInvocation)[0].status == 'interrupted'
    with store.read() as session:
        assert session.get(Conversation, conversation.id) is not None
