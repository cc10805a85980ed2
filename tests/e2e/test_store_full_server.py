"""A real `synapse serve` whose store stops taking writes, and takes them again.

On SQLite the server's own connections get `PRAGMA max_page_count` set to the file's size on every
transaction while `marks/full` exists (the project's agent module installs the listener, as any
module imported in the process could): every write that needs a new page fails with SQLite's own
"database or disk is full". On PostgreSQL the test adds a `CHECK (false)` constraint to `messages`
in the server's database and drops it again. Either way: the turn's stream ends with an error card
saying it was not saved, `/api/health` answers 503 naming the cause, and once the store works the
next turn is saved and health is back to 200, without a restart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from chat_helpers import decode, types

pytestmark = pytest.mark.slow

SLUG = 'agents.notes.notes'
CONSTRAINT = 'synapse_test_refuses_writes'

AGENT_MODULE = """
import pathlib

from pydantic_ai import Agent
from pydantic_ai.models.function import FunctionModel
from sqlalchemy import Engine, event

FULL = pathlib.Path(__file__).resolve().parent.parent / 'marks' / 'full'


@event.listens_for(Engine, 'begin')
def _pages(connection):
    if connection.dialect.name == 'sqlite':
        pages = 1 if FULL.exists() else 1073741823  # 1: no bigger than the file already is
        connection.connection.driver_connection.execute(f'PRAGMA max_page_count = {pages}')


async def stream(messages, info):
    yield 'Noted.'


notes = Agent(FunctionModel(stream_function=stream, model_name='notes'), name='notes')
"""

LONG = 'Please keep this. ' * 1000
"""Bigger than any free room in the database file: storing it must grow the file."""


@pytest.fixture
def project(isolated_env: Path) -> Path:
    (isolated_env / 'agents').mkdir()
    (isolated_env / 'agents' / 'notes.py').write_text(AGENT_MODULE)
    (isolated_env / 'marks').mkdir()
    return isolated_env


@pytest.fixture
def server(live_server: Any, project: Path, dialect: str, request: pytest.FixtureRequest) -> Any:
    if dialect == 'sqlite':
        return live_server(['agents'])
    from synapse_agents.store import Store, upgrade

    url: str = request.getfixturevalue('empty_postgres_database')
    store = Store.open(url, project / 'unused')
    upgrade(store.engine)
    store.close()
    server = live_server(['agents'], env={'SYNAPSE_DATABASE_URL': url})
    server.database = url
    return server


def set_full(server: Any, project: Path, dialect: str, full: bool) -> str:
    """Make the server's store refuse writes (or take them again); the cause its errors name."""
    if dialect == 'sqlite':
        marker = project / 'marks' / 'full'
        marker.touch() if full else marker.unlink()
        return 'database or disk is full'
    from sqlalchemy import create_engine, text

    engine = create_engine(server.database)
    with engine.begin() as connection:
        if full:
            connection.execute(
                text(f'ALTER TABLE messages ADD CONSTRAINT {CONSTRAINT} CHECK (false) NOT VALID')
            )
        else:
            connection.execute(text(f'ALTER TABLE messages DROP CONSTRAINT {CONSTRAINT}'))
    engine.dispose()
    return f'violates check constraint "{CONSTRAINT}"'


def chat(url: str, message: str, conversation_id: str | None = None) -> list[dict[str, Any]]:
    data = {'message': message, **({'conversation_id': conversation_id} if conversation_id else {})}
    response = httpx.post(f'{url}/api/agents/{SLUG}/chat', data=data, timeout=30)
    assert response.status_code == 200, response.text
    return decode(response.text)


def test_writes_fail_then_work_again(server: Any, project: Path, dialect: str) -> None:
    url = server.url
    first = chat(url, 'first')
    conversation_id = first[-2]['messageMetadata']['conversation_id']
    assert first[-2]['messageMetadata']['saved'] is True

    cause = set_full(server, project, dialect, True)
    for conversation in (conversation_id, None):  # an existing conversation, and a new one
        chunks = chat(url, LONG, conversation)
        kinds = types(chunks)
        assert kinds[-2:] == ['finish', '[DONE]'] and chunks[-2]['finishReason'] == 'error'
        card = chunks[kinds.index('data-error')]['data']
        assert card['class'] == 'TurnNotSaved'
        assert card['message'].startswith('This turn could not be saved: ') and cause in card['message']
        assert chunks[kinds.index('error')]['errorText'] == f'TurnNotSaved: {card["message"]}'
        final = chunks[-2]['messageMetadata']
        assert final['saved'] is False and final['message_id'] is None
        assert final['conversation_id'] == conversation
    health = httpx.get(f'{url}/api/health', timeout=10)
    assert health.status_code == 503
    assert health.json()['status'] == 'degraded' and cause in health.json()['store']['error']
    listed = httpx.get(f'{url}/api/conversations', timeout=10).json()
    assert [c['id'] for c in listed['conversations']] == [conversation_id]
    stored = httpx.get(f'{url}/api/conversations/{conversation_id}', timeout=10).json()
    assert [m['content'] for m in stored['messages']] == ['first', 'Noted.']

    set_full(server, project, dialect, False)
    again = chat(url, LONG, conversation_id)
    assert 'error' not in types(again) and again[-2]['messageMetadata']['saved'] is True
    stored = httpx.get(f'{url}/api/conversations/{conversation_id}', timeout=10).json()
    assert [m['content'] for m in stored['messages']] == ['first', 'Noted.', LONG, 'Noted.']
    assert stored['conversation']['message_count'] == 4
    health = httpx.get(f'{url}/api/health', timeout=10)
    assert health.status_code == 200 and health.json()['store'] == {'ok': True, 'error': None}
