"""A database error never carries its SQL or its parameters out of the store: the error card of a
turn (streamed and stored), the tool row and the error of a turn the store could not write keep
the driver's one-line message, on every selected database.

The failures are real: a connection PostgreSQL terminates under a running query, a table that does
not exist, and a store that refuses writes (tests/store_faults.py)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from sqlalchemy import text

from chat_helpers import collect, failure
from spending_models import rows
from store_faults import StoreFault
from synapse_agents.chat.engine import ChatEngine
from synapse_agents.chat.request import TurnRequest
from synapse_agents.conversations.tables import Message, ToolInvocation
from synapse_agents.events import TurnFailed
from synapse_agents.settings import Settings
from synapse_agents.store import Store
from synapse_agents.store.write_queue import WriteQueue
from synapse_agents.targets.target import TurnTarget

pytestmark = pytest.mark.anyio

PARAMETER = 'parameter-9f3a-of-another-tenant'
PROMPT = 'prompt-77c1 words only its author should see'
MISSING = 'SELECT * FROM synapse_no_such_table WHERE note = :note'
KILLED = 'SELECT pg_terminate_backend(pg_backend_pid()) WHERE :note = :note'


@pytest.fixture
def engine(store: Store) -> Iterator[ChatEngine]:
    writes = WriteQueue(store)
    yield ChatEngine(store, writes, Settings())
    writes.close()


def querying_agent(store: Store, statement: str) -> Agent[None, str]:
    """An agent whose model calls `lookup` once; the tool runs `statement` on the store's engine."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        yield {0: DeltaToolCall(name='lookup', json_args='{}', tool_call_id='call_lookup')}

    agent = Agent(FunctionModel(stream_function=stream, model_name='scripted'), name='querying')

    @agent.tool_plain
    def lookup() -> str:
        with store.engine.connect() as connection:
            connection.execute(text(statement), {'note': PARAMETER})
        return 'found'

    return agent


async def turn(engine: ChatEngine, agent: Agent[None, str]) -> TurnFailed:
    target = TurnTarget.for_agent(agent, slug='querying')
    prepared = await engine.prepare(TurnRequest(target, PROMPT, origin='app'))
    events = await collect(engine.stream(prepared))
    await engine.writes.drain()
    card = failure(events)
    assert card is not None, 'the turn did not fail'
    return card


def assert_no_sql(*texts: str) -> None:
    for found in texts:
        for leak in (
            '[SQL',
            '[parameters',
            'LINE 1',
            'DETAIL',
            'SELECT * FROM',
            'pg_terminate_backend',
            'INSERT INTO',
            PARAMETER,
            'prompt-77c1',
        ):
            assert leak not in found, f'{leak!r} in {found!r}'


def statements(store: Store) -> list[tuple[str, str]]:
    """(statement, what the driver says) for each failure the dialect can give."""
    if store.dialect == 'sqlite':
        return [(MISSING, 'no such table: synapse_no_such_table')]
    return [
        (MISSING, 'relation "synapse_no_such_table" does not exist'),
        (KILLED, 'terminating connection due to administrator command'),
    ]


async def test_a_database_error_in_a_run_keeps_the_driver_line_and_no_sql(
    engine: ChatEngine, store: Store
) -> None:
    for statement, said in statements(store):
        card = await turn(engine, querying_agent(store, statement))
        assert card.exception_class in {'OperationalError', 'ProgrammingError'}
        assert said in card.message and '\n' not in card.message
        assert said in card.traceback
        payload = json.dumps(card.payload())
        (error,) = [m for m in rows(store, Message) if m.role == 'error' and said in m.content]
        (tool,) = [t for t in rows(store, ToolInvocation) if t.error and said in t.error]
        assert_no_sql(
            card.message, card.traceback, payload, error.content, json.dumps(error.details), tool.error
        )


async def test_a_turn_the_store_cannot_write_shows_no_sql(engine: ChatEngine, store: Store) -> None:
    fault = StoreFault(store)
    fault.fail()
    try:
        card = await turn(engine, querying_agent(store, MISSING))
    finally:
        fault.heal()
    assert card.exception_class == 'TurnNotSaved'
    assert card.message.startswith('This turn could not be saved: ') and fault.cause in card.message
    assert '(the run had failed: ' in card.message and '\n' not in card.message
    assert_no_sql(card.message, card.traceback, json.dumps(card.payload()))
