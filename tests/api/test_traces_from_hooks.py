"""A turn that is stored and not exported is traced from capability hooks, with no OpenTelemetry
span opened, and its stored tree is the one an instrumented turn stores, on every selected database.

Each agent below runs twice through the Python API: once with nothing exported (the trace comes from
`traces.hooks`) and once exporting to an endpoint whose exporter is in memory (pydantic-ai's spans,
`traces.processor`). The two stored trees must be the same row for row, ids and times aside: runs,
model calls with their debug logs (request, response, usage, history, turns, parameters), tool calls
with their arguments and results, nested runs, errors; with bodies kept (`debug`) and without.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
import zlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic_ai import Agent, ModelRetry, RunContext
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.models.test import TestModel
from sqlalchemy import select

from fixtures.synapses import ENDPOINT
from synapse_agents import Synapse
from synapse_agents.discovery import _pydantic_ai_internals as internals
from synapse_agents.discovery import degraded_features
from synapse_agents.store import Store
from synapse_agents.traces import hooks, provider
from synapse_agents.traces.tables import DebugLog, TraceRun, TraceTool

_GENERATED_ID = re.compile(r'pyd_ai_[0-9a-f]{32}')
"""A tool call id pydantic-ai made up (each run its own)."""
VARIES = {
    'id',
    'agent_run_id',
    'parent_run_id',
    'root_run_id',
    'conversation_id',
    'message_id',
    'trace_id',
    'span_id',
    'parent_span_id',
    'tool_call_id',
    'started_at',
    'finished_at',
    'created_at',
    'duration_ms',
    'data',
    'data_bytes',
}


def _helper() -> Agent[None, str]:
    return Agent(TestModel(custom_output_text='helped'), name='helper')


def _delegating() -> Agent[None, str]:
    """Calls a tool that runs another agent, then a tool that fails, then answers."""
    helper = _helper()
    agent: Agent[None, str] = Agent(
        TestModel(call_tools=['ask_helper', 'broken'], custom_output_text='done'), name='delegating'
    )

    @agent.tool
    async def ask_helper(ctx: RunContext[None], question: str) -> str:
        return (await helper.run(question)).output

    tries: list[str] = []

    @agent.tool_plain
    def broken(what: str) -> str:
        tries.append(what)
        if len(tries) == 1:
            raise ModelRetry(f'no such thing as {what}')
        return 'fixed'

    return agent


def _streaming() -> Agent[None, str]:
    """Streams a tool call with arguments that fail validation, then one that works, then text."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        returns = [
            p
            for m in messages
            for p in m.parts
            if getattr(p, 'part_kind', '') in ('tool-return', 'retry-prompt')
        ]
        if not returns:
            yield {0: DeltaToolCall(name='search', json_args='{"limit": "many"}', tool_call_id='a')}
        elif len(returns) == 1:
            yield {0: DeltaToolCall(name='search', json_args='{"limit": 2}', tool_call_id='b')}
        else:
            for word in ('two', 'found'):
                yield word + ' '

    def once(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart('ok')])

    agent: Agent[None, str] = Agent(
        FunctionModel(once, stream_function=stream, model_name='scripted'),
        name='streaming',
        instructions='Be brief.',
    )

    @agent.tool_plain
    def search(limit: int) -> list[dict[str, Any]]:
        return [{'id': n} for n in range(limit)]

    return agent


def _failing() -> Agent[None, str]:
    """Calls a tool, then its provider answers 429."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise AssertionError('streamed only')

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[DeltaToolCalls]:
        if len(messages) > 1:
            raise ModelHTTPError(429, 'limited-model', {'error': 'rate limit reached'})
        yield {0: DeltaToolCall(name='noop', json_args='{}', tool_call_id='n')}

    model = FunctionModel(respond, stream_function=stream, model_name='limited-model')
    agent: Agent[None, str] = Agent(model, name='failing')

    @agent.tool_plain
    def noop() -> str:
        return 'nothing'

    return agent


def _tree(store: Store, run_id: str) -> list[tuple[str, str]]:
    """The stored tree of run `run_id`, each row as sorted JSON without what differs between runs."""
    rows: list[tuple[str, str]] = []
    with store.read() as session:
        for table in (TraceRun, DebugLog, TraceTool):
            for row in session.scalars(select(table).where(table.root_run_id == run_id)).all():
                values = {c.key: getattr(row, c.key) for c in table.__table__.columns}
                if values.get('data'):
                    values['body'] = json.loads(zlib.decompress(values['data']))
                kept = {k: v for k, v in values.items() if k not in VARIES}
                text = json.dumps(kept, sort_keys=True, default=str)
                rows.append((table.__tablename__, _GENERATED_ID.sub('pyd_ai_<id>', text)))
    return sorted(rows)


def _turn(syn: Synapse, agent: Agent[None, str], store: Store) -> str:
    """The run id of one turn of `agent` (its trace written: `syn` is closed)."""
    conversation = syn.conversation_sync(agent, origin='app')
    try:
        run_id: str | None = conversation.send('look it up').run_id
    except Exception:  # the failing agent's turn: its trace is stored all the same
        run_id = None
    syn.close_sync()
    with store.read() as session:
        newest = select(TraceRun.agent_run_id).where(TraceRun.depth == 0).order_by(TraceRun.started_at.desc())
        found = session.scalars(newest).first()
    assert found is not None and run_id in (None, found)
    return found


@pytest.mark.parametrize('debug', [False, True], ids=['tree', 'bodies'])
@pytest.mark.parametrize('make', [_delegating, _streaming, _failing], ids=['nested', 'streamed', 'failing'])
def test_a_turn_traced_from_hooks_stores_what_its_spans_would(
    synapse_of: Callable[..., Synapse],
    exported: InMemorySpanExporter,
    store: Store,
    make: Callable[[], Agent[None, str]],
    debug: bool,
) -> None:
    from_hooks = _turn(synapse_of(debug=debug), make(), store)
    assert not exported.get_finished_spans(), 'a turn that is not exported opened spans'

    from_spans = _turn(synapse_of(debug=debug, otel_endpoint=ENDPOINT), make(), store)
    provider.flush()
    assert exported.get_finished_spans(), 'the exported turn was not instrumented'

    hooked_tree, span_tree = _tree(store, from_hooks), _tree(store, from_spans)
    assert len(hooked_tree) >= 3
    for (table, hooked), (_, spanned) in zip(hooked_tree, span_tree, strict=True):
        assert json.loads(hooked) == json.loads(spanned), table


def test_without_the_helpers_a_turn_is_traced_through_spans(
    synapse_of: Callable[..., Synapse], store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pydantic-ai that renamed one of its span attribute helpers: turns are instrumented again,
    the tree is stored all the same, and the health report says what was lost."""
    module = importlib.import_module('pydantic_ai._instrumentation')
    name = 'response_attributes'

    def hidden(holder: Any) -> Any:
        if str(sys._getframe(1).f_globals.get('__name__', '')).startswith('synapse_agents'):
            raise AttributeError(name)
        return holder.__dict__[name]

    monkeypatch.setattr(module, '__class__', type('Renamed', (type(module),), {name: property(hidden)}))
    internals.reset()
    try:
        assert not hooks.available()
        tree = _tree(store, _turn(synapse_of(), _delegating(), store))
        (feature,) = [f for f in degraded_features() if f.feature == 'trace trees from hooks']
        assert feature.missing == f'pydantic_ai._instrumentation.{name}'
    finally:
        monkeypatch.undo()
        internals.reset()
    assert [table for table, _ in tree].count('trace_runs') == 2  # the turn's run and the helper's
    assert [table for table, _ in tree].count('trace_tools') == 3
    assert hooks.available()
