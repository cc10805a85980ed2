"""The trace API on every selected database: trees of nested runs (agent → tool → agent → tool →
agent, a sync tool's `run_sync`, an engine turn started from a tool), failures, which turns are
traced, one model call in full, filters and pages, refused input, deletion with the conversation
and a constant number of queries.

Turns run for real: over HTTP in the playground (`POST /api/agents/{slug}/chat`, a fixture project's
agents found by discovery) or through the Python API (`Synapse`, agents of this module). The models
are pydantic-ai `FunctionModel`s and `TestModel`s. A Python API turn's trace rows are committed by
the time its `Synapse` is closed; an HTTP turn's once the app's write queue is drained.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio.from_thread
import pytest
from fastapi.testclient import TestClient
from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.models.test import TestModel
from sqlalchemy import event, func, select

from chat_helpers import decode
from fixtures.projects import unique_name, write_files
from synapse_agents import Synapse
from synapse_agents.conversations.tables import Message
from synapse_agents.runtime.conversation import Reply
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.store import Store
from synapse_agents.traces.tables import DebugLog, TraceRun, TraceTool

TRACES = '/api/traces'
DEMO_SUPPORT = 'synapse_agents.demo.agents.support-agent'

# -- agents -------------------------------------------------------------------------------


def _answered(messages: list[ModelMessage]) -> bool:
    return any(isinstance(part, ToolReturnPart) for message in messages for part in message.parts)


def scripted(name: str, text: str, tool: str | None = None, *, fail: str | None = None) -> FunctionModel:
    """Calls `tool` once (when given), then answers `text`; raises `RuntimeError(fail)` when `fail`."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if fail is not None:
            raise RuntimeError(fail)
        if tool is not None and not _answered(messages):
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


def plain(name: str = 'plain', text: str = 'plain answer', **options: Any) -> Agent[None, str]:
    return Agent(scripted(f'{name}-model', text), name=name, **options)


def delegating(name: str, tool: str, call: Callable[..., Any], *, sync: bool = False) -> Agent[None, str]:
    """An agent whose tool `tool` answers with `call(q)` (awaited unless `sync`)."""
    agent: Agent[None, str] = Agent(scripted(f'{name}-model', f'{name} answers', tool), name=name)
    if sync:
        agent.tool_plain(name=tool)(call)
    else:

        async def use(q: str) -> str:
            return str(await call(q))

        agent.tool_plain(name=tool)(use)
    return agent


def three_levels(*, c_fails: bool = False, b_tool_fails: bool = False) -> Agent[None, str]:
    """a → ask_b → b → ask_c → c; a shares its usage with b, b runs c on its own."""
    c: Agent[None, str] = Agent(
        scripted('c-model', 'c answers', fail='c model down')
        if c_fails
        else TestModel(custom_output_text='c'),
        name='c',
    )
    b: Agent[None, str] = Agent(scripted('b-model', 'b answers', 'ask_c'), name='b')
    a: Agent[None, str] = Agent(scripted('a-model', 'a answers', 'ask_b'), name='a')

    @b.tool_plain
    async def ask_c(q: str) -> str:
        if b_tool_fails:
            raise RuntimeError('ask_c broke')
        return (await c.run(q)).output

    @a.tool
    async def ask_b(ctx: RunContext[None], q: str) -> str:
        try:
            return (await b.run(q, usage=ctx.usage)).output
        except RuntimeError as exc:
            return f'b failed: {exc}'

    return a


AGENTS = """
from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import DeltaToolCall, FunctionModel
from pydantic_ai.models.test import TestModel


def scripted(name, text, tool):
    def respond(messages, info):
        if not any(isinstance(p, ToolReturnPart) for m in messages for p in m.parts):
            return ModelResponse(parts=[ToolCallPart(tool, {'q': 'x'}, tool_call_id='call_' + tool)])
        return ModelResponse(parts=[TextPart(text)])

    async def stream(messages, info):
        part = respond(messages, info).parts[0]
        if isinstance(part, ToolCallPart):
            yield {0: DeltaToolCall(part.tool_name, part.args_as_json_str(), tool_call_id=part.tool_call_id)}
        else:
            yield part.content

    return FunctionModel(respond, stream_function=stream, model_name=name)


c = Agent(TestModel(custom_output_text='c'), name='c')
b = Agent(scripted('b-model', 'b answers', 'ask_c'), name='b')
a = Agent(scripted('a-model', 'a answers', 'ask_b'), name='a')
quiet = Agent(TestModel(custom_output_text='shh'), name='quiet', metadata={'synapse.debug': False})


@b.tool_plain
async def ask_c(q: str) -> str:
    return (await c.run(q)).output


@a.tool
async def ask_b(ctx: RunContext[None], q: str) -> str:
    return (await b.run(q, usage=ctx.usage)).output
"""


def run_node(name: str, *children: Any) -> tuple[str, str, list[Any]]:
    return ('run', name, list(children))


def tool_node(name: str, *children: Any) -> tuple[str, str, list[Any]]:
    return ('tool', name, list(children))


def call_node(name: str) -> tuple[str, str, list[Any]]:
    return ('model', name, [])


C_RUN = run_node('c', call_node('test'))
B_RUN = run_node('b', call_node('b-model'), tool_node('ask_c', C_RUN), call_node('b-model'))
THREE_LEVELS = run_node('a', call_node('a-model'), tool_node('ask_b', B_RUN), call_node('a-model'))
"""The tree of a turn of `three_levels()`: (kind, name, children), children by start time."""


# -- helpers ------------------------------------------------------------------------------


def send(syn: Synapse, agent: Any, message: str = 'hello', **options: Any) -> Reply:
    """One turn through the Python API: a playground turn unless `origin` says otherwise."""
    options.setdefault('origin', 'playground')
    return syn.conversation_sync(agent, **options).send(message)


def roots(client: TestClient, **params: Any) -> list[dict[str, Any]]:
    response = client.get(TRACES, params=params)
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()['roots']
    return found


def tree(client: TestClient, run_id: str) -> dict[str, Any]:
    response = client.get(f'{TRACES}/{run_id}')
    assert response.status_code == 200, response.text
    root: dict[str, Any] = response.json()['root']
    return root


def shape(node: dict[str, Any]) -> tuple[str, str, list[Any]]:
    return (node['kind'], node['name'], [shape(child) for child in node['children']])


def runs(node: dict[str, Any]) -> list[dict[str, Any]]:
    """Every run node of the tree, depth first."""
    found = [node] if node['kind'] == 'run' else []
    for child in node['children']:
        found.extend(runs(child))
    return found


def check_links(node: dict[str, Any], run: dict[str, Any] | None = None) -> None:
    """Each call hangs under its own run; each run under the run its tool belongs to, one level deeper."""
    if node['kind'] == 'run':
        if run is not None:
            assert node['parent_run_id'] == run['agent_run_id'] and node['depth'] == run['depth'] + 1
            assert node['trace_id'] == run['trace_id']
        run = node
    else:
        assert run is not None and node['agent_run_id'] == run['agent_run_id'], node
    for child in node['children']:
        check_links(child, run)


def table_counts(store: Store) -> dict[str, int]:
    with store.read() as session:
        return {
            table.__tablename__: session.scalar(select(func.count()).select_from(table)) or 0
            for table in (TraceRun, DebugLog, TraceTool)
        }


def refused(response: Any, status: int) -> str:
    assert response.status_code == status, response.text
    assert response.headers['content-type'] == 'application/json'
    error = response.json()['error']
    assert error['code'] and error['message'], error
    message: str = error['message']
    return message


@contextmanager
def count_queries(store: Store) -> Iterator[list[str]]:
    statements: list[str] = []

    def before(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement)

    event.listen(store.engine, 'before_cursor_execute', before)
    try:
        yield statements
    finally:
        event.remove(store.engine, 'before_cursor_execute', before)


# -- trees --------------------------------------------------------------------------------


def test_a_playground_turn_over_http_records_the_whole_delegation_tree(
    client_for: Callable[..., TestClient], context: SynapseContext, store: Store, isolated_env: Path
) -> None:
    module = unique_name('delegation')
    write_files(isolated_env, {f'{module}.py': AGENTS})
    client = client_for([module], isolated_env)
    chunks = decode(client.post(f'/api/agents/{module}.a/chat', data={'message': 'hello'}).text)
    assert chunks[-1]['type'] == '[DONE]' and not [c for c in chunks if c['type'] == 'error']
    ids = chunks[0]['messageMetadata']
    assert client.portal is not None
    client.portal.call(context.chat_service().writes.drain)

    (root,) = roots(client)
    with store.read() as session:
        message = session.get(Message, ids['message_id'])
        stored = {run.agent_name: run for run in session.scalars(select(TraceRun))}
    assert message is not None and message.role == 'assistant'
    assert root['agent_run_id'] == message.run_id
    assert (root['depth'], root['parent_run_id'], root['origin'], root['status']) == (0, None, 'code', 'ok')
    assert (root['agent_key'], root['agent_name'], root['module']) == (f'{module}.a', 'a', 'chat')
    assert (root['message_id'], root['conversation_id']) == (ids['message_id'], ids['conversation_id'])
    assert (root['model_calls'], root['tool_calls'], root['model']) == (2, 1, 'a-model')
    assert len(root['trace_id']) == 32 and root['input_tokens'] > 0

    top = tree(client, root['agent_run_id'])
    assert shape(top) == THREE_LEVELS
    check_links(top)
    a, b, c = runs(top)
    assert [(r['depth'], r['origin'], r['message_id']) for r in (a, b, c)] == [
        (0, 'code', ids['message_id']),
        (1, 'direct', None),
        (2, 'direct', None),
    ]
    assert {r['conversation_id'] for r in (a, b, c)} == {ids['conversation_id']}
    assert [r['output'] for r in (a, b, c)] == ['a answers', 'b answers', 'c']
    ask_b = top['children'][1]
    assert (ask_b['arguments'], ask_b['result'], ask_b['tool_call_id']) == (
        {'q': 'x'},
        'b answers',
        'call_ask_b',
    )
    assert {name: (run.root_run_id, run.parent_run_id) for name, run in stored.items()} == {
        'a': (a['agent_run_id'], None),
        'b': (a['agent_run_id'], a['agent_run_id']),
        'c': (a['agent_run_id'], b['agent_run_id']),
    }
    assert stored['a'].message_id == ids['message_id'] and stored['b'].message_id is None
    # Asking for a run below the root gives the subtree from that run.
    assert shape(tree(client, b['agent_run_id'])) == B_RUN

    # The agent says never: its playground turn records nothing.
    client.post(f'/api/agents/{module}.quiet/chat', data={'message': 'hi'})
    client.portal.call(context.chat_service().writes.drain)
    assert [r['agent_run_id'] for r in roots(client)] == [a['agent_run_id']]


def test_the_python_api_records_the_same_tree_as_ephemeral(
    client: TestClient, synapse_of: Callable[..., Synapse]
) -> None:
    syn = synapse_of()
    reply = send(syn, three_levels())
    syn.close_sync()
    (root,) = roots(client)
    assert (root['agent_run_id'], root['origin'], root['depth']) == (reply.run_id, 'ephemeral', 0)
    assert (root['message_id'], root['agent_key']) == (reply.message_id, 'a')
    top = tree(client, reply.run_id)
    assert shape(top) == THREE_LEVELS
    check_links(top)


@pytest.mark.parametrize('bridge', ['from_thread', 'asyncio_run'])
def test_a_sync_tool_running_another_agent_from_its_thread_is_nested(
    client: TestClient, synapse_of: Callable[..., Synapse], bridge: str
) -> None:
    """pydantic-ai runs a sync tool in a worker thread (and refuses `run_sync` there): the tool runs
    the other agent on the run's loop (`anyio.from_thread.run`) or on a loop of its own."""
    inner = plain('inner', 'inner answers')

    def consult(q: str) -> str:
        if bridge == 'from_thread':
            return anyio.from_thread.run(inner.run, q).output
        return asyncio.run(inner.run(q)).output

    syn = synapse_of()
    reply = send(syn, delegating('outer', 'consult', consult, sync=True))
    syn.close_sync()
    top = tree(client, reply.run_id)
    inner_run = run_node('inner', call_node('inner-model'))
    assert shape(top) == run_node(
        'outer', call_node('outer-model'), tool_node('consult', inner_run), call_node('outer-model')
    )
    check_links(top)
    assert top['children'][1]['result'] == 'inner answers'
    assert [r['agent_run_id'] for r in roots(client)] == [reply.run_id]


def test_an_engine_turn_started_inside_a_tool_hangs_under_that_tool(
    client: TestClient, synapse_of: Callable[..., Synapse], store: Store
) -> None:
    syn = synapse_of()
    inner = plain('inner', 'inner answers')
    replies: list[Reply] = []

    async def consult(q: str) -> str:
        replies.append(await (await syn.conversation(inner)).send(q))
        output: str = replies[-1].output
        return output

    reply = send(syn, delegating('outer', 'consult', consult))
    syn.close_sync()
    (nested,) = replies
    assert nested.conversation_id != reply.conversation_id
    assert [r['agent_run_id'] for r in roots(client)] == [reply.run_id]
    top = tree(client, reply.run_id)
    assert shape(top)[2][1] == tool_node('consult', run_node('inner', call_node('inner-model')))
    check_links(top)
    run = top['children'][1]['children'][0]
    assert (run['agent_run_id'], run['parent_run_id'], run['depth']) == (nested.run_id, reply.run_id, 1)
    # The nested turn is Synapse's own: its origin, agent, conversation and message are its own.
    assert (run['origin'], run['agent_key']) == ('ephemeral', 'inner')
    assert (run['conversation_id'], run['message_id']) == (nested.conversation_id, nested.message_id)
    assert roots(client, conversation_id=nested.conversation_id) == []
    with store.read() as session:
        row = session.get(TraceRun, nested.run_id)
    assert row is not None and row.root_run_id == reply.run_id and row.is_root is False


# -- failures -----------------------------------------------------------------------------


def test_a_failing_nested_run_is_marked_and_found_by_the_errors_filter(
    client: TestClient, synapse_of: Callable[..., Synapse]
) -> None:
    syn = synapse_of()
    clean = send(syn, three_levels())
    tool_failed = send(syn, three_levels(b_tool_fails=True))
    model_failed = send(syn, three_levels(c_fails=True))
    broken = plain('broken')
    broken.model = scripted('broken-model', '', fail='provider down')
    with pytest.raises(RuntimeError, match='provider down'):
        send(syn, broken)
    syn.close_sync()
    assert tool_failed.output == model_failed.output == 'a answers'

    a, b = runs(tree(client, tool_failed.run_id))
    assert (a['status'], a['error']) == ('ok', None)
    assert b['status'] == 'error' and 'ask_c broke' in b['error']
    failed_tool = b['children'][1]
    assert (failed_tool['name'], failed_tool['status']) == ('ask_c', 'error')
    assert 'RuntimeError' in failed_tool['error'] and failed_tool['result'] is None
    assert failed_tool['children'] == []

    a, b, c = runs(tree(client, model_failed.run_id))
    assert (a['status'], a['error']) == ('ok', None)  # its tool caught b's failure
    assert b['status'] == 'error' and 'c model down' in b['error']  # c's failure went through b's tool
    assert c['status'] == 'error' and 'c model down' in c['error']
    (call,) = c['children']
    assert call['kind'] == 'model' and call['status'] == 'error' and 'c model down' in call['error']

    (turn,) = [r for r in roots(client) if r['agent_name'] == 'broken']
    assert turn['status'] == 'error' and 'provider down' in turn['error']
    failing = {r['agent_run_id'] for r in roots(client, errors='true')}
    assert failing == {tool_failed.run_id, model_failed.run_id, turn['agent_run_id']}
    assert clean.run_id not in failing
    assert {r['agent_run_id'] for r in roots(client, errors='false')} == failing | {clean.run_id}


# -- which turns are traced ---------------------------------------------------------------


def test_every_turn_records_its_tree_and_only_debug_settings_keep_bodies(
    client: TestClient, synapse_of: Callable[..., Synapse], store: Store
) -> None:
    def bodies(run_id: str) -> bool:
        call = next(node for node in tree(client, run_id)['children'] if node['kind'] == 'model')
        return 'history' in client.get(f'{TRACES}/calls/{call["id"]}').json()['data']

    syn = synapse_of()
    app = send(syn, three_levels(), origin='app')
    syn.close_sync()
    assert shape(tree(client, app.run_id)) == THREE_LEVELS
    assert table_counts(store) == {'trace_runs': 3, 'debug_logs': 5, 'trace_tools': 2}
    assert not bodies(app.run_id)

    syn = synapse_of(debug_playground=False)
    send(syn, plain('silent', metadata={'synapse.debug': False}))  # the agent's say: never
    quiet = send(syn, plain('quiet'))
    syn.close_sync()
    assert {r['agent_name'] for r in roots(client)} == {'a', 'quiet'}
    assert not bodies(quiet.run_id)

    syn = synapse_of()
    playground = send(syn, plain('shown'))
    syn.close_sync()
    assert bodies(playground.run_id)

    syn = synapse_of(debug=True)
    debugged = send(syn, plain('debugged'), origin='app')
    syn.close_sync()
    assert bodies(debugged.run_id)

    syn = synapse_of(debug_agents='loud')
    loud = send(syn, plain('loud'), origin='app')
    other = send(syn, plain('other'), origin='app')
    syn.close_sync()
    assert bodies(loud.run_id) and not bodies(other.run_id)
    assert roots(client, agent='loud')[0]['agent_run_id'] == loud.run_id


# -- one model call -----------------------------------------------------------------------


def test_a_model_call_in_full_and_a_body_cut_to_a_preview(
    client: TestClient, synapse_of: Callable[..., Synapse]
) -> None:
    syn = synapse_of(debug_body_bytes=2048)
    short = send(syn, plain(text='the answer'), 'What is it?')
    long_prompt = 'tell me more ' * 400
    long = send(syn, plain(text='a long answer'), long_prompt)
    syn.close_sync()

    (call,) = tree(client, short.run_id)['children']
    detail = client.get(f'{TRACES}/calls/{call["id"]}').json()
    assert (detail['id'], detail['agent_run_id'], detail['root_run_id']) == (
        call['id'],
        short.run_id,
        short.run_id,
    )
    assert (detail['action'], detail['origin'], detail['truncated']) == ('chat_turn', 'ephemeral', False)
    assert detail['conversation_id'] == short.conversation_id and detail['model'] == 'plain-model'
    data = detail['data']
    assert data['history'][-1]['parts'][0]['content'] == 'What is it?'
    assert data['turns'][0]['role'] == 'assistant'
    assert data['turns'][0]['parts'][0]['content'] == 'the answer'
    assert data['usage']['input_tokens'] == detail['input_tokens'] > 0
    assert data['request']['model'] == 'plain-model' and data['response']['model'] == 'plain-model'

    (call,) = tree(client, long.run_id)['children']
    assert call['truncated'] is True
    detail = client.get(f'{TRACES}/calls/{call["id"]}').json()
    assert detail['truncated'] is True
    history = detail['data']['history']
    assert history['truncated'] is True and history['bytes'] > len(long_prompt)
    assert 'tell me more' in history['preview'] and len(history['preview']) <= 2048
    assert detail['data']['turns'][0]['parts'][0]['content'] == 'a long answer'  # small: kept whole
    assert detail['data_bytes'] < len(long_prompt)


# -- filters and pages --------------------------------------------------------------------


def test_filters(client: TestClient, synapse_of: Callable[..., Synapse]) -> None:
    syn = synapse_of(agents=['synapse_agents.demo'])
    alpha = plain('alpha')
    first = send(syn, alpha, 'one')
    second = syn.conversation_sync(alpha, id=first.conversation_id, origin='playground').send('two')
    beta = send(syn, plain('beta'))
    demo = send(syn, DEMO_SUPPORT, 'Where is order A-1001?')
    syn.close_sync()
    everything = roots(client)
    by_run = {r['agent_run_id']: r for r in everything}
    assert [r['agent_run_id'] for r in everything] == [demo.run_id, beta.run_id, second.run_id, first.run_id]

    def listed(**params: Any) -> list[str]:
        return [r['agent_run_id'] for r in roots(client, **params)]

    assert listed(agent='alpha') == [second.run_id, first.run_id]
    assert listed(agent=DEMO_SUPPORT) == [demo.run_id]
    assert listed(agent='support_agent') == [], 'the filter is the slug, not the name'
    assert listed(agent='nobody') == []
    assert listed(origin='code') == [demo.run_id]
    assert listed(origin='ephemeral') == [beta.run_id, second.run_id, first.run_id]
    assert listed(origin='workflow') == listed(origin='direct') == []
    assert listed(conversation_id=first.conversation_id) == [second.run_id, first.run_id]
    assert listed(message_id=second.message_id) == [second.run_id]
    assert listed(message_id=beta.message_id, agent='alpha') == []
    moment = by_run[second.run_id]['started_at']
    assert listed(since=moment) == [demo.run_id, beta.run_id, second.run_id]
    assert listed(until=moment) == [first.run_id]
    assert listed(since=moment.removesuffix('Z')) == listed(since=moment)  # no zone: UTC
    assert listed(since=by_run[first.run_id]['started_at'], until=by_run[beta.run_id]['started_at']) == [
        second.run_id,
        first.run_id,
    ]
    assert listed(since='2000-01-01T00:00:00Z', until='2000-01-02T00:00:00+02:00') == []


def test_pages_list_every_root_once_newest_first(
    client: TestClient, synapse_of: Callable[..., Synapse]
) -> None:
    syn = synapse_of()
    made = [send(syn, plain(f'agent{i}')).run_id for i in range(7)]
    syn.close_sync()
    assert [r['agent_run_id'] for r in roots(client, limit=200)] == made[::-1]
    for limit, sizes in ((3, [3, 3, 1]), (7, [7, 0]), (1, [1] * 7 + [0])):
        seen: list[str] = []
        pages: list[int] = []
        before: str | None = None
        while True:
            params: dict[str, Any] = {'limit': limit, **({'before': before} if before else {})}
            page = client.get(TRACES, params=params).json()
            pages.append(len(page['roots']))
            seen.extend(r['agent_run_id'] for r in page['roots'])
            before = page['next_before']
            if before is None:
                break
            assert before == seen[-1]
        assert (pages, seen) == (sizes, made[::-1])
    assert roots(client, before='never-a-run') == []


# -- refused input ------------------------------------------------------------------------


def test_bad_input_is_a_json_error_that_changes_nothing(
    client: TestClient, synapse_of: Callable[..., Synapse], store: Store
) -> None:
    syn = synapse_of()
    reply = send(syn, three_levels())
    syn.close_sync()
    before = table_counts(store)
    assert 'No trace for run' in refused(client.get(f'{TRACES}/0190a4f0-0000-7000-8000-000000000000'), 404)
    for bad in ('x' * 200, 'a%20b', '%E2%98%83', 'a;b', "a'b"):
        assert 'No run with id' in refused(client.get(f'{TRACES}/{bad}'), 404)
    refused(client.get(f'{TRACES}/..%2F..%2Fetc'), 404)  # another path: no route
    for bad in ('nope', '0190a4f0-0000-7000-8000-000000000000', 'x' * 200):
        assert 'No model call with id' in refused(client.get(f'{TRACES}/calls/{bad}'), 404)
    # A NUL anywhere in a URL is refused before any route (web/hardening.py).
    for path in (f'{TRACES}/%00', f'{TRACES}/calls/%00', f'{TRACES}?agent=%00'):
        assert 'NUL' in refused(client.get(path), 400)
    for params in (
        {'origin': 'playground'},
        {'origin': ''},
        {'limit': 0},
        {'limit': 201},
        {'limit': 'ten'},
        {'since': 'yesterday'},
        {'until': '2026-13-01'},
        {'errors': 'maybe'},
        {'before': 'a b'},
        {'conversation_id': '../x'},
        {'message_id': 'x' * 65},
        {'agent': 'x' * 256},
    ):
        refused(client.get(TRACES, params=params), 422)
    assert table_counts(store) == before
    assert shape(tree(client, reply.run_id)) == THREE_LEVELS


def test_a_number_is_not_a_moment(client: TestClient) -> None:
    # The schema says ISO 8601; pydantic alone would read a number as seconds since 1970.
    for params in ({'since': '0'}, {'until': '1764000000'}, {'since': '1.5e9'}, {'until': ' -3 '}):
        assert 'not a number' in refused(client.get(TRACES, params=params), 422)
    assert client.get(TRACES, params={'since': '2026-01-01T00:00:00Z'}).status_code == 200


# -- deletion and queries -----------------------------------------------------------------


def test_deleting_the_conversation_removes_its_trace(
    client: TestClient, synapse_of: Callable[..., Synapse], store: Store
) -> None:
    syn = synapse_of()
    gone = send(syn, three_levels())
    kept = send(syn, three_levels())
    syn.close_sync()
    assert table_counts(store) == {'trace_runs': 6, 'debug_logs': 10, 'trace_tools': 4}
    assert client.delete(f'/api/conversations/{gone.conversation_id}').status_code == 200
    assert table_counts(store) == {'trace_runs': 3, 'debug_logs': 5, 'trace_tools': 2}
    refused(client.get(f'{TRACES}/{gone.run_id}'), 404)
    assert [r['agent_run_id'] for r in roots(client)] == [kept.run_id]
    with store.read() as session:
        left = {
            conversation_id
            for column in (TraceRun.conversation_id, DebugLog.conversation_id, TraceTool.conversation_id)
            for conversation_id in session.scalars(select(column))
        }
    assert left == {kept.conversation_id}


def test_listing_roots_is_a_constant_number_of_queries(
    client: TestClient, synapse_of: Callable[..., Synapse], store: Store
) -> None:
    params = {'errors': 'true', 'agent': 'a', 'origin': 'ephemeral', 'since': '2000-01-01T00:00:00Z'}
    counts: list[tuple[int, int]] = []
    made = 0
    for total in (3, 30):
        syn = synapse_of()
        for _ in range(total - made):
            send(syn, three_levels(b_tool_fails=True))
        made = total
        syn.close_sync()
        listed = roots(client)
        assert len(listed) == total
        for query in ({}, params, {'before': listed[1]['agent_run_id'], 'limit': 50}):
            with count_queries(store) as statements:
                found = roots(client, **query)
            assert found
            counts.append((total, len(statements)))
    few = [n for total, n in counts if total == 3]
    many = [n for total, n in counts if total == 30]
    assert few == many and max(many) <= 2, counts  # BEGIN (SQLite) and the page
