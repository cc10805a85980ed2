"""Tool calls that wait for a person, through the Python API: `reply.awaiting`, `pending()`,
`decide()`, the refusals, and a resumed run that fails giving its calls back (SQLite and PostgreSQL)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent, CallDeferred, DeferredToolRequests
from pydantic_ai.messages import ModelMessage, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from sqlalchemy import select

from synapse_agents import (
    ApprovalPending,
    Decision,
    DecisionsInvalid,
    NotAwaiting,
    PausedCall,
    Synapse,
)
from synapse_agents.conversations.tables import Message, ToolInvocation
from synapse_agents.store import Store

pytestmark = pytest.mark.anyio


def ops_agent(failures: list[str]) -> tuple[Agent[Any, Any], list[str]]:
    """Calls `wipe` (needs approval) and `ask` (it raises `CallDeferred`); each entry of `failures`
    makes the model fail once after the tools ran."""
    ran: list[str] = []

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        returns = [p for p in messages[-1].parts if isinstance(p, ToolReturnPart)]
        if returns:
            if failures:
                raise ConnectionError(failures.pop())
            yield ' / '.join(f'{p.tool_name}: {p.content}' for p in returns)
            return
        yield {0: DeltaToolCall(name='wipe', json_args='{"disk": "d1"}', tool_call_id='w1')}
        yield {1: DeltaToolCall(name='ask', json_args='{"q": "ok?"}', tool_call_id='a1')}

    agent: Agent[Any, Any] = Agent(
        FunctionModel(stream_function=stream, model_name='ops-model'),
        name='ops',
        output_type=[str, DeferredToolRequests],
    )

    @agent.tool_plain(requires_approval=True)
    def wipe(disk: str) -> str:
        ran.append(disk)
        return f'wiped {disk}'

    @agent.tool_plain
    def ask(q: str) -> str:
        raise CallDeferred

    return agent, ran


def statuses(database_url: str, conversation_id: str) -> list[tuple[str, str]]:
    store = Store.open(database_url, Path('unused'))  # only rows are read here
    try:
        with store.read() as session:
            rows = session.execute(
                select(ToolInvocation.tool_call_id, ToolInvocation.status, ToolInvocation.message_id)
                .where(ToolInvocation.conversation_id == conversation_id)
                .order_by(ToolInvocation.started_at, ToolInvocation.id)
            ).all()
            messages = (
                session.execute(
                    select(Message.id).where(Message.conversation_id == conversation_id).order_by(Message.id)
                )
                .scalars()
                .all()
            )
    finally:
        store.close()
    order: dict[str | None, int] = {message_id: index for index, message_id in enumerate(messages)}
    return sorted((f'{call}@{order[message]}', status) for call, status, message in rows)


async def test_a_paused_reply_is_decided_and_the_conversation_goes_on(database_url: str) -> None:
    agent, ran = ops_agent([])
    async with Synapse(database_url=database_url, agents=[]) as syn:
        conv = await syn.conversation(agent)
        reply = await conv.send('clean up')
        assert isinstance(reply.output, DeferredToolRequests)
        assert reply.awaiting == [
            PausedCall('w1', 'wipe', {'disk': 'd1'}, 'approval'),
            PausedCall('a1', 'ask', {'q': 'ok?'}, 'external'),
        ]
        assert await conv.pending() == reply.awaiting
        with pytest.raises(ApprovalPending, match=r'wipe \(w1\)'):
            await conv.send('and now?')
        with pytest.raises(DecisionsInvalid, match='missing: ask'):
            await conv.decide({'w1': True})
        assert ran == []
        resumed = await conv.decide({'w1': True, 'a1': Decision(result='yes', has_result=True)})
        assert resumed.output == 'wipe: wiped d1 / ask: yes' and resumed.awaiting == []
        assert ran == ['d1']
        assert await conv.pending() == []
        with pytest.raises(NotAwaiting):
            await conv.decide({'w1': True})
        later = await conv.send('thanks')
        assert later.conversation_id == reply.conversation_id
    assert conv.id is not None
    assert statuses(database_url, conv.id) == [
        ('a1@1', 'success'),
        ('a1@5', 'awaiting'),  # 'thanks' made the model ask again
        ('w1@1', 'approved'),
        ('w1@3', 'success'),  # the approved call's execution, in the turn that resumed the run
        ('w1@5', 'awaiting'),
    ]


async def test_a_denial_reaches_the_model_with_its_reason(database_url: str) -> None:
    agent, ran = ops_agent([])
    async with Synapse(database_url=database_url, agents=[]) as syn:
        conv = await syn.conversation(agent)
        await conv.send('clean up')
        reply = await conv.decide(
            {'w1': Decision(approved=False, reason='not that disk'), 'a1': {'result': {'ok': False}}}
        )
    assert reply.output == "wipe: not that disk / ask: {'ok': False}"
    assert ran == []


async def test_a_resumed_run_that_fails_gives_its_calls_back(database_url: str) -> None:
    agent, ran = ops_agent(['provider down'])
    async with Synapse(database_url=database_url, agents=[]) as syn:
        conv = await syn.conversation(agent)
        await conv.send('clean up')
        with pytest.raises(ConnectionError, match='provider down'):
            await conv.decide({'w1': True, 'a1': {'result': 'yes'}})
        waiting = await conv.pending()
        assert [call.tool_call_id for call in waiting] == ['w1', 'a1']  # they wait again
        reply = await conv.decide({'w1': True, 'a1': {'result': 'yes'}})
        assert reply.output == 'wipe: wiped d1 / ask: yes'
    # The failed turn's execution of the approved call is kept with that turn; it ran twice.
    assert ran == ['d1', 'd1']
    assert conv.id is not None
    assert statuses(database_url, conv.id) == [
        ('a1@1', 'success'),
        ('w1@1', 'approved'),
        ('w1@3', 'success'),  # the failed turn's execution
        ('w1@6', 'success'),
    ]
