"""A provider that quotes the API key it was sent (as some do in a 401) never gets it stored, shown or
exported: against a real `synapse serve`, a registry provider served for real on loopback answers
every request with a 401 whose body quotes the key; the key is then looked for in the database
(SQLite's file and its `-wal`, or every row of every table on PostgreSQL, debug logs unpacked),
in every API answer (the chat stream, the conversation, the search, the traces list, tree and call,
the provider test), in what reached an OTLP/HTTP receiver and in what the CLI prints."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select, text

from chat_helpers import decode
from synapse_agents.encryption import new_key
from synapse_agents.store import Store
from synapse_agents.traces.rows import unpack
from synapse_agents.traces.tables import DebugLog

KEY = 'sk-echo-Q7rT9wXvB2mN4pL6zK8jH3sD'
SECRET_KEY = new_key()


class EchoingProvider(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint that refuses every request, quoting the key it was sent."""

    keys: list[str] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get('content-length') or 0))
        key = (self.headers.get('authorization') or '').removeprefix('Bearer ')
        self.keys.append(key)
        body = json.dumps(
            {
                'error': {
                    'message': f'Incorrect API key provided: {key}. Find your API key in your account.',
                    'type': 'invalid_request_error',
                    'param': None,
                    'code': 'invalid_api_key',
                    'key': key,
                }
            }
        ).encode()
        self.send_response(401)
        self.send_header('content-type', 'application/json')
        self.send_header('content-length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


class RawReceiver:
    """An OTLP/HTTP traces endpoint that keeps every request body it is sent, unparsed."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get('Content-Length') or 0))
                if self.headers.get('Content-Encoding') == 'gzip':
                    body = gzip.decompress(body)
                receiver.bodies.append(body)
                self.send_response(200)
                self.send_header('Content-Type', 'application/x-protobuf')
                self.send_header('Content-Length', '0')
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.url = f'http://127.0.0.1:{self.server.server_address[1]}'
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def received(self) -> bytes:
        return b''.join(self.bodies)


def _serve(handler: type[BaseHTTPRequestHandler]) -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(('127.0.0.1', 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def provider_url() -> Iterator[str]:
    EchoingProvider.keys = []
    for server in _serve(EchoingProvider):
        yield f'http://127.0.0.1:{server.server_port}/v1'


@pytest.fixture
def receiver() -> Iterator[RawReceiver]:
    running = RawReceiver()
    yield running
    running.server.shutdown()
    running.server.server_close()


def _database_text(store: Store) -> str:
    """Everything the database holds, as text: the SQLite file and its `-wal`, or every row of every
    table on PostgreSQL; and the debug logs' bodies, which are stored compressed."""
    if store.dialect == 'sqlite':
        database = Path(store.engine.url.database or '')
        files = [database, database.with_name(database.name + '-wal')]
        raw = b''.join(path.read_bytes() for path in files if path.exists())
        held = raw.decode('latin-1')
    else:
        with store.engine.connect() as connection:
            tables = connection.execute(
                text('SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()')
            ).scalars()
            held = '\n'.join(
                row
                for table in list(tables)
                for row in connection.execute(text(f'SELECT t::text FROM "{table}" t')).scalars()
            )
    with store.read() as session:
        bodies = [json.dumps(unpack(blob)) for blob in session.scalars(select(DebugLog.data))]
    return held + '\n'.join(bodies)


def _model_calls(node: dict[str, Any]) -> Iterator[str]:
    if node['kind'] == 'model':
        yield node['id']
    for child in node['children']:
        yield from _model_calls(child)


def _cli(*args: str, env: dict[str, str], cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, '-m', 'synapse_agents', *args],
        cwd=cwd,
        env={**os.environ, **env, 'COLUMNS': '400'},
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.stdout + done.stderr


@pytest.mark.slow
def test_a_key_the_provider_echoes_appears_nowhere(
    live_server: Any,
    provider_url: str,
    receiver: RawReceiver,
    database_url: str,
    store: Store,
    isolated_env: Path,
) -> None:
    env = {
        'SYNAPSE_DATABASE_URL': database_url,
        'SYNAPSE_SECRET_KEY': SECRET_KEY,
        'SYNAPSE_OTEL_ENDPOINT': receiver.url,
    }
    server = live_server([], env=env)
    api = httpx.Client(base_url=server.url, timeout=60)
    answers: list[str] = []
    for path, body in (
        (
            '/api/registry/providers',
            {'key': 'echo', 'kind': 'openai-compatible', 'base_url': provider_url, 'api_key': KEY},
        ),
        ('/api/registry/models', {'key': 'echo:gpt-echo', 'provider_key': 'echo', 'name': 'gpt-echo'}),
        ('/api/registry/presets', {'key': 'echoing', 'model': 'echo:gpt-echo'}),
        ('/api/registry/agents', {'key': 'leaky', 'instructions': 'Answer.', 'preset_key': 'echoing'}),
    ):
        created = api.post(path, json=body)
        assert created.status_code == 201, created.text
        answers.append(created.text)

    stream = api.post('/api/agents/config:leaky/chat', data={'message': 'hello there'})
    assert stream.status_code == 200, stream.text
    chunks = decode(stream.text)
    [card] = [chunk for chunk in chunks if chunk['type'] == 'error']
    assert 'Incorrect API key provided' in card['errorText'], 'the card still says what the provider said'
    conversation_id = next(c for c in chunks if 'messageMetadata' in c)['messageMetadata']['conversation_id']
    probe = api.post('/api/registry/providers/echo/test', json={'model': 'gpt-echo'})
    assert probe.status_code == 200 and probe.json()['ok'] is False, probe.text
    assert 'Incorrect API key provided' in probe.json()['error']['message']
    assert EchoingProvider.keys and set(EchoingProvider.keys) == {KEY}, 'the provider did receive the key'

    roots: list[dict[str, Any]] = []
    deadline = time.monotonic() + 15
    while not roots and time.monotonic() < deadline:
        roots = api.get('/api/traces').json()['roots']
        time.sleep(0.1)
    [root] = roots
    tree = api.get(f'/api/traces/{root["agent_run_id"]}')
    assert tree.status_code == 200, tree.text
    models = list(_model_calls(tree.json()['root']))
    assert models, tree.text
    calls = [api.get(f'/api/traces/calls/{node_id}').text for node_id in models]
    thread = api.get(f'/api/conversations/{conversation_id}')
    assert thread.status_code == 200 and 'Incorrect API key provided' in thread.text
    found = api.get('/api/conversations', params={'search': 'Incorrect API key'}).json()
    assert [row['id'] for row in found['conversations']] == [conversation_id], 'the error is searchable'
    by_key = api.get('/api/conversations', params={'search': KEY[8:]}).json()
    answers += [stream.text, probe.text, api.get('/api/traces').text, tree.text, *calls, thread.text]
    answers.append(json.dumps(found))

    deadline = time.monotonic() + 15
    while conversation_id.encode() not in receiver.received() and time.monotonic() < deadline:
        time.sleep(0.1)
    exported = receiver.received()
    assert conversation_id.encode() in exported and b'exception' in exported, 'the spans were exported'

    cli_env = {'SYNAPSE_DATABASE_URL': database_url, 'SYNAPSE_SECRET_KEY': SECRET_KEY}
    shown = _cli('traces', 'show', root['agent_run_id'], env=cli_env, cwd=isolated_env)
    assert 'Incorrect API key provided' in shown, shown
    settings = _cli('settings', env=cli_env, cwd=isolated_env)
    assert 'database_url' in settings, settings

    database = _database_text(store)
    assert 'Incorrect API key provided' in database, 'the scan reads the stored error'
    server.stop()
    database += _database_text(store)

    leaks = {
        'database': KEY in database,
        'api answers': any(KEY in answer for answer in answers),
        'search by the key': by_key['conversations'] != [],
        'otlp export': KEY.encode() in exported,
        'cli': KEY in shown + settings,
    }
    assert not any(leaks.values()), leaks
