"""A failing store is a 503 JSON answer, an unexpected error a 500 one, both with the security headers.

The store failure is real: garbage written over the pages of the `conversations` table of a
seeded SQLite file. The history list and search then answer 503 `store_unavailable`, saying the
store is failing; an id that cannot be one is still a plain 404, because it is refused before the
database is read. A route that raises something unexpected answers the JSON 500, whose headers
come from a different layer than every other answer's.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.exc import IntegrityError

from chat_helpers import LOCAL_PEER, LOCAL_URL, seed_conversation
from synapse_agents.discovery import Catalog
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.settings import load_settings
from synapse_agents.store import Store
from synapse_agents.store.setup import open_store
from synapse_agents.web.app import create_app
from synapse_agents.web.hardening import SECURITY_HEADERS
from synapse_agents.web.server import DEMO_TARGET

PAGE = 4096


def assert_secured(response: object) -> None:
    headers = response.headers  # type: ignore[attr-defined]
    for name, value in SECURITY_HEADERS.items():
        assert headers.get(name) == value, (name, dict(headers))


@pytest.fixture
def sqlite_app(isolated_env: Path) -> Iterator[tuple[FastAPI, Store, Path]]:
    """The app on the embedded SQLite store of the test's home, seeded with 300 conversations."""
    loaded = load_settings()
    store = open_store(loaded.settings)
    for index in range(300):
        seed_conversation(store, title=f'Conversation {index} ' + 'x' * 80, answer='answer words ' * 20)
    context = SynapseContext(
        loaded=loaded,
        store=store,
        targets=[DEMO_TARGET],
        catalog=Catalog([DEMO_TARGET], loaded.project_root),
    )
    database = Path(store.engine.url.database or '')
    try:
        yield create_app(context), store, database
    finally:
        store.close()


def corrupt_conversations(store: Store, database: Path) -> int:
    """Write random bytes over every page of the `conversations` table and its indexes; how many."""
    with store.engine.connect() as connection:
        connection.exec_driver_sql('PRAGMA wal_checkpoint(TRUNCATE)')
    store.engine.dispose()  # no connection keeps a cached copy of the pages
    with sqlite3.connect(database) as reader:
        pages = [
            number
            for (number,) in reader.execute(
                "SELECT pageno FROM dbstat WHERE name = 'conversations'"
                " OR name LIKE 'ix_conversations%' OR name LIKE 'sqlite_autoindex_conversations%'"
            )
        ]
    reader.close()
    assert len(pages) > 5
    with database.open('r+b') as handle:
        for number in pages:
            handle.seek((number - 1) * PAGE)
            handle.write(os.urandom(PAGE))
    return len(pages)


def test_a_corrupted_database_is_a_503_naming_the_store(sqlite_app: tuple[FastAPI, Store, Path]) -> None:
    app, store, database = sqlite_app
    with TestClient(app, base_url=LOCAL_URL, client=LOCAL_PEER) as client:
        assert client.get('/api/conversations').json()['total'] == 300
        corrupt_conversations(store, database)
        for url in (
            '/api/conversations',
            '/api/conversations?search=Conversation%2012',
            '/api/conversations?page=3',
        ):
            response = client.get(url)
            assert response.status_code == 503, (url, response.text[:300])
            error = response.json()['error']
            assert error['code'] == 'store_unavailable'
            assert 'store is failing' in error['message'] and 'sqlite' in error['message'], error
            assert 'SELECT' not in error['message']
            assert_secured(response)
        # Refused before anything reads the damaged file.
        response = client.get('/api/conversations/%2e%2e')
        assert response.status_code == 404 and response.json()['error']['code'] == 'not_found'
        assert_secured(response)


def test_an_unexpected_error_is_a_json_500_with_the_security_headers(client: TestClient) -> None:
    app = client.app
    assert isinstance(app, FastAPI)

    async def broken() -> None:
        raise RuntimeError('a bug')

    async def refused_by_the_database() -> None:
        raise IntegrityError('INSERT ...', {}, Exception('UNIQUE constraint failed'))

    app.add_api_route('/api/broken', broken)
    app.add_api_route('/api/refused', refused_by_the_database)
    with TestClient(app, base_url=LOCAL_URL, raise_server_exceptions=False, client=LOCAL_PEER) as unraised:
        for url, kind in (('/api/broken', 'RuntimeError'), ('/api/refused', 'IntegrityError')):
            response = unraised.get(url)
            assert response.status_code == 500, response.text
            assert response.json()['error'] == {
                'code': 'internal',
                'message': f'Internal error ({kind}); see the server log.',
            }
            assert_secured(response)


def test_every_operation_declares_the_503(client: TestClient) -> None:
    schema = client.get('/api/openapi.json').json()
    operation = schema['paths']['/api/conversations']['get']
    assert operation['responses']['503']['content']['application/json']['schema'] == {
        '$ref': '#/components/schemas/Error'
    }
