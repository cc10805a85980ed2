"""Rows edited by hand or damaged, written here with raw SQL, on every selected database: a listing
loads the other rows and marks the bad one (`corrupt`), a detail answers 409 `corrupt_row` naming
the table and the row, a turn or a task that would need the value is refused naming the row, and
the CLI says so in one line. Never a 500.

Where the database cannot hold the damage (PostgreSQL's NUMERIC and JSONB refuse text that is not
a number or not JSON), the test stores what it can hold that is still wrong: NaN for an amount, a
JSON value of the wrong kind.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from typer.testing import CliRunner

from chat_helpers import DEMO, agent_catalog, collect, decode, failure, types
from spending_models import CALL_COST, add_limit, add_price, priced_agent
from synapse_agents.chat.engine import ChatEngine
from synapse_agents.chat.request import TurnRequest
from synapse_agents.cli import app as cli_app
from synapse_agents.cli import command_line
from synapse_agents.registry.tables import AgentConfig, Preset
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.scope import Scope
from synapse_agents.settings import Settings
from synapse_agents.store import Store
from synapse_agents.store.ids import new_id
from synapse_agents.store.write_queue import WriteQueue
from synapse_agents.targets.target import TurnTarget
from synapse_agents.tasks import runner
from synapse_agents.traces.tables import DebugLog

GREETER = 'chat_agents.greeter'
SUPPORT = DEMO + 'support-agent'


@pytest.fixture
def context(context: SynapseContext) -> SynapseContext:
    context.catalog = agent_catalog()
    return context


def sql(store: Store, statement: str, **values: Any) -> None:
    with store.engine.begin() as connection:
        connection.execute(text(statement), values)


def corrupt_answer(response: Any, table: str, row_id: str) -> str:
    """The 409 `corrupt_row` answer naming the row; its message."""
    assert response.status_code == 409, response.text
    error = response.json()['error']
    assert (error['code'], error['table'], error['id']) == ('corrupt_row', table, row_id), error
    assert error['message'].startswith(f'{table} {row_id}: ') and error['detail'] in error['message']
    message: str = error['message']
    return message


def cli(*args: str) -> Any:
    return CliRunner().invoke(cli_app, list(args), env={'COLUMNS': '400'})


def one_line(result: Any, table: str, row_id: str) -> None:
    assert result.exit_code == 1, result.output
    assert f'Error: {table} {row_id}: ' in ' '.join(result.output.split()), result.output
    assert 'Traceback' not in result.output


def chat(client: TestClient, slug: str, message: str = 'hi', **data: Any) -> Any:
    return client.post(f'/api/agents/{slug}/chat', data={'message': message, **data})


def new_conversation(client: TestClient) -> str:
    chunks = decode(chat(client, GREETER).text)
    conversation_id: str = chunks[0]['messageMetadata']['conversation_id']
    return conversation_id


# -- (a) a limit's amount ----------------------------------------------------------------------


def spoil_amount(store: Store, limit_id: str) -> None:
    """An amount that is not a number: text on SQLite, NaN on PostgreSQL (its NUMERIC takes no text)."""
    value = 'a lot' if store.dialect == 'sqlite' else 'NaN'
    cast = ':value' if store.dialect == 'sqlite' else 'CAST(:value AS numeric)'
    sql(store, f'UPDATE spending_limits SET amount = {cast} WHERE id = :id', value=value, id=limit_id)


@pytest.fixture
def engine(store: Store) -> Iterator[ChatEngine]:
    writes = WriteQueue(store)
    yield ChatEngine(store, writes, Settings())
    writes.close()


def test_a_limit_whose_amount_is_not_a_number_is_marked_and_refuses_the_turns_it_applies_to(
    client: TestClient, store: Store, engine: ChatEngine
) -> None:
    add_price(store)
    good = add_limit(store, 'tenant', 'org:beta', '5')
    bad = add_limit(store, 'tenant', 'org:acme', '5')
    spoil_amount(store, bad.id)
    listed = client.get('/api/limits')
    assert listed.status_code == 200, listed.text
    rows = {row['id']: row for row in listed.json()['limits']}
    assert rows[good.id]['amount'] == '5' and rows[good.id]['corrupt'] is None
    assert rows[bad.id]['amount'] is None and rows[bad.id]['headroom'] == '0'
    assert rows[bad.id]['corrupt'] == f'spending_limits {bad.id}: amount is not a number'
    corrupt_answer(client.get(f'/api/limits/{bad.id}'), 'spending_limits', bad.id)
    # The CLI lists the others and marks it.
    result = cli('limits', 'list')
    assert result.exit_code == 0, result.output
    assert 'org:beta' in result.output
    assert f'corrupt: spending_limits {bad.id}: amount is not a number' in result.output
    # A turn it applies to cannot know how much is left: refused, naming the row, nothing spent.
    target = TurnTarget.for_agent(priced_agent(), slug='priced')
    scope = Scope(tenant=('org', 'acme'), actor=('user', '1'))
    prepared = engine.prepare(TurnRequest(target, 'Hi', scope=scope, origin='app'))
    assert client.portal is not None
    events = client.portal.call(lambda: _run(engine, prepared))
    failed = failure(events)
    assert failed is not None and f'spending_limits {bad.id}: amount is not a number' in failed.message
    # One it does not apply to runs.
    other = Scope(tenant=('org', 'beta'), actor=('user', '1'))
    prepared = engine.prepare(TurnRequest(target, 'Hi', scope=other, origin='app'))
    assert failure(client.portal.call(lambda: _run(engine, prepared))) is None
    # Changing its amount mends it.
    mended = client.patch(f'/api/limits/{bad.id}', json={'amount': str(CALL_COST * 10)})
    assert mended.status_code == 200, mended.text
    assert client.get(f'/api/limits/{bad.id}').json()['amount'] == '1'


async def _run(engine: ChatEngine, prepared: Any) -> list[Any]:
    events = await collect(engine.stream(await prepared))
    await engine.writes.drain()
    return events


# -- (b) a model call's data -------------------------------------------------------------------


def trace_with_call(store: Store) -> tuple[str, str]:
    run_id, call_id = 'run-' + new_id(), new_id()
    columns = (
        'agent_run_id, parent_run_id, root_run_id, depth, is_root, origin, module, trace_id, span_id, '
        'status, input_tokens, output_tokens, model_calls, tool_calls, started_at, finished_at, duration_ms'
    )
    sql(
        store,
        f'INSERT INTO trace_runs ({columns}) VALUES (:id, NULL, :id, 0, :yes, :origin, '
        "'chat', :trace, :span, 'ok', 0, 0, 1, 0, :at, :at, 0)",
        id=run_id,
        yes=True,
        origin='direct',
        trace='0' * 32,
        span='1' * 16,
        at='2026-01-01 10:00:00',
    )
    with store.write() as session:
        session.add(
            DebugLog(
                id=call_id,
                agent_run_id=run_id,
                root_run_id=run_id,
                origin='direct',
                module='chat',
                action='chat_turn',
                span_id='2' * 16,
                parent_span_id='1' * 16,
                data=zlib.compress(b'{"request": {}}'),
            )
        )
    return run_id, call_id


@pytest.mark.parametrize(
    ('data', 'detail'),
    [(b'not zlib at all', 'data is not zlib-compressed'), (zlib.compress(b'{oops'), 'data is not JSON')],
)
def test_a_model_calls_damaged_data_is_a_409_and_its_trace_loads(
    client: TestClient, store: Store, data: bytes, detail: str
) -> None:
    run_id, call_id = trace_with_call(store)
    sql(store, 'UPDATE debug_logs SET data = :data WHERE id = :id', data=data, id=call_id)
    message = corrupt_answer(client.get(f'/api/traces/calls/{call_id}'), 'debug_logs', call_id)
    assert detail in message
    tree = client.get(f'/api/traces/{run_id}')
    assert tree.status_code == 200, tree.text
    assert [child['kind'] for child in tree.json()['root']['children']] == ['model']
    one_line(cli('traces', 'call', call_id), 'debug_logs', call_id)


# -- (c) a conversation's deps values ----------------------------------------------------------


def spoil_json(store: Store, table: str, column: str, row_id: str, *, wrong_kind: str) -> None:
    """Text that is not JSON on SQLite; on PostgreSQL (JSONB holds only JSON), JSON of the wrong kind."""
    if store.dialect == 'sqlite':
        sql(store, f'UPDATE {table} SET {column} = :value WHERE id = :id', value='{not json', id=row_id)
    else:
        sql(
            store,
            f'UPDATE {table} SET {column} = CAST(:value AS jsonb) WHERE id = :id',
            value=wrong_kind,
            id=row_id,
        )


def billing(store: Store) -> str:
    """`config:billing`, on the demo model, whose deps schema needs an account id."""
    with store.write() as session:
        session.add_all(
            [
                Preset(key='offline', model='demo'),
                AgentConfig(
                    key='billing', instructions='Bill.', preset_key='offline', spec={'deps_schema': SCHEMA}
                ),
            ]
        )
    return 'config:billing'


SCHEMA = {'type': 'object', 'required': ['account_id'], 'properties': {'account_id': {'type': 'integer'}}}


def test_damaged_deps_values_open_and_list_and_a_turn_needing_them_is_refused_naming_the_row(
    client: TestClient, store: Store
) -> None:
    agent = billing(store)
    first = chat(client, agent, deps='{"account_id": 1}')
    assert first.status_code == 200, first.text
    conversation_id = decode(first.text)[0]['messageMetadata']['conversation_id']
    greeted = new_conversation(client)
    for spoiled in (conversation_id, greeted):
        spoil_json(store, 'conversations', 'deps_values', spoiled, wrong_kind='"text"')
    listed = client.get('/api/conversations')
    assert listed.status_code == 200, listed.text
    assert {row['id'] for row in listed.json()['conversations']} == {conversation_id, greeted}
    opened = client.get(f'/api/conversations/{conversation_id}')
    assert opened.status_code == 200, opened.text
    shown = opened.json()['conversation']
    assert shown['deps_values'] is None
    assert shown['corrupt'].startswith(f'conversations {conversation_id}: deps_values ')
    # A fork of it starts with no values rather than copying what cannot be read.
    [asked] = [m['id'] for m in opened.json()['messages'] if m['role'] == 'user']
    forked = client.post(f'/api/conversations/{conversation_id}/fork', json={'message_id': asked})
    assert forked.status_code == 201, forked.text
    fork = client.get(f'/api/conversations/{forked.json()["id"]}').json()['conversation']
    assert (fork['deps_values'], fork['corrupt']) == (None, None)
    # The greeter declares no deps schema: its turns never read them.
    assert 'error' not in types(decode(chat(client, GREETER, conversation_id=greeted).text))
    # An agent with a deps schema would run with them: refused, naming the row.
    refused = chat(client, agent, conversation_id=conversation_id)
    assert 'deps_values' in corrupt_answer(refused, 'conversations', conversation_id)
    # Sending new values replaces them.
    resent = chat(client, agent, conversation_id=conversation_id, deps='{"account_id": 2}')
    assert resent.status_code == 200, resent.text
    assert 'error' not in types(decode(resent.text))
    mended = client.get(f'/api/conversations/{conversation_id}').json()['conversation']
    assert mended['corrupt'] is None and mended['deps_values'] == {'account_id': 2}


# -- (d) a task's context ----------------------------------------------------------------------


def shell(*args: str) -> Any:
    """`synapse ...` with the plugins' commands (`tasks` among them)."""
    return CliRunner().invoke(command_line(), list(args), env={'COLUMNS': '400'})


def test_a_task_whose_context_cannot_be_read_is_listed_marked_refused_in_detail_and_fails_alone(
    client: TestClient, store: Store, context: SynapseContext
) -> None:
    body = {
        'name': 'Order desk',
        'agent': SUPPORT,
        'instruction': 'Check the order.',
        'events': ['order.placed'],
    }
    standing = client.post('/api/standing-agents', json=body)
    assert standing.status_code == 201, standing.text
    standing_id = standing.json()['id']
    fired = client.post('/api/events', json={'event': 'order.placed', 'context': {'order': 'A-1001'}})
    assert fired.status_code == 202, fired.text
    [bad] = fired.json()['queued']
    queued = client.post(f'/api/standing-agents/{standing_id}/run')
    assert queued.status_code == 202, queued.text
    good = queued.json()['task']['id']
    spoil_json(store, 'agent_tasks', 'context', bad, wrong_kind='["A-1001"]')
    mark = f'agent_tasks {bad}: context '
    listed = client.get('/api/tasks')
    assert listed.status_code == 200, listed.text
    rows = {row['id']: row for row in listed.json()['tasks']}
    assert rows[good]['corrupt'] is None and rows[bad]['corrupt'].startswith(mark)
    runs = client.get(f'/api/standing-agents/{standing_id}').json()['last_runs']
    assert [run['corrupt'] is not None for run in runs] == [False, True]
    corrupt_answer(client.get(f'/api/tasks/{bad}'), 'agent_tasks', bad)
    assert client.get(f'/api/tasks/{good}').status_code == 200
    # The CLI lists the others and marks it; showing it says why in one line.
    result = shell('tasks', 'list', '--runs')
    assert result.exit_code == 0, result.output
    assert good in result.output and f'corrupt: {mark}' in result.output
    one_line(shell('tasks', 'show', bad), 'agent_tasks', bad)
    one_line(shell('tasks', 'show', bad, '--json'), 'agent_tasks', bad)
    # A worker fails that task, naming the row, and runs the next one.
    assert client.portal is not None
    assert client.portal.call(runner.run_task, context, bad, 'test-worker') == 'failed'
    assert client.portal.call(runner.run_task, context, good, 'test-worker') == 'succeeded'
    failed = client.get('/api/tasks').json()['tasks']
    error = next(row['error'] for row in failed if row['id'] == bad)
    assert error.startswith(mark) and 'did not start' in error, error


# -- (e) a turn's stored model messages ----------------------------------------------------------


@pytest.mark.parametrize(
    ('damage', 'detail'),
    [
        ('kind', 'model_messages holds a string, not a list'),
        ('shape', 'model_messages are not model messages'),
    ],
)
def test_damaged_model_messages_keep_the_thread_open_and_a_new_turn_is_refused_naming_the_message(
    client: TestClient, store: Store, damage: str, detail: str
) -> None:
    conversation_id = new_conversation(client)
    again = chat(client, GREETER, conversation_id=conversation_id)
    assert 'error' not in types(decode(again.text))
    thread = client.get(f'/api/conversations/{conversation_id}').json()
    first = next(m['id'] for m in thread['messages'] if m['role'] == 'assistant')
    if damage == 'kind':
        spoil_json(store, 'messages', 'model_messages', first, wrong_kind='"text"')
        if store.dialect == 'sqlite':
            detail = 'model_messages is not JSON'
    else:  # JSON of the right kind whose items are not model messages: only a replay can tell
        sql(store, 'UPDATE messages SET model_messages = \'[{"kind": 1}]\' WHERE id = :id', id=first)
    opened = client.get(f'/api/conversations/{conversation_id}')
    assert opened.status_code == 200, opened.text
    marks = {m['id']: m.get('corrupt') for m in opened.json()['messages'] if m['role'] == 'assistant'}
    assert len(marks) == 2
    if damage == 'kind':  # what the thread can tell without reading the whole value
        assert marks.pop(first) == f'messages {first}: {detail}'
    assert set(marks.values()) == {None}
    listed = client.get('/api/conversations')
    assert listed.status_code == 200 and [c['id'] for c in listed.json()['conversations']] == [
        conversation_id
    ]
    # A new turn would replay it: refused before its stream starts, naming the message.
    refused = chat(client, GREETER, conversation_id=conversation_id)
    assert detail in corrupt_answer(refused, 'messages', first)
    if store.dialect == 'sqlite' and damage == 'kind':  # text that is not JSON cannot be copied
        asked = next(m['id'] for m in opened.json()['messages'][2:] if m['role'] == 'user')
        forked = client.post(f'/api/conversations/{conversation_id}/fork', json={'message_id': asked})
        corrupt_answer(forked, 'messages', first)


# -- (f) a scope type holding ':' ----------------------------------------------------------------


def test_rows_whose_scope_type_holds_a_colon_still_load_and_a_turn_or_task_on_them_is_refused_naming_the_row(
    client: TestClient, store: Store, context: SynapseContext
) -> None:
    conversation_id = new_conversation(client)
    sql(
        store,
        "UPDATE conversations SET tenant_type = 'org:8', tenant_id = 'x' WHERE id = :id",
        id=conversation_id,
    )
    mark = f'conversations {conversation_id}: tenant type: '
    listed = client.get('/api/conversations')
    assert listed.status_code == 200, listed.text
    [row] = listed.json()['conversations']
    assert row['tenant'] == {'type': 'org:8', 'id': 'x'} and row['corrupt'].startswith(mark)
    opened = client.get(f'/api/conversations/{conversation_id}')
    assert opened.status_code == 200, opened.text
    assert opened.json()['conversation']['corrupt'].startswith(mark)
    assert 'tenant type' in corrupt_answer(
        chat(client, GREETER, conversation_id=conversation_id), 'conversations', conversation_id
    )

    body = {'name': 'Order desk', 'agent': SUPPORT, 'instruction': 'Check the order.', 'tenant': 'org:acme'}
    standing_id = client.post('/api/standing-agents', json=body).json()['id']
    bad, good = (
        client.post(f'/api/standing-agents/{standing_id}/run').json()['task']['id'] for _ in range(2)
    )
    sql(store, "UPDATE agent_tasks SET tenant_type = 'org:8' WHERE id = :id", id=bad)
    task_mark = f'agent_tasks {bad}: tenant type: '
    rows = {task['id']: task for task in client.get('/api/tasks').json()['tasks']}
    assert rows[bad]['tenant'] == 'org:8:acme' and rows[bad]['corrupt'].startswith(task_mark)
    assert rows[good]['corrupt'] is None
    shown = client.get(f'/api/tasks/{bad}')
    assert shown.status_code == 200 and shown.json()['corrupt'].startswith(task_mark), shown.text
    assert client.portal is not None
    assert client.portal.call(runner.run_task, context, bad, 'test-worker') == 'failed'
    assert client.portal.call(runner.run_task, context, good, 'test-worker') == 'succeeded'
    error = client.get(f'/api/tasks/{bad}').json()['error']
    assert error.startswith(task_mark) and 'did not start' in error, error
