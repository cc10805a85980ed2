"""Runs nested in a turn (an agent called from a tool, with or without `usage=ctx.usage`, from a sync
tool's thread) are in the ledger and held to the turn's spending limits, on every selected database.

The model boundary is scripted `FunctionModel`s that count the requests they answer; the registry
prices `acme-1` (tests/spending_models.py), so a call of 100 words costs exactly `CALL_COST`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from decimal import Decimal
from typing import Any

import anyio.from_thread
import pytest
from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.settings import ModelSettings
from sqlalchemy import select

from chat_helpers import collect, failure, finished
from spending_models import OUTPUT_TOKENS, PRICED, add_limit, add_price, rows
from synapse_agents.accounting.spend import spend_report
from synapse_agents.accounting.tables import LlmCall, SpendingOverrun, SpendingReservation
from synapse_agents.chat.engine import ChatEngine
from synapse_agents.chat.request import TurnRequest
from synapse_agents.conversations.tables import Conversation, Message
from synapse_agents.scope import Scope
from synapse_agents.settings import Settings
from synapse_agents.store import Store
from synapse_agents.store.write_queue import WriteQueue
from synapse_agents.targets.target import TurnTarget

pytestmark = pytest.mark.anyio

ACME = Scope(tenant=('org', 'acme'), actor=('user', '1'))
SETTINGS: ModelSettings = {'max_tokens': OUTPUT_TOKENS}


@pytest.fixture
def engine(store: Store) -> Iterator[ChatEngine]:
    writes = WriteQueue(store)
    yield ChatEngine(store, writes, Settings())
    writes.close()


def scripted(name: str, calls: list[str], tool: str | None = None) -> FunctionModel:
    """Calls `tool` once (when given), then answers `OUTPUT_TOKENS` words; each request is noted in
    `calls` as `name`."""

    def calling(messages: list[ModelMessage]) -> bool:
        calls.append(name)
        answered = any(isinstance(p, ToolReturnPart) for m in messages for p in m.parts)
        return tool is not None and not answered

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if calling(messages):
            return ModelResponse(parts=[ToolCallPart(str(tool), {'q': 'x'}, tool_call_id=f'call_{tool}')])
        return ModelResponse(parts=[TextPart('tok ' * OUTPUT_TOKENS)])

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        if calling(messages):
            yield {0: DeltaToolCall(tool, json.dumps({'q': 'x'}), tool_call_id=f'call_{tool}')}
            return
        for _ in range(OUTPUT_TOKENS):
            yield 'tok '

    return FunctionModel(reply, stream_function=stream, model_name=name)


def three_levels(calls: list[str], *, top_model: str = PRICED) -> Agent[None, str]:
    """a → ask_b (async, `usage=ctx.usage`) → b → ask_c (sync, in its thread, usage of its own) → c."""
    c: Agent[None, str] = Agent(scripted(PRICED, calls), name='c', model_settings=SETTINGS)
    b: Agent[None, str] = Agent(scripted(PRICED, calls, 'ask_c'), name='b', model_settings=SETTINGS)
    a: Agent[None, str] = Agent(scripted(top_model, calls, 'ask_b'), name='a', model_settings=SETTINGS)

    @b.tool_plain
    def ask_c(q: str) -> str:
        return anyio.from_thread.run(c.run, q).output

    @a.tool
    async def ask_b(ctx: RunContext[None], q: str) -> str:
        return (await b.run(q, usage=ctx.usage)).output

    return a


async def turn(engine: ChatEngine, agent: Agent[Any, Any]) -> tuple[Any, list[Any]]:
    target = TurnTarget.for_agent(agent, slug='a')
    prepared = await engine.prepare(TurnRequest(target, 'Hi', scope=ACME, origin='app'))
    events = await collect(engine.stream(prepared))
    await engine.writes.drain()
    return prepared, events


async def test_every_call_of_a_three_level_delegation_is_a_ledger_row(
    engine: ChatEngine, store: Store
) -> None:
    add_price(store)
    calls: list[str] = []
    prepared, events = await turn(engine, three_levels(calls))
    assert failure(events) is None
    assert len(calls) == 5  # a: 2 requests, b: 2, c: 1
    ledger = rows(store, LlmCall)
    assert len(ledger) == len(calls)
    by_agent: dict[str, list[LlmCall]] = {}
    for row in ledger:
        by_agent.setdefault(row.agent_key or '', []).append(row)
    assert {key: len(found) for key, found in by_agent.items()} == {'a': 2, 'b': 2, 'c': 1}
    (a_run,) = {row.run_id for row in by_agent['a']}
    (b_run,) = {row.run_id for row in by_agent['b']}
    (c_run,) = {row.run_id for row in by_agent['c']}
    assert a_run == prepared.run_id and len({a_run, b_run, c_run}) == 3
    assert {row.parent_run_id for row in by_agent['a']} == {None}
    assert {row.parent_run_id for row in by_agent['b']} == {a_run}
    assert {row.parent_run_id for row in by_agent['c']} == {b_run}
    for row in ledger:
        assert (row.tenant, row.user, row.module) == ('org:acme', 'user:1', 'chat')
        assert row.conversation_id == prepared.conversation_id and row.cost is not None
    assert rows(store, SpendingReservation) == []
    # The spend report sees every call, and the conversation's header is the sum of its answers.
    report = await anyio.to_thread.run_sync(lambda: spend_report(store, Settings(), by='agent'))
    assert report.totals.calls == 5
    with store.read() as session:
        conversation = session.get(Conversation, prepared.conversation_id)
        answers = list(
            session.scalars(select(Message).where(Message.conversation_id == prepared.conversation_id))
        )
    assert conversation is not None
    in_answers = sum(m.input_tokens or 0 for m in answers)
    out_answers = sum(m.output_tokens or 0 for m in answers)
    assert (conversation.input_tokens, conversation.output_tokens) == (in_answers, out_answers)
    assert out_answers == sum(row.output_tokens for row in ledger)
    assert finished(events).cost == sum((row.cost for row in ledger if row.cost is not None), Decimal(0))
    assert conversation.cost == finished(events).cost


async def test_a_limit_the_nested_calls_alone_exceed_stops_them(engine: ChatEngine, store: Store) -> None:
    """The delegating agent's own model has no price: only the nested calls count toward the limit.
    b's first request (0.1 reserved), c's (0.1 more), then b's second would pass 0.15: refused."""
    add_price(store)
    limit = add_limit(store, 'tenant', 'org:acme', '0.15')
    calls: list[str] = []
    _, events = await turn(engine, three_levels(calls, top_model='free-1'))
    refused = failure(events)
    assert refused is not None and refused.exception_class == 'SpendingLimitExceeded'
    assert calls == ['free-1', PRICED, PRICED]  # a's first request, b's first, c's; b's second never ran
    (overrun,) = rows(store, SpendingOverrun)
    assert (overrun.limit_id, overrun.agent_key, overrun.tenant) == (limit.id, 'b', 'org:acme')
    spent = sum((row.cost for row in rows(store, LlmCall) if row.cost is not None), Decimal(0))
    assert spent <= limit.amount
    assert len(rows(store, LlmCall)) == len(calls)
    assert rows(store, SpendingReservation) == []
