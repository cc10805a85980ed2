"""OpenTelemetry export to a real OTLP/HTTP receiver: the spans of a nested turn, with pydantic-ai's
GenAI attributes and Synapse's own, in the same tree and trace as the stored trace.

The receiver is a `ThreadingHTTPServer` on a free port that accepts `POST /v1/traces` with an
`application/x-protobuf` body, parses it as an `ExportTraceServiceRequest` and answers 200 with an
empty `ExportTraceServiceResponse`, as a collector does. pydantic-ai's instrumentation and its tracer
provider are shared by the whole test process, so each test looks only at the spans of its own
turns (by conversation id or trace id).
"""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.models.test import TestModel
from sqlalchemy import func, select

from chat_helpers import decode
from synapse_agents import Synapse
from synapse_agents.runtime.conversation import Reply
from synapse_agents.store import Store
from synapse_agents.traces import provider
from synapse_agents.traces.rows import unpack
from synapse_agents.traces.tables import DebugLog, TraceRun, TraceTool

pytestmark = pytest.mark.any_database(
    reason="the exported spans come from the tracer; the stored tree's SQL is tested elsewhere"
)

# -- the receiver -------------------------------------------------------------------------


@dataclass(frozen=True)
class Received:
    """One span as the receiver got it."""

    trace_id: str
    span_id: str
    parent_span_id: str | None
    name: str
    attributes: dict[str, Any]
    resource: dict[str, Any]
    status_code: int

    @property
    def operation(self) -> Any:
        return self.attributes.get('gen_ai.operation.name')


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof('value')
    if kind == 'array_value':
        return [_value(item) for item in value.array_value.values]
    if kind == 'kvlist_value':
        return {item.key: _value(item.value) for item in value.kvlist_value.values}
    return getattr(value, kind) if kind else None


class Receiver:
    """An OTLP/HTTP traces endpoint that keeps every span it is sent and the headers it came with."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spans: list[Received] = []
        self.headers: list[dict[str, str]] = []
        self.refused: list[str] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get('Content-Length') or 0))
                content_type = self.headers.get('Content-Type', '')
                if self.path != '/v1/traces' or content_type != 'application/x-protobuf':
                    receiver.refused.append(f'{self.path} {content_type}')
                    self.send_response(404 if self.path != '/v1/traces' else 415)
                    self.end_headers()
                    return
                if self.headers.get('Content-Encoding') == 'gzip':
                    body = gzip.decompress(body)
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                receiver.add(dict(self.headers.items()), request)
                answer = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header('Content-Type', 'application/x-protobuf')
                self.send_header('Content-Length', str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the test reads what arrived, not the server's access log."""

        self.server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.url = f'http://127.0.0.1:{self.server.server_address[1]}'
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def add(self, headers: dict[str, str], request: ExportTraceServiceRequest) -> None:
        spans = []
        for resource_spans in request.resource_spans:
            resource = {kv.key: _value(kv.value) for kv in resource_spans.resource.attributes}
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    spans.append(
                        Received(
                            trace_id=span.trace_id.hex(),
                            span_id=span.span_id.hex(),
                            parent_span_id=span.parent_span_id.hex() or None,
                            name=span.name,
                            attributes={kv.key: _value(kv.value) for kv in span.attributes},
                            resource=resource,
                            status_code=span.status.code,
                        )
                    )
        with self._lock:
            self.headers.append(headers)
            self._spans.extend(spans)

    def spans(self, **attributes: Any) -> list[Received]:
        """The spans received so far that carry these attribute values (dots spelled `__`)."""
        wanted = {key.replace('__', '.'): value for key, value in attributes.items()}
        with self._lock:
            return [s for s in self._spans if all(s.attributes.get(k) == v for k, v in wanted.items())]

    def wait_for(self, count: int, timeout: float = 15, **attributes: Any) -> list[Received]:
        """At least `count` spans with these attributes, flushing the exporters until they arrive."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.spans(**attributes)
            if len(found) >= count or time.monotonic() > deadline:
                return found
            provider.flush()
            time.sleep(0.05)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    running = Receiver()
    yield running
    running.close()


# -- agents -------------------------------------------------------------------------------


def _answered(messages: list[ModelMessage]) -> bool:
    return any(isinstance(part, ToolReturnPart) for message in messages for part in message.parts)


def scripted(name: str, text: str, tool: str) -> FunctionModel:
    """Calls `tool` once, then answers `text`."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if not _answered(messages):
            return ModelResponse(parts=[ToolCallPart(tool, {'q': 'x'}, tool_call_id=f'call_{tool}')])
        return ModelResponse(parts=[TextPart(text)])

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        part = respond(messages, info).parts[0]
        if isinstance(part, ToolCallPart):
            yield {0: DeltaToolCall(part.tool_name, part.args_as_json_str(), tool_call_id=part.tool_call_id)}
        else:
            assert isinstance(part, TextPart)
            yield part.content

    return FunctionModel(respond, stream_function=stream, model_name=name)


def three_levels() -> Agent[None, str]:
    """a → ask_b → b → ask_c → c; a shares its usage with b, b runs c on its own."""
    c: Agent[None, str] = Agent(TestModel(custom_output_text='c answers'), name='c')
    b: Agent[None, str] = Agent(scripted('b-model', 'b answers', 'ask_c'), name='b')
    a: Agent[None, str] = Agent(scripted('a-model', 'a answers', 'ask_b'), name='a')

    @b.tool_plain
    async def ask_c(q: str) -> str:
        return (await c.run(q)).output

    @a.tool
    async def ask_b(ctx: RunContext[None], q: str) -> str:
        return (await b.run(q, usage=ctx.usage)).output

    return a


SPANS_OF_THREE_LEVELS = 10
"""3 runs, 5 model calls, 2 tool calls."""


def send(syn: Synapse, agent: Any, message: str = 'hello', origin: str = 'playground') -> Reply:
    return syn.conversation_sync(agent, origin=origin).send(message)


def stored_rows(store: Store) -> int:
    with store.read() as session:
        return sum(
            session.scalar(select(func.count()).select_from(t)) or 0 for t in (TraceRun, DebugLog, TraceTool)
        )


def check_tree(spans: list[Received], root_run_id: str) -> dict[str, Received]:
    """The spans of a → b → c form one tree; the run spans by agent name."""
    by_id = {span.span_id: span for span in spans}
    assert len(by_id) == len(spans) == SPANS_OF_THREE_LEVELS
    assert len({span.trace_id for span in spans}) == 1
    run_spans = {s.attributes['gen_ai.agent.name']: s for s in spans if s.operation == 'invoke_agent'}
    assert sorted(run_spans) == ['a', 'b', 'c']
    a, b, c = run_spans['a'], run_spans['b'], run_spans['c']
    assert a.parent_span_id is None
    assert a.attributes['synapse.agent_run_id'] == a.attributes['gen_ai.agent.call.id'] == root_run_id
    for run, depth, parent in ((a, 0, None), (b, 1, a), (c, 2, b)):
        assert run.attributes['synapse.depth'] == depth
        assert run.attributes.get('synapse.parent_run_id') == (
            parent.attributes['synapse.agent_run_id'] if parent is not None else None
        )
        if parent is not None:
            assert run.attributes['synapse.origin'] == 'direct'
    tools = {s.attributes['gen_ai.tool.name']: s for s in spans if s.operation == 'execute_tool'}
    assert sorted(tools) == ['ask_b', 'ask_c']
    assert (tools['ask_b'].parent_span_id, b.parent_span_id) == (a.span_id, tools['ask_b'].span_id)
    assert (tools['ask_c'].parent_span_id, c.parent_span_id) == (b.span_id, tools['ask_c'].span_id)
    calls = [s for s in spans if s.operation == 'chat']
    owner: dict[str | None, Received] = {a.span_id: a, b.span_id: b, c.span_id: c}
    assert sorted(owner[call.parent_span_id].attributes['gen_ai.agent.name'] for call in calls) == [
        'a',
        'a',
        'b',
        'b',
        'c',
    ]
    for span in [*calls, *tools.values()]:
        run = owner[span.parent_span_id or '']
        assert span.attributes['synapse.agent_run_id'] == run.attributes['synapse.agent_run_id']
    for call in calls:
        assert call.attributes['gen_ai.usage.input_tokens'] > 0
        assert call.attributes['gen_ai.request.model'] in ('a-model', 'b-model', 'test')
    return run_spans


# -- tests --------------------------------------------------------------------------------


def test_a_nested_turn_is_exported_with_genai_and_synapse_attributes(
    receiver: Receiver, synapse_of: Callable[..., Synapse], client: TestClient, store: Store
) -> None:
    outside: Agent[None, str] = Agent(TestModel(), name='outside-of-synapse')
    outside.run_sync('not traced')  # a run Synapse did not start: never recorded, never exported
    syn = synapse_of(otel_endpoint=receiver.url)
    reply = send(syn, three_levels())
    syn.close_sync()

    spans = receiver.wait_for(SPANS_OF_THREE_LEVELS, synapse__conversation_id=reply.conversation_id)
    run_spans = check_tree(spans, reply.run_id)
    assert all(span.attributes['synapse.message_id'] == reply.message_id for span in spans)
    assert run_spans['a'].attributes['synapse.origin'] == 'ephemeral'
    assert {span.resource['service.name'] for span in spans} == {'synapse'}
    assert receiver.refused == []

    (root,) = client.get('/api/traces').json()['roots']
    assert root['agent_run_id'] == reply.run_id and root['trace_id'] == spans[0].trace_id
    with store.read() as session:
        stored = {row.agent_name: row for row in session.scalars(select(TraceRun))}
    assert {name: (row.trace_id, row.span_id) for name, row in stored.items()} == {
        name: (span.trace_id, span.span_id) for name, span in run_spans.items()
    }
    provider.flush()
    assert receiver.spans(gen_ai__agent__name='outside-of-synapse') == []


def test_spans_are_exported_in_full_while_the_stored_tree_keeps_no_bodies(
    receiver: Receiver, synapse_of: Callable[..., Synapse], client: TestClient, store: Store
) -> None:
    syn = synapse_of(otel_endpoint=f'{receiver.url}/', debug_playground=False)
    playground = send(syn, three_levels())
    app = send(syn, three_levels(), origin='app')
    syn.close_sync()
    for reply in (playground, app):
        spans = receiver.wait_for(SPANS_OF_THREE_LEVELS, synapse__conversation_id=reply.conversation_id)
        check_tree(spans, reply.run_id)
        assert any('gen_ai.input.messages' in span.attributes for span in spans)
    assert {root['agent_run_id'] for root in client.get('/api/traces').json()['roots']} == {
        playground.run_id,
        app.run_id,
    }
    with store.read() as session:
        datas = [unpack(data) for data in session.scalars(select(DebugLog.data))]
    assert datas and all('history' not in data and 'turns' not in data for data in datas)


def test_the_receiver_gets_the_configured_headers(
    receiver: Receiver, synapse_of: Callable[..., Synapse], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv('SYNAPSE_OTEL_ENDPOINT', f'{receiver.url}/v1/traces')
    monkeypatch.setenv('SYNAPSE_OTEL_HEADERS', 'Authorization=Bearer x, X-Team = blue')
    syn = synapse_of()
    reply = send(syn, three_levels(), origin='app')
    syn.close_sync()
    spans = receiver.wait_for(SPANS_OF_THREE_LEVELS, synapse__conversation_id=reply.conversation_id)
    check_tree(spans, reply.run_id)
    assert receiver.headers
    for headers in receiver.headers:
        lowered = {key.lower(): value for key, value in headers.items()}
        assert lowered['authorization'] == 'Bearer x' and lowered['x-team'] == 'blue'
        assert lowered['content-type'] == 'application/x-protobuf'


@pytest.mark.slow
def test_a_served_chat_turn_is_exported(
    receiver: Receiver, live_server: Any, database_url: str, isolated_env: Path
) -> None:
    server = live_server(
        ['--demo'],
        env={'SYNAPSE_OTEL_ENDPOINT': receiver.url, 'SYNAPSE_DATABASE_URL': database_url},
    )
    response = httpx.post(
        f'{server.url}/api/agents/synapse_agents.demo.agents.orchestrator/chat',
        data={'message': 'Summarise this text: pydantic-ai agents are composable.'},
        timeout=30,
    )
    assert response.status_code == 200
    chunks = decode(response.text)
    assert 'tool-output-available' in {chunk['type'] for chunk in chunks}
    ids = chunks[0]['messageMetadata']

    # The served process sends its batch within about a second of the turn: 2 runs, 3 model calls
    # and the tool call.
    spans = receiver.wait_for(6, synapse__conversation_id=ids['conversation_id'])
    assert len(spans) == 6, server.output()
    runs = {s.attributes['gen_ai.agent.name']: s for s in spans if s.operation == 'invoke_agent'}
    assert sorted(runs) == ['orchestrator', 'summariser'], server.output()
    top, nested = runs['orchestrator'], runs['summariser']
    (tool,) = [s for s in spans if s.operation == 'execute_tool']
    assert tool.attributes['gen_ai.tool.name'] == 'delegate_to_summariser'
    assert (tool.parent_span_id, nested.parent_span_id) == (top.span_id, tool.span_id)
    assert (top.attributes['synapse.depth'], nested.attributes['synapse.depth']) == (0, 1)
    assert nested.attributes['synapse.parent_run_id'] == top.attributes['synapse.agent_run_id']
    assert top.attributes['synapse.origin'] == 'code' and 'synapse.parent_run_id' not in top.attributes
    assert all(span.attributes['synapse.message_id'] == ids['message_id'] for span in spans)
    assert len({span.trace_id for span in spans}) == 1

    deadline = time.monotonic() + 5
    listed: list[dict[str, Any]] = []
    while not listed and time.monotonic() < deadline:
        listed = httpx.get(f'{server.url}/api/traces', timeout=10).json()['roots']
        time.sleep(0.05)
    (root,) = listed
    assert root['agent_run_id'] == top.attributes['synapse.agent_run_id']
    assert (root['trace_id'], root['message_id']) == (top.trace_id, ids['message_id'])


def test_every_run_of_a_turn_is_exported_with_the_conversation_id(
    receiver: Receiver, synapse_of: Callable[..., Synapse]
) -> None:
    """The turn's run and the runs its tools start carry the conversation's id as pydantic-ai's
    `gen_ai.conversation.id`, on every turn of the conversation."""
    syn = synapse_of(otel_endpoint=receiver.url)
    conversation = syn.conversation_sync(three_levels())
    first = conversation.send('hello')
    second = conversation.send('again')
    syn.close_sync()
    assert first.conversation_id == second.conversation_id
    # the first turn: 3 runs (a, b started from a tool, c started from b's), 5 model calls, 2 tool
    # calls; the second: a answers at once (one run, one call)
    spans = receiver.wait_for(SPANS_OF_THREE_LEVELS + 2, synapse__conversation_id=first.conversation_id)
    runs_and_calls = [s for s in spans if s.operation in ('invoke_agent', 'chat')]
    assert len(runs_and_calls) == 8 + 2
    ids = [(s.name, s.attributes.get('gen_ai.conversation.id')) for s in runs_and_calls]
    assert {conversation_id for _, conversation_id in ids} == {first.conversation_id}, ids
