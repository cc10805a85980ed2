"""Faults around a real `synapse serve` process: a client that leaves, a server killed with SIGKILL,
20 chats at once on SQLite, and PostgreSQL connections that are cut.

The project's agent (`agents/faulty.py`) is scripted by its message: the first word names the tool
it calls after writing "Let me check. " (`lookup` answers at once, `hang` takes a minute, `pause`
waits for the test to write `marks/resume`), except `drip`, which streams a word every 50 ms for
half a minute and calls nothing; once the tool has answered it says how many user
prompts it was sent, which shows what history a turn replayed. Its tools leave marker files in
`marks/` so the test can see what ran inside the server (started, cancelled, finished).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from chat_helpers import decode, iter_chunks

pytestmark = pytest.mark.slow

SLUG = 'agents.faulty.faulty'

AGENT_MODULE = """
import asyncio
import json
import pathlib

from pydantic_ai import Agent
from pydantic_ai.messages import ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import DeltaToolCall, FunctionModel

MARKS = pathlib.Path(__file__).resolve().parent.parent / 'marks'


def mark(name):
    MARKS.mkdir(exist_ok=True)
    (MARKS / name).touch()


async def stream(messages, info):
    prompts = [p.content for m in messages for p in m.parts if isinstance(p, UserPromptPart)]
    if prompts[-1].startswith('drip'):
        for _ in range(600):
            yield 'word '
            await asyncio.sleep(0.05)
        return
    if not any(isinstance(p, ToolReturnPart) for p in messages[-1].parts):
        yield 'Let me check. '
        call = DeltaToolCall(
            name=prompts[-1].split()[0], json_args='{"order_id": "A-1"}', tool_call_id=f'call_{len(prompts)}'
        )
        yield {0: call}
        return
    yield f'Done after {len(prompts)} prompts.'


faulty = Agent(FunctionModel(stream_function=stream, model_name='faulty'), name='faulty')


@faulty.tool_plain
def lookup(order_id: str) -> dict:
    return {'order_id': order_id, 'status': 'shipped'}


@faulty.tool_plain
async def hang(order_id: str) -> str:
    mark('hang-started')
    try:
        await asyncio.sleep(60)
    except asyncio.CancelledError:
        mark('hang-cancelled')
        raise
    mark('hang-finished')
    return 'finished'


@faulty.tool_plain
async def pause(order_id: str) -> str:
    mark('pause-started')
    for _ in range(600):
        if (MARKS / 'resume').exists():
            return 'resumed'
        await asyncio.sleep(0.05)
    return 'gave up'
"""


@pytest.fixture
def project(isolated_env: Path) -> Path:
    (isolated_env / 'agents').mkdir()
    (isolated_env / 'agents' / 'faulty.py').write_text(AGENT_MODULE)
    return isolated_env


@pytest.fixture
def database(dialect: str, project: Path, request: pytest.FixtureRequest) -> str:
    """The URL of the database the servers of this test use: SQLite in the test's home, or a
    migrated PostgreSQL database of the test's own."""
    if dialect == 'sqlite':
        return f'sqlite:///{project.parent / "home" / "synapse.db"}'
    from synapse_agents.store import Store, upgrade

    url: str = request.getfixturevalue('empty_postgres_database')
    store = Store.open(url, project / 'unused')
    upgrade(store.engine)
    store.close()
    return url


def serve(live_server: Any, dialect: str, database: str) -> Any:
    """`synapse serve agents` on the test's database."""
    return live_server(['agents'], env={} if dialect == 'sqlite' else {'SYNAPSE_DATABASE_URL': database})


def totals_and_ledger(database: str, conversation_id: str) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The conversation's counters, and the same sums taken over its rows and its ledger."""
    from sqlalchemy import create_engine, text

    engine = create_engine(database)
    with engine.connect() as connection:
        params = {'id': conversation_id}
        totals = connection.execute(
            text(
                'SELECT input_tokens, output_tokens, cost, tool_count, message_count '
                'FROM conversations WHERE id = :id'
            ),
            params,
        ).one()
        ledger = connection.execute(
            text(
                'SELECT coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0), sum(cost), '
                '(SELECT count(*) FROM tool_invocations WHERE conversation_id = :id), '
                '(SELECT count(*) FROM messages WHERE conversation_id = :id) '
                'FROM llm_calls WHERE conversation_id = :id'
            ),
            params,
        ).one()
    engine.dispose()
    return tuple(totals), tuple(ledger)


def chat(url: str, message: str, conversation_id: str | None = None) -> list[dict[str, Any]]:
    data = {'message': message, **({'conversation_id': conversation_id} if conversation_id else {})}
    response = httpx.post(f'{url}/api/agents/{SLUG}/chat', data=data, timeout=30)
    assert response.status_code == 200, response.text
    return decode(response.text)


@contextmanager
def streaming(url: str, message: str, until: str, conversation_id: str | None = None) -> Iterator[str]:
    """Start a turn and read it until a chunk of type `until`; hang up when the block ends.

    Yields the conversation id while the stream is still open.
    """
    data = {'message': message, **({'conversation_id': conversation_id} if conversation_id else {})}
    conversation = None
    with httpx.stream('POST', f'{url}/api/agents/{SLUG}/chat', data=data, timeout=30) as response:
        for _received, chunk in iter_chunks(response):
            if chunk['type'] == 'start':
                conversation = chunk['messageMetadata']['conversation_id']
            if chunk['type'] == until:
                assert conversation is not None
                yield str(conversation)
                return
    raise AssertionError(f'the stream ended before a {until!r} chunk')


def thread(url: str, conversation_id: str) -> dict[str, Any]:
    response = httpx.get(f'{url}/api/conversations/{conversation_id}', timeout=10)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def wait_for(condition: Callable[[], Any], what: str, timeout: float = 10) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f'timed out waiting for {what}')


def tools_of(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [part['tool'] for part in message.get('parts', []) if part['type'] == 'tool']


# -- a client that goes away -----------------------------------------------------------------


def test_a_client_that_disconnects_cancels_the_run(live_server: Any, project: Path) -> None:
    server = live_server(['agents'])
    with streaming(server.url, 'hang', 'tool-input-available') as conversation_id:
        pass  # hang up as soon as the tool has started
    marks = project / 'marks'
    # The run is cancelled: the tool sees the cancellation, and never finishes.
    wait_for(lambda: (marks / 'hang-cancelled').exists(), 'the tool to be cancelled')
    assert (marks / 'hang-started').exists() and not (marks / 'hang-finished').exists()

    def interrupted() -> dict[str, Any] | None:
        messages = thread(server.url, conversation_id)['messages']
        return messages[1] if messages[1]['status'] == 'interrupted' else None

    assistant = wait_for(interrupted, 'the answer to be stored as interrupted')
    assert assistant['content'] == 'Let me check. '  # what the model had produced
    (tool,) = tools_of(assistant)
    assert (tool['name'], tool['status']) == ('hang', 'interrupted')
    assert 'Traceback' not in server.output()


def test_a_client_that_leaves_mid_answer_leaves_the_ledger_and_totals_agreeing(
    live_server: Any, project: Path, dialect: str, database: str
) -> None:
    """The answer being streamed when the client left was billed: it has its ledger row, and the
    conversation's tokens are the ledger's."""
    server = serve(live_server, dialect, database)
    with streaming(server.url, 'drip', 'text-delta') as conversation_id:
        pass  # hang up while the model is still writing

    def interrupted() -> dict[str, Any] | None:
        # The turn's first rows may still be on their way to the database (queued, not awaited).
        response = httpx.get(f'{server.url}/api/conversations/{conversation_id}', timeout=10)
        if response.status_code == 404:
            return None
        messages = response.json()['messages']
        return messages[1] if messages[1]['status'] == 'interrupted' else None

    assistant = wait_for(interrupted, 'the answer to be stored as interrupted')
    assert assistant['content'].startswith('word ')
    totals, ledger = totals_and_ledger(database, conversation_id)
    assert totals == ledger
    assert totals[1] > 0  # the words streamed before the client left are counted, and billed
    assert 'Traceback' not in server.output()


# -- a server killed in the middle of a turn --------------------------------------------------


def test_a_server_killed_mid_turn_loses_nothing_else(
    live_server: Any, project: Path, dialect: str, database: str
) -> None:
    server = serve(live_server, dialect, database)
    first = chat(server.url, 'lookup A-1')
    conversation_id = first[0]['messageMetadata']['conversation_id']
    before = thread(server.url, conversation_id)

    def pending() -> bool:
        messages = thread(server.url, conversation_id)['messages']
        return len(messages) == 4 and [t['status'] for t in tools_of(messages[3])] == ['pending']

    with streaming(server.url, 'hang on', 'tool-input-available', conversation_id):
        wait_for(pending, 'the pending tool row to be committed')
        server.process.kill()  # SIGKILL while the turn streams: no shutdown code runs
        server.process.wait(10)

    restarted = serve(live_server, dialect, database)
    assert 'marked 1 turns and 1 tool calls left in flight as interrupted' in restarted.output()
    after = thread(restarted.url, conversation_id)
    user, answer, killed_user, killed = after['messages']
    assert [user, answer] == before['messages']  # the earlier turn is intact
    assert (killed_user['role'], killed_user['status'], killed_user['content']) == (
        'user',
        'complete',
        'hang on',
    )
    assert (killed['role'], killed['status']) == ('assistant', 'interrupted')
    (tool,) = tools_of(killed)
    assert (tool['name'], tool['status']) == ('hang', 'interrupted')
    row = after['conversation']
    # The killed turn's tool call and model request are counted: the counters are the ledger's.
    assert row['message_count'] == 4 and row['tool_count'] == before['conversation']['tool_count'] + 1 == 2
    assert row['input_tokens'] > before['conversation']['input_tokens']
    totals, ledger = totals_and_ledger(database, conversation_id)
    assert totals == ledger

    # The conversation goes on; the interrupted turn is not replayed.
    third = chat(restarted.url, 'lookup again', conversation_id)
    assert 'Done after 2 prompts.' in ''.join(c.get('delta', '') for c in third)
    statuses = [m['status'] for m in thread(restarted.url, conversation_id)['messages']]
    assert statuses == ['complete', 'complete', 'complete', 'interrupted', 'complete', 'complete']


@pytest.mark.postgresql
def test_a_server_restarting_beside_another_leaves_its_live_turn_alone(
    live_server: Any, project: Path, empty_postgres_database: str
) -> None:
    """Two servers on one PostgreSQL: one is killed and restarted while the other is mid-turn; the
    restart's sweep leaves that turn streaming, and it completes."""
    from synapse_agents.store import Store, upgrade

    store = Store.open(empty_postgres_database, project / 'unused')
    upgrade(store.engine)
    store.close()
    env = {'SYNAPSE_DATABASE_URL': empty_postgres_database}
    busy = live_server(['agents'], env=env)
    other = live_server(['agents'], env=env)
    data = {'message': 'pause here'}
    with httpx.stream('POST', f'{busy.url}/api/agents/{SLUG}/chat', data=data, timeout=30) as response:
        chunks = iter_chunks(response)
        conversation_id = None
        for _received, chunk in chunks:
            if chunk['type'] == 'start':
                conversation_id = chunk['messageMetadata']['conversation_id']
            if chunk['type'] == 'tool-input-available':
                break
        assert conversation_id is not None

        def in_flight() -> bool:
            # The turn's first rows may still be on their way to the database (queued, not awaited).
            found = httpx.get(f'{busy.url}/api/conversations/{conversation_id}', timeout=10)
            messages = found.json()['messages'] if found.status_code == 200 else []
            return len(messages) == 2 and [t['status'] for t in tools_of(messages[1])] == ['pending']

        wait_for(in_flight, 'the pending tool row to be committed')
        other.process.kill()
        other.process.wait(10)
        restarted = live_server(['agents'], env=env)  # its start-up sweep has run once it answers
        assert 'left in flight' not in restarted.output()
        answer = thread(restarted.url, conversation_id)['messages'][1]
        assert answer['status'] == 'streaming'
        assert [t['status'] for t in tools_of(answer)] == ['pending']

        (project / 'marks' / 'resume').touch()
        rest = [chunk for _received, chunk in chunks]
    assert rest[-1]['type'] == '[DONE]' and 'Done after 1 prompts.' in ''.join(
        c.get('delta', '') for c in rest
    )
    answer = thread(restarted.url, conversation_id)['messages'][1]
    assert answer['status'] == 'complete'
    assert [(t['name'], t['status']) for t in tools_of(answer)] == [('pause', 'success')]


# -- 20 chats at once on SQLite ---------------------------------------------------------------

COUNTERS_DISAGREE = """
SELECT c.id FROM conversations c
WHERE c.message_count != (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id)
   OR c.tool_count != (SELECT count(*) FROM tool_invocations t WHERE t.conversation_id = c.id)
   OR c.input_tokens != (SELECT sum(l.input_tokens) FROM llm_calls l WHERE l.conversation_id = c.id)
   OR c.output_tokens != (SELECT sum(l.output_tokens) FROM llm_calls l WHERE l.conversation_id = c.id)
"""


def test_twenty_concurrent_chats_on_sqlite(live_server: Any, project: Path) -> None:
    """20 conversations of two turns each, all at once, while the history list is read."""
    from concurrent.futures import ThreadPoolExecutor

    from sqlalchemy import create_engine, text

    server = live_server(['agents'])

    def conversation(index: int) -> str:
        first = chat(server.url, f'lookup {index}')
        conversation_id = str(first[0]['messageMetadata']['conversation_id'])
        second = chat(server.url, f'lookup {index} again', conversation_id)
        for chunks in (first, second):
            assert 'error' not in [c['type'] for c in chunks] and chunks[-1]['type'] == '[DONE]'
        return conversation_id

    def read_history(_index: int) -> int:
        response = httpx.get(f'{server.url}/api/conversations', params={'tools': 'lookup'}, timeout=30)
        assert response.status_code == 200
        return int(response.json()['total'])

    with ThreadPoolExecutor(max_workers=24) as pool:
        readers = [pool.submit(read_history, i) for i in range(10)]
        conversations = list(pool.map(conversation, range(20)))
        assert all(0 <= r.result() <= 20 for r in readers)

    assert len(set(conversations)) == 20
    assert httpx.get(f'{server.url}/api/conversations').json()['total'] == 20
    for conversation_id in conversations:
        body = thread(server.url, conversation_id)
        assert [(m['role'], m['status']) for m in body['messages']] == [
            ('user', 'complete'),
            ('assistant', 'complete'),
        ] * 2
        assert [t['status'] for m in body['messages'] for t in tools_of(m)] == ['success', 'success']
        row = body['conversation']
        assert (row['message_count'], row['tool_count'], row['status']) == (4, 2, 'success')

    # The counters kept on each conversation agree with the rows (read from the file itself).
    engine = create_engine(f'sqlite:///{project.parent / "home" / "synapse.db"}')
    with engine.connect() as connection:
        mismatches = connection.execute(text(COUNTERS_DISAGREE)).all()
        ledger = connection.execute(text('SELECT count(*) FROM llm_calls')).scalar()
    engine.dispose()
    assert mismatches == [] and ledger == 20 * 2 * 2  # two model requests a turn
    assert 'database is locked' not in server.output() and 'Traceback' not in server.output()


# -- PostgreSQL connections cut ---------------------------------------------------------------


def _terminate_connections(admin_url: str, database: str) -> int:
    """`pg_terminate_backend` every connection to `database`; how many there were."""
    from sqlalchemy import create_engine, text

    admin = create_engine(
        admin_url.replace('postgresql://', 'postgresql+psycopg://', 1), isolation_level='AUTOCOMMIT'
    )
    with admin.connect() as connection:
        killed = connection.execute(
            text(
                'SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity '
                'WHERE datname = :name AND pid <> pg_backend_pid()'
            ),
            {'name': database},
        ).scalar()
    admin.dispose()
    return int(killed or 0)


@pytest.fixture
def postgres_server(live_server: Any, project: Path, empty_postgres_database: str) -> Any:
    """`synapse serve` on a migrated PostgreSQL database of this test's own."""
    from synapse_agents.store import Store, upgrade

    store = Store.open(empty_postgres_database, project / 'unused')
    upgrade(store.engine)
    store.close()
    return live_server(['agents'], env={'SYNAPSE_DATABASE_URL': empty_postgres_database})


@pytest.mark.postgresql
def test_postgresql_connections_cut_and_back(
    postgres_server: Any, project: Path, empty_postgres_database: str, postgres_server_url: str
) -> None:
    from sqlalchemy.engine import make_url

    url = postgres_server.url
    database = make_url(empty_postgres_database).database
    assert database is not None
    first = chat(url, 'lookup A-1')
    conversation_id = first[0]['messageMetadata']['conversation_id']

    # Every pooled connection of the server is cut while it is idle: the next requests succeed.
    assert _terminate_connections(postgres_server_url, database) >= 1
    assert httpx.get(f'{url}/api/conversations', timeout=10).json()['total'] == 1
    assert httpx.get(f'{url}/api/health', timeout=10).json()['database'] == 'postgresql'
    second = chat(url, 'lookup again', conversation_id)
    assert 'error' not in [c['type'] for c in second]

    # Cut again in the middle of a turn (its tool is running): the turn still ends and is stored.
    marks = project / 'marks'
    with httpx.stream(
        'POST',
        f'{url}/api/agents/{SLUG}/chat',
        data={'message': 'pause', 'conversation_id': conversation_id},
        timeout=30,
    ) as response:
        wait_for(lambda: (marks / 'pause-started').exists(), 'the tool to start')
        assert _terminate_connections(postgres_server_url, database) >= 1
        (marks / 'resume').touch()
        third = decode(response.read().decode())
    assert 'error' not in [c['type'] for c in third] and third[-1]['type'] == '[DONE]'
    body = thread(url, conversation_id)
    assert [m['status'] for m in body['messages']] == ['complete'] * 6
    assert [t['status'] for m in body['messages'] for t in tools_of(m)] == ['success'] * 3
    assert body['conversation']['message_count'] == 6 and body['conversation']['tool_count'] == 3
