"""Every turn records its trace tree, and a failed model call is an error, on every selected
database.

An app conversation (the Python API) and a task run each leave a root in `GET /api/traces` with its
runs, model calls, tool calls, tokens and timings by default; the bodies (a debug log's request and
response payloads, a run's output, a tool's arguments and result) are kept only when a setting says
so (`debug`). A model call that fails (a 429, a 500, a connection error) is marked as an error in
the debug log, on the run, and on the exported `chat` span.
"""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelAPIError, ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from chat_helpers import agent_catalog
from fixtures.synapses import ENDPOINT
from synapse_agents import Synapse
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.settings import LoadedSettings, load_settings
from synapse_agents.store import Store
from synapse_agents.tasks import events, runner
from synapse_agents.tasks.tables import AgentTask
from synapse_agents.traces import processor as processor_module
from synapse_agents.traces import provider
from synapse_agents.traces import rows as rows_module

TRACES = '/api/traces'
EVENT = 'every.turn'
SUMMARISER = 'synapse_agents.demo.agents.summariser'


def _tooling(name: str) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(
        TestModel(call_tools=['lookup'], custom_output_text='found it'), name=name
    )

    @agent.tool_plain
    def lookup(what: str) -> str:
        return f'secret-ish result for {what}'

    return agent


def _get(client: TestClient, path: str, **params: Any) -> Any:
    response = client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def _calls(node: dict[str, Any]) -> list[dict[str, Any]]:
    found = [node] if node['kind'] != 'run' else []
    for child in node['children']:
        found.extend(_calls(child))
    return found


# -- item: every origin records its tree ---------------------------------------------------


@pytest.mark.parametrize('debug', [False, True], ids=['default', 'debug'])
def test_an_app_turn_records_its_tree_and_its_bodies_only_with_debug(
    client: TestClient, synapse_of: Callable[..., Synapse], debug: bool
) -> None:
    syn = synapse_of(debug=debug)
    reply = syn.conversation_sync(_tooling('app-agent'), origin='app').send('find the thing')
    syn.close_sync()

    (root,) = _get(client, TRACES)['roots']
    assert root['agent_run_id'] == reply.run_id and root['module'] == 'chat'
    assert root['status'] == 'ok' and root['input_tokens'] > 0 and root['model_calls'] == 2
    tree = _get(client, f'{TRACES}/{reply.run_id}')['root']
    assert [n['kind'] for n in tree['children']] == ['model', 'tool', 'model']
    tool = tree['children'][1]
    assert tool['name'] == 'lookup' and tool['status'] == 'ok'
    detail = _get(client, f'{TRACES}/calls/{tree["children"][0]["id"]}')
    assert detail['input_tokens'] > 0 and detail['action'] == 'chat_turn'
    data = detail['data']
    if debug:
        assert data['history'][-1]['parts'][0]['content'] == 'find the thing'
        assert 'secret-ish result' in str(tool['result']) and tree['output'] == 'found it'
    else:
        assert not {'history', 'turns', 'parameters', 'instructions', 'tool_definitions'} & set(data)
        assert 'find the thing' not in str(detail) and 'found it' not in str(tree)
        assert tool['arguments'] is None and tool['result'] is None and tree['output'] is None


def test_trace_rows_are_built_by_the_writer_thread_never_on_the_event_loop(
    client: TestClient, synapse_of: Callable[..., Synapse], monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[tuple[str, str]] = []
    for name in ('debug_log_row', 'tool_row', 'run_row'):
        original = getattr(processor_module, name)

        def spy(*args: Any, _name: str = name, _original: Any = original, **kwargs: Any) -> Any:
            built.append((_name, threading.current_thread().name))
            return _original(*args, **kwargs)

        monkeypatch.setattr(processor_module, name, spy)
    syn = synapse_of(debug=True)
    reply = syn.conversation_sync(_tooling('app-agent'), origin='app').send('find the thing')
    syn.close_sync()

    assert sorted(built) == [
        ('debug_log_row', 'synapse-writer'),
        ('debug_log_row', 'synapse-writer'),
        ('run_row', 'synapse-writer'),
        ('tool_row', 'synapse-writer'),
    ]
    tree = _get(client, f'{TRACES}/{reply.run_id}')['root']
    assert [n['kind'] for n in tree['children']] == ['model', 'tool', 'model']


@pytest.mark.parametrize('debug', [False, True], ids=['default', 'debug'])
def test_spans_carry_the_contents_only_when_the_bodies_are_kept(
    client: TestClient, synapse_of: Callable[..., Synapse], monkeypatch: pytest.MonkeyPatch, debug: bool
) -> None:
    seen: list[str] = []
    original = rows_module.debug_log_row

    def spy(span: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(str(span.attributes))
        return original(span, *args, **kwargs)

    monkeypatch.setattr(processor_module, 'debug_log_row', spy)
    syn = synapse_of(debug=debug)
    syn.conversation_sync(_tooling('app-agent'), origin='app').send('find the thing')
    syn.close_sync()

    assert len(seen) == 2 and all('gen_ai.output.messages' in attributes for attributes in seen)
    assert all(('find the thing' in attributes) is debug for attributes in seen)


@pytest.fixture(params=[False, True], ids=['default', 'debug'])
def debug(request: pytest.FixtureRequest) -> bool:
    value: bool = request.param
    return value


@pytest.fixture
def settings(store: Store, monkeypatch: pytest.MonkeyPatch, debug: bool) -> LoadedSettings:
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
    return load_settings({'debug': debug})


@pytest.fixture
def task_context(context: SynapseContext) -> SynapseContext:
    context.catalog = agent_catalog()
    return context


def test_a_task_run_records_its_tree_and_its_bodies_only_with_debug(
    client: TestClient, task_context: SynapseContext, debug: bool
) -> None:
    context = task_context
    body = {'name': 'Every turn', 'agent': SUMMARISER, 'instruction': 'Summarise.', 'events': [EVENT]}
    assert client.post('/api/standing-agents', json=body).status_code == 201
    [task_id] = events.fire(context.store, EVENT).queued
    assert client.portal is not None
    client.portal.call(runner.run_task, context, task_id, 'test-worker')
    with context.store.read() as session:
        task = session.get(AgentTask, task_id)
        assert task is not None and task.status == 'succeeded', task and task.error
        run_id = task.run_id

    deadline = time.monotonic() + 5
    while not (roots := _get(client, TRACES)['roots']) and time.monotonic() < deadline:
        time.sleep(0.05)
    (root,) = roots
    assert root['agent_run_id'] == run_id and root['module'] == 'task' and root['agent_key'] == SUMMARISER
    tree = _get(client, f'{TRACES}/{run_id}')['root']
    (call, *_) = [n for n in _calls(tree) if n['kind'] == 'model']
    detail = _get(client, f'{TRACES}/calls/{call["id"]}')
    assert detail['action'] == 'task_run'
    assert ('history' in detail['data']) is debug


# -- a failed model call is an error ------------------------------------------------------


def _failing(name: str, error: Exception) -> Agent[None, str]:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise error

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        raise error
        yield ''

    model = FunctionModel(respond, stream_function=stream, model_name=f'{name}-model')
    return Agent(model, name=name)


@pytest.mark.parametrize(
    ('error', 'text'),
    [
        (ModelHTTPError(429, 'limited-model', {'error': 'rate limit reached'}), '429'),
        (ModelHTTPError(500, 'broken-model', {'error': 'internal'}), '500'),
        (ModelAPIError('down-model', 'Connection error: [Errno 111] Connection refused'), 'Connection'),
        (httpx.ConnectError('[Errno 111] Connection refused'), 'Connection refused'),
    ],
    ids=['429', '500', 'api-connection', 'httpx-connect'],
)
def test_a_failed_model_call_is_an_error_in_the_trace_and_the_exported_span(
    client: TestClient,
    synapse_of: Callable[..., Synapse],
    exported: InMemorySpanExporter,
    error: Exception,
    text: str,
) -> None:
    syn = synapse_of(otel_endpoint=ENDPOINT)
    conversation = syn.conversation_sync(_failing('failing', error), origin='app')
    with pytest.raises(type(error)):
        conversation.send('hello')
    syn.close_sync()
    provider.flush()

    (root,) = _get(client, TRACES)['roots']
    assert root['status'] == 'error' and text in root['error'], root
    tree = _get(client, f'{TRACES}/{root["agent_run_id"]}')['root']
    (call,) = tree['children']
    assert call['kind'] == 'model' and call['status'] == 'error' and text in call['error'], call
    detail = _get(client, f'{TRACES}/calls/{call["id"]}')
    assert detail['error'] is not None and text in detail['error'], detail

    chats = [
        s
        for s in exported.get_finished_spans()
        if s.attributes and s.attributes.get('gen_ai.operation.name') == 'chat'
    ]
    runs = [s for s in exported.get_finished_spans() if s.name.startswith('invoke_agent')]
    assert chats and runs, [s.name for s in exported.get_finished_spans()]
    assert all(span.status.status_code == StatusCode.ERROR for span in chats), [s.status for s in chats]
    assert text in str(chats[0].status.description), chats[0].status
