"""Synapse records its trace trees beside a project's own pydantic-ai instrumentation, on every
selected database, and the project's exporter keeps receiving its spans.

A project module that configures Logfire (the real `logfire` package, sending nowhere: no Logfire
token, no console, an in-memory exporter as its `additional_span_processors`) and calls
`logfire.instrument_pydantic_ai()` at import; a project that calls `Agent.instrument_all(...)` with a
tracer provider of its own after Synapse already traced a turn; an agent given its own
`agent.instrument = ...` (Logfire's `instrument_pydantic_ai(agent)` does that); a model wrapped in an
`InstrumentedModel`. Each turn runs over HTTP through the in-process app; `GET /api/traces` lists its
root with its model calls and its tool call, and the project's exporter received the same run's
spans. A run started in a tool, and a task queued from one, hang under that tool in Synapse's tree
while the project's spans keep their own parents. Without the hook Synapse needs to instrument an
exported turn, `/api/health` says why nothing is exported.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic_ai import Agent
from pydantic_ai.models.instrumented import InstrumentationSettings
from test_traces_tasks import _dispatcher, _find, _get, _queued, _standing
from test_traces_tasks import _turn as queue_turn

from chat_helpers import agent_catalog, decode
from fixtures.projects import unique_name, write_files
from synapse_agents.conversations.tables import Message
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.tasks import runner
from synapse_agents.tasks.tables import AgentTask

TRACES = '/api/traces'

TOOLING = """
from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel

observed = Agent(TestModel(call_tools=['lookup'], custom_output_text='found it'), name='observed')


@observed.tool_plain
def lookup(what: str) -> str:
    return what + ' is here'
"""

LOGFIRE_PROJECT = (
    """
import logfire
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

exporter = InMemorySpanExporter()
logfire.configure(
    send_to_logfire=False, console=False, additional_span_processors=[SimpleSpanProcessor(exporter)]
)
logfire.instrument_pydantic_ai()
"""
    + TOOLING
)

OWN_SETTINGS_PROJECT = (
    TOOLING
    + """
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic_ai.models.instrumented import InstrumentationSettings

exporter = InMemorySpanExporter()
_provider = TracerProvider()
_provider.add_span_processor(SimpleSpanProcessor(exporter))
own = Agent(TestModel(call_tools=['lookup'], custom_output_text='mine'), name='own')
own.tool_plain(lookup)
own.instrument = InstrumentationSettings(tracer_provider=_provider)
"""
)


@pytest.fixture(autouse=True)
def class_switch_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    """`Agent.instrument_all` is a process-wide switch: each test leaves it as it found it."""
    monkeypatch.setattr(Agent, '_instrument_default', Agent._instrument_default)


def _turn(client: TestClient, context: SynapseContext, slug: str) -> str:
    """One playground turn over HTTP; its assistant message's run id once its rows are written."""
    chunks = decode(client.post(f'/api/agents/{slug}/chat', data={'message': 'where is it?'}).text)
    assert chunks[-1]['type'] == '[DONE]' and not [c for c in chunks if c['type'] == 'error'], chunks
    assert client.portal is not None
    client.portal.call(context.chat_service().writes.drain)
    with context.store.read() as session:
        message = session.get(Message, chunks[0]['messageMetadata']['message_id'])
    assert message is not None and message.run_id is not None
    return message.run_id


def _shape(node: dict[str, Any]) -> tuple[str, str, list[Any]]:
    return (node['kind'], node['name'], [_shape(child) for child in node['children']])


def _recorded(client: TestClient, run_id: str, name: str = 'observed') -> dict[str, Any]:
    """The root Synapse lists for `run_id`, checked to hold its model calls and its tool call."""
    response = client.get(TRACES)
    assert response.status_code == 200, response.text
    listed = {root['agent_run_id']: root for root in response.json()['roots']}
    assert run_id in listed, f'no trace for the turn: {response.json()}'
    root: dict[str, Any] = listed[run_id]
    assert (root['agent_name'], root['model_calls'], root['tool_calls'], root['status']) == (name, 2, 1, 'ok')
    tree = client.get(f'{TRACES}/{run_id}').json()['root']
    assert _shape(tree) == (
        'run',
        name,
        [('model', 'test', []), ('tool', 'lookup', []), ('model', 'test', [])],
    )
    return root


def _operations(spans: tuple[ReadableSpan, ...], run_id: str) -> list[str]:
    """The GenAI operations of the project's spans of run `run_id` (its trace), in end order."""
    (trace_id,) = {
        span.context.trace_id
        for span in spans
        if span.context is not None and (span.attributes or {}).get('gen_ai.agent.call.id') == run_id
    }
    ours = [span for span in spans if span.context is not None and span.context.trace_id == trace_id]
    for span in ours:
        leaked = [key for key in span.attributes or {} if key.startswith('synapse.')]
        assert not leaked, f"Synapse's attributes reached the project's span {span.name}: {leaked}"
    return [str((span.attributes or {}).get('gen_ai.operation.name')) for span in ours]


def test_a_project_that_calls_logfire_instrument_pydantic_ai_keeps_its_spans_and_synapse_its_tree(
    client_for: Callable[..., TestClient], context: SynapseContext, isolated_env: Path
) -> None:
    module = unique_name('logfired')
    write_files(isolated_env, {f'{module}.py': LOGFIRE_PROJECT})
    client = client_for([module], isolated_env)
    run_id = _turn(client, context, f'{module}.observed')

    _recorded(client, run_id)
    exporter: InMemorySpanExporter = sys.modules[module].exporter
    assert _operations(exporter.get_finished_spans(), run_id) == [
        'chat',
        'execute_tool',
        'chat',
        'invoke_agent',
    ]


def test_instrument_all_called_by_the_project_after_synapse_started_leaves_both_working(
    client_for: Callable[..., TestClient], context: SynapseContext, isolated_env: Path
) -> None:
    module = unique_name('late_switch')
    write_files(isolated_env, {f'{module}.py': TOOLING})
    client = client_for([module], isolated_env)
    first = _turn(client, context, f'{module}.observed')
    _recorded(client, first)

    exporter = InMemorySpanExporter()
    own = TracerProvider()
    own.add_span_processor(SimpleSpanProcessor(exporter))
    Agent.instrument_all(InstrumentationSettings(tracer_provider=own))
    second = _turn(client, context, f'{module}.observed')

    _recorded(client, second)
    assert _operations(exporter.get_finished_spans(), second) == [
        'chat',
        'execute_tool',
        'chat',
        'invoke_agent',
    ]
    assert not [
        s for s in exporter.get_finished_spans() if (s.attributes or {}).get('gen_ai.agent.call.id') == first
    ]


def test_an_agent_with_its_own_instrument_setting_is_traced_by_both(
    client_for: Callable[..., TestClient], context: SynapseContext, isolated_env: Path
) -> None:
    module = unique_name('own_setting')
    write_files(isolated_env, {f'{module}.py': OWN_SETTINGS_PROJECT})
    client = client_for([module], isolated_env)
    run_id = _turn(client, context, f'{module}.own')

    _recorded(client, run_id, 'own')
    exporter: InMemorySpanExporter = sys.modules[module].exporter
    assert _operations(exporter.get_finished_spans(), run_id) == [
        'chat',
        'execute_tool',
        'chat',
        'invoke_agent',
    ]


INSTRUMENTED_MODEL_PROJECT = """
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic_ai import Agent
from pydantic_ai.models.instrumented import InstrumentationSettings, InstrumentedModel
from pydantic_ai.models.test import TestModel

exporter = InMemorySpanExporter()
_provider = TracerProvider()
_provider.add_span_processor(SimpleSpanProcessor(exporter))
model = InstrumentedModel(
    TestModel(call_tools=['lookup'], custom_output_text='wrapped'),
    InstrumentationSettings(tracer_provider=_provider),
)
settings = model.instrumentation_settings
wrapped = Agent(model, name='wrapped')


@wrapped.tool_plain
def lookup(what: str) -> str:
    return what + ' is here'
"""


def test_an_agent_whose_model_the_project_instrumented_is_traced_by_both(
    client_for: Callable[..., TestClient], context: SynapseContext, isolated_env: Path
) -> None:
    """`logfire.instrument_pydantic_ai(model)` hands the agent an `InstrumentedModel`."""
    module = unique_name('wrapped_model')
    write_files(isolated_env, {f'{module}.py': INSTRUMENTED_MODEL_PROJECT})
    client = client_for([module], isolated_env)
    run_id = _turn(client, context, f'{module}.wrapped')

    _recorded(client, run_id, 'wrapped')
    project = sys.modules[module]
    assert _operations(project.exporter.get_finished_spans(), run_id) == [
        'chat',
        'execute_tool',
        'chat',
        'invoke_agent',
    ]
    assert project.model.instrumentation_settings is project.settings


DELEGATING_PROJECT = """
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic_ai import Agent
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.models.test import TestModel

exporter = InMemorySpanExporter()
_provider = TracerProvider()
_provider.add_span_processor(SimpleSpanProcessor(exporter))
Agent.instrument_all(InstrumentationSettings(tracer_provider=_provider))

helper = Agent(TestModel(custom_output_text='helped'), name='helper')
lead = Agent(TestModel(call_tools=['ask_helper'], custom_output_text='done'), name='lead')


@lead.tool_plain
async def ask_helper(q: str) -> str:
    return (await helper.run(q)).output
"""


def test_a_run_nested_in_a_tool_hangs_under_it_in_both_trees(
    client_for: Callable[..., TestClient], context: SynapseContext, isolated_env: Path
) -> None:
    module = unique_name('delegating')
    write_files(isolated_env, {f'{module}.py': DELEGATING_PROJECT})
    client = client_for([module], isolated_env)
    run_id = _turn(client, context, f'{module}.lead')

    tree = client.get(f'{TRACES}/{run_id}').json()['root']
    assert _shape(tree) == (
        'run',
        'lead',
        [
            ('model', 'test', []),
            ('tool', 'ask_helper', [('run', 'helper', [('model', 'test', [])])]),
            ('model', 'test', []),
        ],
    )
    helper = tree['children'][1]['children'][0]
    assert (helper['depth'], helper['parent_run_id'], helper['trace_id']) == (1, run_id, tree['trace_id'])

    spans = sys.modules[module].exporter.get_finished_spans()
    assert len(_operations(spans, run_id)) == 6
    by_id = {span.context.span_id: span for span in spans if span.context is not None}
    (nested,) = [
        span
        for span in spans
        if (span.attributes or {}).get('gen_ai.agent.name') == 'helper'
        and (span.attributes or {}).get('gen_ai.operation.name') == 'invoke_agent'
    ]
    assert nested.parent is not None
    tool = by_id[nested.parent.span_id]
    assert (tool.attributes or {}).get('gen_ai.tool.name') == 'ask_helper'
    assert tool.parent is not None
    assert (by_id[tool.parent.span_id].attributes or {}).get('gen_ai.agent.call.id') == run_id


def test_a_task_queued_from_a_tool_hangs_under_it_beside_the_apps_instrumentation(
    client: TestClient, context: SynapseContext
) -> None:
    context.catalog = agent_catalog()
    own = TracerProvider()
    exporter = InMemorySpanExporter()
    own.add_span_processor(SimpleSpanProcessor(exporter))
    Agent.instrument_all(InstrumentationSettings(tracer_provider=own))
    _standing(client)
    outer = queue_turn(client, context, _dispatcher(context))
    task = _queued(context)
    assert client.portal is not None
    client.portal.call(runner.run_task, context, task.id, 'test-worker')
    with context.store.read() as session:
        ran = session.get(AgentTask, task.id)
        assert ran is not None and ran.status == 'succeeded', ran and ran.error

    root = _get(client, f'{TRACES}/{outer.run_id}')['root']
    tool = _find(root, 'tool', 'queue_followup')
    (child,) = [node for node in tool['children'] if node['kind'] == 'run']
    assert (child['agent_run_id'], child['depth'], child['trace_id']) == (ran.run_id, 1, root['trace_id'])
    assert {'invoke_agent', 'execute_tool'} <= set(_operations(exporter.get_finished_spans(), outer.run_id))


def test_health_says_why_nothing_is_exported_when_pydantic_ai_lacks_the_hook(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert [d for d in client.get('/api/health').json()['degraded'] if d['feature'] == 'traces'] == []

    monkeypatch.delattr(Agent, '_resolve_instrumentation_settings')
    (entry,) = [d for d in client.get('/api/health').json()['degraded'] if d['feature'] == 'traces']
    assert entry['missing'] == 'pydantic_ai.Agent._resolve_instrumentation_settings'
    assert 'nothing is exported' in entry['lost']
