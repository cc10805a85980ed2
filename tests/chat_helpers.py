"""Helpers for the chat tests: the catalog of test and demo agents, a turn's events, a stream decoder.

The agents are real: `chat_agents` (tests/chat_agents.py, scripted `FunctionModel` agents) and the
demo agents, found by discovery's own `Catalog` with the slugs it gives them.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

from pydantic_ai.messages import (
    FunctionToolResultEvent,
    PartDeltaEvent,
    PartStartEvent,
    RetryPromptPart,
    TextPart,
    TextPartDelta,
    ToolReturnPart,
)
from sqlalchemy import update

from synapse_agents.accounting.ledger_writes import record_llm_call
from synapse_agents.conversations.tables import Conversation
from synapse_agents.conversations.turn_writes import (
    ErrorRecord,
    TurnEnd,
    TurnStart,
    begin_turn,
    end_turn,
    tool_started,
)
from synapse_agents.discovery import Catalog, DiscoveredAgent
from synapse_agents.events import TurnFailed, TurnFinished
from synapse_agents.store import Store
from synapse_agents.store.ids import new_id
from synapse_agents.targets.target import TurnTarget
from synapse_agents.web.server import DEMO_TARGET

# In-process clients talk to a loopback host name, as a browser on this machine would.
LOCAL_URL = 'http://localhost'
LOCAL_PEER = ('127.0.0.1', 50000)
"""The client address in-process test clients report: a connection from this machine."""

AGENT_TARGETS = ['chat_agents', DEMO_TARGET]
"""What `agent_catalog()` discovers: the test agents and the demo agents."""

DEMO = 'synapse_agents.demo.agents.'
"""The slug prefix of the demo agents (`DEMO + 'support-agent'`)."""


@cache
def agent_catalog() -> Catalog:
    """One catalog of the test and demo agents for the session (a warm scan costs a few `stat`s).

    It fails at once when `chat_agents` has a problem, instead of leaving a test to find a 404.
    """
    catalog = Catalog(AGENT_TARGETS, Path(__file__).parent)
    problems = catalog.scan().problems
    assert not problems, [f'{p.kind}: {p.message}' for p in problems]
    return catalog


def discovered(slug: str) -> DiscoveredAgent:
    """The discovered agent with this slug."""
    found = agent_catalog().scan().get(slug)
    assert found is not None, f'discovery found no agent {slug!r}'
    return found


def turn_target(slug: str) -> TurnTarget:
    """What the chat route hands the engine for this agent."""
    return TurnTarget.from_discovered(discovered(slug))


# -- stored conversations ------------------------------------------------------------------


def seed_conversation(
    store: Store,
    *,
    agent: str = 'app.support',
    title: str = 'Hello',
    answer: str = 'Answer',
    tools: tuple[str, ...] = (),
    error: bool = False,
    updated: datetime | None = None,
    tokens: tuple[int, int] = (10, 5),
    cost: float | None = None,
) -> str:
    """A finished one-turn conversation, written by the store's own turn writes (no model run)."""
    conversation_id, assistant_id, run_id = new_id(), new_id(), new_id()
    with store.write() as session:
        start = TurnStart(
            conversation_id, True, agent, agent.split('.')[-1], run_id, new_id(), assistant_id, title
        )
        begin_turn(start)(session.connection())
        for name in tools:
            row = {
                'id': new_id(),
                'conversation_id': conversation_id,
                'message_id': assistant_id,
                'run_id': run_id,
                'tool_call_id': new_id(),
                'kind': 'function',
                'name': name,
                'arguments': {'q': 'x' * 10},
                'result': {'ok': True},
                'status': 'success',
                'started_at': datetime.now(UTC),
            }
            tool_started(row)(session.connection())
        ledger = {
            'id': new_id(),
            'run_id': run_id,
            'conversation_id': conversation_id,
            'module': 'chat',
            'agent_key': agent,
            'provider': 'p',
            'model': 'm',
            'input_tokens': tokens[0],
            'output_tokens': tokens[1],
            'cache_read_tokens': 0,
            'cache_write_tokens': 0,
            'reasoning_tokens': 0,
            'cost': cost,
            'currency': 'USD' if cost is not None else None,
            'price_source': None,
            'duration_ms': 12,
            'created_at': datetime.now(UTC),
        }
        record_llm_call(ledger)(session.connection())  # the totals end_turn sets come from the ledger
        record = ErrorRecord(new_id(), 'RuntimeError', 'boom', 'Traceback ...', False) if error else None
        parts: list[dict[str, Any]] = [{'type': 'text', 'text': answer}]
        end = TurnEnd(
            assistant_id,
            conversation_id,
            'complete',
            answer,
            parts,
            [],
            {},
            tokens[0],
            tokens[1],
            None if cost is None else Decimal(repr(cost)),
            12,
            {'model': 'm', 'provider': 'p'},
            error=record,
            tool_count=len(tools),
        )
        end_turn(end)(session.connection())
        if updated is not None:
            session.execute(
                update(Conversation).where(Conversation.id == conversation_id).values(updated_at=updated)
            )
    return conversation_id


# -- turn events ---------------------------------------------------------------------------


async def collect(events: AsyncIterator[Any]) -> list[Any]:
    """Every event of a turn (`ChatEngine.stream`), in order."""
    return [event async for event in events]


def finished(events: list[Any]) -> TurnFinished:
    """The turn's `TurnFinished`, which is always its last event."""
    last = events[-1]
    assert isinstance(last, TurnFinished), last
    return last


def failure(events: list[Any]) -> TurnFailed | None:
    """The turn's `TurnFailed` (None when it did not fail)."""
    return next((e for e in events if isinstance(e, TurnFailed)), None)


def answer_text(events: list[Any]) -> str:
    """The text the model streamed (text part starts and deltas)."""
    text = ''
    for event in events:
        if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
            text += event.part.content
        elif isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
            text += event.delta.content_delta
    return text


def tool_results(events: list[Any]) -> list[ToolReturnPart | RetryPromptPart]:
    """The results of the function tool calls (a retry prompt for a retried call), in order."""
    return [e.part for e in events if isinstance(e, FunctionToolResultEvent)]


# -- decoding ------------------------------------------------------------------------------

_ID_LIKE = re.compile(r'^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')


def decode(sse: str) -> list[dict[str, Any]]:
    """The chunks of a UI message stream (`[DONE]` becomes `{"type": "[DONE]"}`)."""
    chunks: list[dict[str, Any]] = []
    for event in sse.split('\n\n'):
        if not event.strip():
            continue
        assert event.startswith('data: '), event
        body = event[len('data: ') :]
        chunks.append({'type': '[DONE]'} if body == '[DONE]' else json.loads(body))
    return chunks


def iter_chunks(response: Any) -> Iterator[tuple[float, dict[str, Any]]]:
    """The chunks of a streaming `httpx` response as they arrive, each with the time it was read
    (`[DONE]` becomes `{"type": "[DONE]"}`)."""
    buffer = ''
    for text in response.iter_text():
        buffer += text
        while '\n\n' in buffer:
            event, buffer = buffer.split('\n\n', 1)
            body = event.removeprefix('data: ')
            yield time.time(), {'type': '[DONE]'} if body == '[DONE]' else json.loads(body)


def types(chunks: list[dict[str, Any]]) -> list[str]:
    return [c['type'] for c in chunks]


def anonymise(value: Any) -> Any:
    """Replace ids, timings and tracebacks with placeholders, for snapshot comparison."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key in ('duration_ms',) and item is not None:
                out[key] = '<ms>'
            elif key == 'traceback':
                out[key] = '<traceback>'
            elif key in ('id', 'toolCallId', 'messageId', 'tool_call_id') and isinstance(item, str):
                out[key] = '<id>'
            else:
                out[key] = anonymise(item)
        return out
    if isinstance(value, list):
        return [anonymise(item) for item in value]
    if isinstance(value, str) and _ID_LIKE.match(value):
        return '<uuid>'
    return value
