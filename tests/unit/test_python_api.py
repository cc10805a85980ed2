"""The Python API (`synapse_agents.Synapse`), through its public names only, on SQLite and PostgreSQL.

Each test opens a real `Synapse` on the test's database and checks what it stored by reading the
store's own tables: the same rows a playground turn writes.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import aclosing
from decimal import Decimal
from pathlib import Path
from typing import Any

import anyio
import pytest
from pydantic_ai import Agent, RunContext
from pydantic_ai.exceptions import ModelHTTPError, UsageLimitExceeded
from pydantic_ai.messages import (
    BinaryContent,
    ModelMessage,
    PartDeltaEvent,
    TextPartDelta,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.run import AgentRunResultEvent
from pydantic_ai.usage import UsageLimits
from sqlalchemy import select

from synapse_agents import ConversationNotFound, Scope, ScopeMismatch, Synapse, UnknownAgent
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.conversations.tables import Conversation, Message, ToolInvocation
from synapse_agents.errors import InvalidScope, WrongAgent
from synapse_agents.store import Store

pytestmark = pytest.mark.anyio

DEMO_SUPPORT = 'synapse_agents.demo.agents.support-agent'
FIRM = ('firm', '7')
USER = ('user', '42')
CASE = ('case', '9')


def prompts(messages: list[ModelMessage]) -> list[str]:
    """Every user prompt the model was sent, oldest first (text parts only)."""
    seen: list[str] = []
    for message in messages:
        for part in message.parts:
            if isinstance(part, UserPromptPart):
                content = part.content
                seen.append(content if isinstance(content, str) else str(content[0]))
    return seen


def echo_agent(name: str = 'echo') -> tuple[Agent[Any, str], list[list[str]]]:
    """An agent that answers with the prompts it was sent, and a log of what each request saw."""
    seen: list[list[str]] = []

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        seen.append(prompts(messages))
        yield 'heard: ' + ' | '.join(seen[-1])

    return Agent(FunctionModel(stream_function=stream, model_name='echo-model'), name=name), seen


def tool_agent() -> Agent[Any, str]:
    """Calls `lookup` once, then answers with what it returned; the tool sees the scope."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        if not any(getattr(p, 'part_kind', '') == 'tool-return' for m in messages for p in m.parts):
            yield {0: DeltaToolCall(name='lookup', json_args=json.dumps({'q': 'x'}), tool_call_id='c1')}
            return
        yield 'done'

    agent: Agent[Any, str] = Agent(
        FunctionModel(stream_function=stream, model_name='tools-model'), name='tooly'
    )

    @agent.tool
    def lookup(ctx: RunContext[Any], q: str) -> str:
        return f'{q} for {Scope.of(ctx).tenant}'

    return agent


@pytest.fixture
def synapse(database_url: str) -> Synapse:
    return Synapse(database_url=database_url, agents=['synapse_agents.demo'])


def opened(database_url: str) -> Store:
    return Store.open(database_url, Path('/nonexistent'))


def rows(database_url: str, model: Any, conversation_id: str) -> list[Any]:
    store = opened(database_url)
    try:
        with store.read() as session:
            return list(session.scalars(select(model).where(model.conversation_id == conversation_id)))
    finally:
        store.close()


def conversation_row(database_url: str, conversation_id: str) -> Conversation:
    store = opened(database_url)
    try:
        found = ConversationRepository(store).get(conversation_id)
        assert found is not None
        return found
    finally:
        store.close()


async def test_send_stores_the_turn_like_a_chat(synapse: Synapse, database_url: str) -> None:
    agent, _ = echo_agent()
    async with synapse as syn:
        conv = await syn.conversation(agent, tenant=FIRM, actor=USER, subject=CASE)
        assert conv.id is None
        reply = await conv.send('Hello')
    assert reply.output == 'heard: Hello'
    assert reply.conversation_id == conv.id and reply.usage.requests == 1
    assert reply.model == 'echo-model' and reply.cost is None  # a FunctionModel has no price
    row = conversation_row(database_url, reply.conversation_id)
    assert row.origin == 'app' and row.agent_key == 'echo'
    assert Scope.from_columns(row) == Scope(FIRM, USER, CASE)
    assert row.message_count == 2 and row.input_tokens == reply.usage.input_tokens
    messages = sorted(rows(database_url, Message, reply.conversation_id), key=lambda m: m.id)
    assert [(m.role, m.status) for m in messages] == [('user', 'complete'), ('assistant', 'complete')]
    assert messages[1].id == reply.message_id and messages[0].id == reply.user_message_id
    assert messages[1].content == 'heard: Hello'
    (call,) = rows(database_url, LlmCall, reply.conversation_id)
    assert call.run_id == reply.run_id and call.module == 'chat' and call.user == 'user:42'


async def test_tools_are_recorded_and_see_the_scope(synapse: Synapse, database_url: str) -> None:
    async with synapse as syn:
        conv = await syn.conversation(tool_agent(), tenant=FIRM)
        reply = await conv.send('go')
    (tool,) = rows(database_url, ToolInvocation, reply.conversation_id)
    assert tool.name == 'lookup' and tool.status == 'success'
    assert tool.result == "x for ('firm', '7')"
    assert len(rows(database_url, LlmCall, reply.conversation_id)) == 2


async def test_continuing_later_sends_the_history(synapse: Synapse, database_url: str) -> None:
    agent, seen = echo_agent()
    async with synapse as syn:
        first = await (await syn.conversation(agent, tenant=FIRM)).send('one')
    # Another Synapse (another process, later): the conversation is found by its id.
    async with Synapse(database_url=database_url, agents=[]) as syn:
        conv = await syn.conversation(agent, id=first.conversation_id)
        assert conv.scope.tenant == FIRM
        second = await conv.send('two')
    assert second.conversation_id == first.conversation_id
    assert seen[-1] == ['one', 'two']
    assert conversation_row(database_url, first.conversation_id).message_count == 4


async def test_another_tenant_cannot_continue_and_reads_nothing(synapse: Synapse, database_url: str) -> None:
    agent, seen = echo_agent()
    async with synapse as syn:
        reply = await (await syn.conversation(agent, tenant=FIRM, subject=CASE)).send('secret')
        with pytest.raises(ScopeMismatch, match='tenant'):
            await syn.conversation(agent, id=reply.conversation_id, tenant=('firm', '8'))
        with pytest.raises(ScopeMismatch, match='subject'):
            await syn.conversation(agent, id=reply.conversation_id, subject=('case', '10'))
        # A conversation opened with the right tenant and a new actor: who talks now is recorded.
        conv = await syn.conversation(agent, id=reply.conversation_id, tenant=FIRM, actor=('user', '43'))
        await conv.send('more')
    assert len(seen) == 2  # the refused opens ran nothing
    calls = sorted(rows(database_url, LlmCall, reply.conversation_id), key=lambda c: c.id)
    assert [c.user for c in calls] == [None, 'user:43']
    assert Scope.from_columns(conversation_row(database_url, reply.conversation_id)).actor is None


async def test_a_conversation_opened_again_is_checked_from_memory_and_its_deletion_still_refuses_the_turn(
    synapse: Synapse, database_url: str
) -> None:
    agent, seen = echo_agent()
    other, _ = echo_agent('other')
    async with synapse as syn:
        reply = await (await syn.conversation(agent, tenant=FIRM, subject=CASE)).send('one')
        conversation_id = reply.conversation_id
        assert (await syn.conversation(agent, id=conversation_id)).scope.subject == CASE  # read once
        # Opened again: the agent and the stored scope are still checked, from memory.
        with pytest.raises(ScopeMismatch, match='tenant'):
            await syn.conversation(agent, id=conversation_id, tenant=('firm', '8'))
        with pytest.raises(WrongAgent):
            await syn.conversation(other, id=conversation_id)
        store = opened(database_url)
        try:
            ConversationRepository(store).delete(conversation_id)
        finally:
            store.close()
        conv = await syn.conversation(agent, id=conversation_id, tenant=FIRM)
        with pytest.raises(ConversationNotFound):
            await conv.send('two')
    assert seen == [['one']]  # the refused turn ran nothing
    store = opened(database_url)
    try:
        assert store.counts()['conversations'] == 0 and store.counts()['messages'] == 0
    finally:
        store.close()


async def test_unknown_ids_agents_and_scopes_raise_before_anything_is_stored(
    synapse: Synapse, database_url: str
) -> None:
    agent, _ = echo_agent()
    async with synapse as syn:
        with pytest.raises(UnknownAgent, match='support-agent'):
            await syn.conversation('synapse_agents.demo.agents.suport-agent')
        with pytest.raises(UnknownAgent, match='Did you mean'):
            await syn.conversation('support')
        with pytest.raises(ConversationNotFound):
            await syn.conversation(agent, id='../../etc/passwd')
        with pytest.raises(ConversationNotFound):
            await syn.conversation(agent, id='0190a4f0-0000-7000-8000-000000000000')
        for bad in [('firm',), ('', '7'), ('firm', 7), 'firm:7', ('firm', 'x' * 256)]:
            with pytest.raises(InvalidScope):
                await syn.conversation(agent, tenant=bad)  # type: ignore[arg-type]
        conv = await syn.conversation(agent)
        with pytest.raises(ValueError, match='send a message'):
            await conv.send('   ')
        with pytest.raises(ValueError, match='NUL'):
            await conv.send('a\x00b')
        with pytest.raises(FileNotFoundError):
            await conv.send('hi', attachments=[Path('missing.pdf')])
        with pytest.raises(TypeError):
            await conv.send('hi', attachments='a.pdf')
        unnamed: Agent[Any, str] = Agent(FunctionModel(lambda m, i: None))  # type: ignore[arg-type, return-value]
        with pytest.raises(ValueError, match='key='):
            await syn.conversation(unnamed)
        other, _ = echo_agent('other')
        first = await conv.send('hi')
        with pytest.raises(WrongAgent):
            await syn.conversation(other, id=first.conversation_id)
    store = opened(database_url)
    try:
        assert store.counts()['conversations'] == 1
    finally:
        store.close()


async def test_a_slug_runs_the_discovered_agent(synapse: Synapse, database_url: str) -> None:
    async with synapse as syn:
        conv = await syn.conversation(DEMO_SUPPORT, actor=USER)
        reply = await conv.send('Where is my order?')
    assert reply.output and isinstance(reply.output, str)
    assert conversation_row(database_url, reply.conversation_id).agent_key == DEMO_SUPPORT


async def test_stream_yields_pydantic_ai_events_then_the_result(synapse: Synapse, database_url: str) -> None:
    agent, _ = echo_agent()
    async with synapse as syn:
        conv = await syn.conversation(agent)
        events = [event async for event in conv.stream('streamed')]
    assert isinstance(events[-1], AgentRunResultEvent) and events[-1].result.output == 'heard: streamed'
    assert not any(type(e).__module__.startswith('synapse_agents') for e in events)
    assert conv.last_reply is not None and conv.last_reply.output == 'heard: streamed'
    assert conversation_row(database_url, conv.last_reply.conversation_id).message_count == 2


async def test_stopping_a_stream_early_stores_the_turn_interrupted(
    synapse: Synapse, database_url: str
) -> None:
    async def slow(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for word in ['a', 'b', 'c', 'd']:
            yield word + ' '

    agent: Agent[Any, str] = Agent(FunctionModel(stream_function=slow), name='slow')
    async with synapse as syn:
        conv = await syn.conversation(agent)
        async with aclosing(conv.stream('go')) as events:
            async for event in events:
                if isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
                    break
        await syn.runtime.chat_service().writes.drain()
        assert conv.id is None  # the stream never finished: the id is in the store, not on conv
    store = opened(database_url)
    try:
        with store.read() as session:
            answer = session.scalars(select(Message).where(Message.role == 'assistant')).one()
    finally:
        store.close()
    assert answer.status == 'interrupted'


async def test_a_failed_run_raises_its_own_error_after_storing_the_card(
    synapse: Synapse, database_url: str
) -> None:
    async def refuse(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        raise ModelHTTPError(429, 'scripted', {'error': 'slow down'})
        yield 'never'

    agent: Agent[Any, str] = Agent(FunctionModel(stream_function=refuse), name='refuser')
    async with synapse as syn:
        conv = await syn.conversation(agent)
        with pytest.raises(ModelHTTPError) as raised:
            await conv.send('hi')
        assert conv.id is not None and conv.id in ' '.join(raised.value.__notes__)
        limited = await syn.conversation(echo_agent()[0], usage_limits=UsageLimits(request_limit=0))
        with pytest.raises(UsageLimitExceeded):
            await limited.send('hi')
    roles = [m.role for m in sorted(rows(database_url, Message, conv.id), key=lambda m: m.id)]
    assert roles == ['user', 'error']
    assert conversation_row(database_url, conv.id).has_error


async def test_attachments_reach_the_agent_and_are_stored(
    synapse: Synapse, database_url: str, tmp_path: Path
) -> None:
    received: list[Any] = []

    async def look(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for message in messages:
            for part in message.parts:
                if isinstance(part, UserPromptPart) and not isinstance(part.content, str):
                    received.extend(c for c in part.content if isinstance(c, BinaryContent))
        yield f'{len(received)} files'

    path = tmp_path / 'notes.txt'
    path.write_text('hello file')
    agent: Agent[Any, str] = Agent(FunctionModel(stream_function=look), name='reader')
    async with synapse as syn:
        conv = await syn.conversation(agent)
        reply = await conv.send(
            'read these',
            attachments=[path, ('data.json', b'{"a": 1}'), BinaryContent(b'png', media_type='image/png')],
        )
    assert reply.output == '3 files'
    assert [c.data for c in received] == [b'hello file', b'{"a": 1}', b'png']
    user = next(m for m in rows(database_url, Message, reply.conversation_id) if m.role == 'user')
    assert [a['name'] for a in user.attachments][:2] == ['notes.txt', 'data.json']


async def test_the_blocking_twin(database_url: str) -> None:
    agent, seen = echo_agent()
    syn = Synapse(database_url=database_url, agents=[])
    try:
        conv = syn.conversation_sync(agent, tenant=FIRM)
        assert conv.send('one').output == 'heard: one'
        events = list(conv.stream('two'))
        assert isinstance(events[-1], AgentRunResultEvent)
        again = syn.conversation_sync(agent, id=conv.id)
        assert again.send('three').output == 'heard: one | two | three'
    finally:
        syn.close_sync()
    assert len(seen) == 3
    assert conversation_row(database_url, conv.id or '').message_count == 6


async def test_a_model_override_and_deps(synapse: Synapse, database_url: str) -> None:
    agent: Agent[str, str] = Agent(deps_type=str, name='greeter')

    @agent.instructions
    def who(ctx: RunContext[str]) -> str:
        return f'Greet {ctx.deps}.'

    async def answer(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield f'hello ({info.instructions})'

    override = FunctionModel(stream_function=answer, model_name='override')
    async with synapse as syn:
        conv = await syn.conversation(agent, model=override, deps='Ada')
        reply = await conv.send('hi')
    assert reply.output == 'hello (Greet Ada.)' and reply.model == 'override'
    (call,) = rows(database_url, LlmCall, reply.conversation_id)
    assert call.model == 'override'
    assert reply.cost is None or isinstance(reply.cost, Decimal)


async def test_leaving_a_blocking_stream_early_stores_the_turn_interrupted(database_url: str) -> None:
    async def slow(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for word in ['a', 'b', 'c', 'd']:
            yield word + ' '
            await anyio.sleep(0.5)  # the run is still going when the reader leaves

    agent: Agent[Any, str] = Agent(FunctionModel(stream_function=slow), name='slow')
    syn = Synapse(database_url=database_url, agents=[])
    try:
        conv = syn.conversation_sync(agent)
        for event in conv.stream('go'):
            if isinstance(event, PartDeltaEvent):
                break
    finally:
        syn.close_sync()  # drains the write queue
    store = opened(database_url)
    try:
        with store.read() as session:
            answer = session.scalars(select(Message).where(Message.role == 'assistant')).one()
    finally:
        store.close()
    assert answer.status == 'interrupted'


async def test_fork_and_re_run_on_another_model(synapse: Synapse, database_url: str) -> None:
    agent, _ = echo_agent()

    async def other(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield 'other model heard: ' + ' | '.join(prompts(messages))

    async with synapse as syn:
        conv = await syn.conversation(agent, tenant=FIRM)
        await conv.send('one')
        second = await conv.send('two')
        with pytest.raises(ValueError, match='not a user message'):
            await conv.fork(second.message_id)  # an answer, not a user message
        fork = await conv.fork(second.user_message_id, model=FunctionModel(stream_function=other))
        assert fork.id != conv.id and fork.scope == conv.scope
        rerun = await fork.send('two, edited')
        with pytest.raises(ConversationNotFound):
            await (await syn.conversation(agent)).fork(second.user_message_id)
    assert rerun.output == 'other model heard: one | two, edited'
    assert rerun.conversation_id == fork.id
    source = conversation_row(database_url, conv.id or '')
    forked = conversation_row(database_url, fork.id or '')
    assert source.message_count == 4 and forked.message_count == 4
    assert forked.forked_from_id == conv.id and forked.forked_at_message_id == second.user_message_id
    assert forked.origin == 'app' and Scope.from_columns(forked).tenant == FIRM
