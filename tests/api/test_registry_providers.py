"""Registry providers over HTTP on every selected database: CRUD, refusals, secrets, the test request."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pydantic_ai.models
import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr
from sqlalchemy import text

from chat_helpers import LOCAL_PEER, LOCAL_URL
from conftest import free_port
from synapse_agents.encryption import HOW_TO_SET, SecretBox, UndecryptableSecret, new_key
from synapse_agents.registry import providers_store
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.store import Store
from synapse_agents.web.app import create_app

API_KEY = 'sk-proj-Zq8vW3xLmN5pR7tY9uB2cD4fG6hJ'


@pytest.fixture
def secret_key(context: SynapseContext) -> str:
    """A `secret_key` set on the app's settings."""
    key = new_key()
    context.settings.secret_key = SecretStr(key)
    return key


@pytest.fixture
def keyed(context: SynapseContext, secret_key: str) -> Iterator[TestClient]:
    """A client for an app whose settings hold a secret key."""
    with TestClient(create_app(context), base_url=LOCAL_URL, client=LOCAL_PEER) as client:
        yield client


def error(response: Any) -> dict[str, Any]:
    body: dict[str, Any] = response.json()['error']
    return body


def test_provider_crud(keyed: TestClient) -> None:
    created = keyed.post(
        '/api/registry/providers',
        json={'key': 'acme', 'kind': 'openai', 'name': 'Acme', 'api_key': API_KEY, 'options': {'org': 'x'}},
    )
    assert created.status_code == 201, created.text
    body = created.json()
    assert body['key'] == 'acme' and body['name'] == 'Acme' and body['options'] == {'org': 'x'}
    assert body['secret_set'] is True and body['secret_last4'] == API_KEY[-4:]
    assert 'api_key' not in body and 'secret' not in body
    assert body['created_at'].endswith('Z') and body['enabled'] is True

    assert keyed.get('/api/registry/providers').json()['providers'] == [body]
    assert keyed.get('/api/registry/providers/acme').json() == body

    changed = keyed.patch('/api/registry/providers/acme', json={'name': 'Acme Inc', 'enabled': False}).json()
    assert changed['name'] == 'Acme Inc' and changed['enabled'] is False
    assert changed['secret_last4'] == API_KEY[-4:], 'a PATCH without api_key keeps the key'
    assert changed['updated_at'] >= body['updated_at']

    removed = keyed.delete('/api/registry/providers/acme')
    assert removed.status_code == 200 and removed.json() == {'deleted': 'acme'}
    assert keyed.get('/api/registry/providers/acme').status_code == 404
    assert keyed.get('/api/registry/providers').json() == {'providers': []}


def test_patch_api_key_absent_keeps_null_removes_string_replaces(keyed: TestClient, store: Store) -> None:
    keyed.post('/api/registry/providers', json={'key': 'p', 'kind': 'anthropic', 'api_key': API_KEY})
    box = SecretBox.from_setting(keyed.app.state.synapse.settings.secret_key)  # type: ignore[attr-defined]
    assert providers_store.secret_of(store, box, 'p') == API_KEY
    keyed.patch('/api/registry/providers/p', json={'name': 'renamed'})
    assert providers_store.secret_of(store, box, 'p') == API_KEY
    replaced = keyed.patch('/api/registry/providers/p', json={'api_key': 'sk-other-key-9876'}).json()
    assert replaced['secret_last4'] == '9876'
    assert providers_store.secret_of(store, box, 'p') == 'sk-other-key-9876'
    removed = keyed.patch('/api/registry/providers/p', json={'api_key': None}).json()
    assert removed['secret_set'] is False and removed['secret_last4'] is None
    assert providers_store.secret_of(store, box, 'p') is None


@pytest.mark.parametrize(
    ('body', 'location'),
    [
        ({'key': 'a b', 'kind': 'openai'}, 'body.key'),
        ({'key': '', 'kind': 'openai'}, 'body.key'),
        ({'key': 'k' * 101, 'kind': 'openai'}, 'body.key'),
        ({'key': 'ok', 'kind': 'cohere'}, 'body.kind'),
        ({'key': 'ok', 'kind': 'openai-compatible'}, 'body.base_url'),
        ({'key': 'ok', 'kind': 'openai', 'base_url': 'ftp://x'}, 'body.base_url'),
        ({'key': 'ok', 'kind': 'openai', 'api_key': 'has space'}, 'body.api_key'),
        ({'key': 'ok', 'kind': 'openai', 'name': 'a\x00b'}, 'body.name'),
        ({'key': 'ok', 'kind': 'openai', 'options': {'a': 'x\x00'}}, 'body.options'),
        ({'key': 'ok', 'kind': 'openai', 'surprise': 1}, 'body.surprise'),
        ({'kind': 'openai'}, 'body.key'),
    ],
)
def test_invalid_providers_are_422_naming_the_field(
    keyed: TestClient, body: dict[str, Any], location: str
) -> None:
    response = keyed.post('/api/registry/providers', json=body)
    assert response.status_code == 422, response.text
    assert error(response)['fields'][0]['location'] == location
    assert error(response)['message'].startswith(location)


def test_refusals_404_409_and_patch_rules(keyed: TestClient) -> None:
    keyed.post('/api/registry/providers', json={'key': 'p', 'kind': 'openai'})
    duplicate = keyed.post('/api/registry/providers', json={'key': 'p', 'kind': 'groq'})
    assert duplicate.status_code == 409 and "'p' exists already" in error(duplicate)['message']
    for method in ('get', 'patch', 'delete'):
        kwargs: dict[str, Any] = {'json': {}} if method == 'patch' else {}
        missing = getattr(keyed, method)('/api/registry/providers/nope', **kwargs)
        assert missing.status_code == 404 and error(missing)['message'] == "No provider with key 'nope'."
    assert keyed.get('/api/registry/providers/bad key!').status_code == 422
    renamed = keyed.patch('/api/registry/providers/p', json={'key': 'q'})
    assert renamed.status_code == 422 and error(renamed)['fields'][0]['location'] == 'body.key'
    assert keyed.patch('/api/registry/providers/p', json={'key': 'p'}).status_code == 200
    null_name = keyed.patch('/api/registry/providers/p', json={'name': None})
    assert null_name.status_code == 422 and error(null_name)['fields'][0]['location'] == 'body.name'
    # A PATCH is checked as a whole: a kind that needs a base_url gets none.
    compatible = keyed.patch('/api/registry/providers/p', json={'kind': 'openai-compatible'})
    assert compatible.status_code == 422 and error(compatible)['fields'][0]['location'] == 'body.base_url'


def test_a_provider_models_use_cannot_be_deleted(keyed: TestClient) -> None:
    keyed.post('/api/registry/providers', json={'key': 'p', 'kind': 'openai'})
    keyed.post('/api/registry/models', json={'provider_key': 'p', 'name': 'm1'})
    refused = keyed.delete('/api/registry/providers/p')
    assert refused.status_code == 409 and "'p:m1'" in error(refused)['message']
    keyed.delete('/api/registry/models/p:m1')
    assert keyed.delete('/api/registry/providers/p').status_code == 200


def test_storing_a_key_without_a_secret_key_is_refused_with_the_how_to(
    context: SynapseContext, client: TestClient
) -> None:
    # Outside production a key is made in SYNAPSE_HOME (test_secret_key_file.py); production refuses.
    context.settings.env = 'production'
    refused = client.post('/api/registry/providers', json={'key': 'p', 'kind': 'openai', 'api_key': API_KEY})
    assert refused.status_code == 422
    body = error(refused)
    assert body['code'] == 'no_secret_key'
    assert HOW_TO_SET in body['message'] and body['fields'][0]['location'] == 'body.api_key'
    assert client.get('/api/registry/providers').json() == {'providers': []}
    # Without a key to store, a provider is fine.
    assert client.post('/api/registry/providers', json={'key': 'p', 'kind': 'openai'}).status_code == 201
    patched = client.patch('/api/registry/providers/p', json={'api_key': API_KEY})
    assert patched.status_code == 422 and error(patched)['code'] == 'no_secret_key'


def test_a_malformed_secret_key_is_refused_only_when_a_key_is_stored(
    context: SynapseContext, client: TestClient
) -> None:
    context.settings.secret_key = SecretStr('not-a-fernet-key')
    assert client.post('/api/registry/providers', json={'key': 'p', 'kind': 'openai'}).status_code == 201
    refused = client.patch('/api/registry/providers/p', json={'api_key': API_KEY})
    assert refused.status_code == 422 and error(refused)['code'] == 'bad_secret_key'
    assert 'synapse registry new-key' in error(refused)['message']


def _raw_contents(store: Store) -> bytes:
    """Everything the database holds of the providers table, as raw bytes or text."""
    if store.dialect == 'sqlite':
        database = Path(store.engine.url.database or '')
        files = [database, database.with_name(database.name + '-wal')]
        return b''.join(path.read_bytes() for path in files if path.exists())
    with store.engine.connect() as connection:
        rows = connection.execute(text('SELECT registry_providers::text FROM registry_providers')).scalars()
        return '\n'.join(rows).encode()


def test_the_stored_key_never_appears_in_clear(keyed: TestClient, store: Store) -> None:
    created = keyed.post('/api/registry/providers', json={'key': 'p', 'kind': 'mistral', 'api_key': API_KEY})
    listing = keyed.get('/api/registry/providers')
    raw = _raw_contents(store)
    assert b'mistral' in raw, 'the raw read sees the table'
    with store.read() as session:
        cipher = session.execute(text("SELECT secret FROM registry_providers WHERE key = 'p'")).scalar_one()
    assert cipher and cipher.encode() in raw, 'the ciphertext is what is stored'
    for form in (
        API_KEY.encode(),
        base64.b64encode(API_KEY.encode()),
        base64.urlsafe_b64encode(API_KEY.encode()),
    ):
        assert form not in raw
        assert form.decode() not in created.text and form.decode() not in listing.text
    assert API_KEY[:-4] not in created.text + listing.text


def test_rotation_keeps_every_provider_readable_under_the_new_key(store: Store) -> None:
    old, new = new_key(), new_key()
    for index in range(3):
        providers_store.create(
            store,
            SecretBox.from_setting(old),
            {'key': f'p{index}', 'kind': 'openai', 'api_key': f'{API_KEY}{index}'},
        )
    providers_store.create(store, SecretBox.from_setting(old), {'key': 'keyless', 'kind': 'openai'})
    assert providers_store.rotate(store, SecretBox.from_setting(f'{new},{old}')) == 3
    for index in range(3):
        assert (
            providers_store.secret_of(store, SecretBox.from_setting(new), f'p{index}') == f'{API_KEY}{index}'
        )
        with pytest.raises(UndecryptableSecret):
            providers_store.secret_of(store, SecretBox.from_setting(old), f'p{index}')


def test_rotation_is_all_or_nothing(store: Store) -> None:
    first, second, unrelated = new_key(), new_key(), new_key()
    providers_store.create(
        store, SecretBox.from_setting(first), {'key': 'a', 'kind': 'openai', 'api_key': 'sk-a-1234'}
    )
    providers_store.create(
        store, SecretBox.from_setting(second), {'key': 'b', 'kind': 'openai', 'api_key': 'sk-b-1234'}
    )
    with store.read() as session:
        before: dict[str, str] = dict(
            session.execute(text('SELECT key, secret FROM registry_providers')).all()
        )
    with pytest.raises(providers_store.RotationFailed, match="provider 'b'"):
        providers_store.rotate(store, SecretBox.from_setting(f'{unrelated},{first}'))
    with store.read() as session:
        after: dict[str, str] = dict(
            session.execute(text('SELECT key, secret FROM registry_providers')).all()
        )
    assert after == before, 'nothing was re-encrypted'


# -- the test request --------------------------------------------------------------------------


class ChatCompletions(BaseHTTPRequestHandler):
    """Answers like OpenAI's chat completions API, recording what it was asked."""

    seen: list[dict[str, Any]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers['content-length'])))
        self.seen.append({'path': self.path, 'auth': self.headers.get('authorization'), **body})
        answer = json.dumps(
            {
                'id': 'chatcmpl-1',
                'object': 'chat.completion',
                'created': 1,
                'model': body['model'],
                'choices': [
                    {'index': 0, 'message': {'role': 'assistant', 'content': 'OK'}, 'finish_reason': 'stop'}
                ],
                'usage': {'prompt_tokens': 3, 'completion_tokens': 1, 'total_tokens': 4},
            }
        ).encode()
        self.send_response(200)
        self.send_header('content-type', 'application/json')
        self.send_header('content-length', str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: Any) -> None:
        pass  # keep the test output quiet (BaseHTTPRequestHandler logs every request to stderr)


@pytest.fixture
def local_openai() -> Iterator[str]:
    """A tiny local server speaking OpenAI's chat completions; its base URL."""
    ChatCompletions.seen = []
    server = ThreadingHTTPServer(('127.0.0.1', 0), ChatCompletions)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f'http://127.0.0.1:{server.server_port}/v1'
    server.shutdown()
    server.server_close()


@pytest.fixture
def model_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    """Requests to a model allowed: these tests reach only a server on this machine."""
    monkeypatch.setattr(pydantic_ai.models, 'ALLOW_MODEL_REQUESTS', True)


@pytest.mark.usefixtures('model_requests')
def test_the_provider_test_makes_one_tiny_request(keyed: TestClient, local_openai: str) -> None:
    keyed.post(
        '/api/registry/providers',
        json={'key': 'local', 'kind': 'openai-compatible', 'base_url': local_openai, 'api_key': API_KEY},
    )
    answer = keyed.post('/api/registry/providers/local/test', json={'model': 'llama3.2'})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body['ok'] is True and body['model'] == 'llama3.2' and body['error'] is None
    assert isinstance(body['duration_ms'], int) and body['duration_ms'] >= 0
    [request] = ChatCompletions.seen
    assert request['path'] == '/v1/chat/completions' and request['model'] == 'llama3.2'
    assert request['auth'] == f'Bearer {API_KEY}', 'the decrypted key is what is sent'
    assert request['messages'][-1]['content'] == 'Say OK'
    assert (request.get('max_completion_tokens') or request.get('max_tokens')) == 5


@pytest.mark.usefixtures('model_requests')
def test_a_refused_connection_is_reported_verbatim(keyed: TestClient) -> None:
    port = free_port()  # nothing listens there
    keyed.post(
        '/api/registry/providers',
        json={'key': 'down', 'kind': 'openai-compatible', 'base_url': f'http://127.0.0.1:{port}/v1'},
    )
    body = keyed.post('/api/registry/providers/down/test', json={'model': 'm'}).json()
    assert body['ok'] is False and body['model'] == 'm'
    assert body['error']['class'] == 'ModelConnectionError'
    assert body['error']['message'].startswith('Connection error.')
    assert 'Connect call failed' in body['error']['message'] or 'refused' in body['error']['message'].lower()


def test_the_provider_test_of_an_unknown_provider_is_404(keyed: TestClient) -> None:
    response = keyed.post('/api/registry/providers/nope/test', json={'model': 'm'})
    assert response.status_code == 404
    invalid = keyed.post('/api/registry/providers/nope/test', json={'model': ''})
    assert invalid.status_code == 422 and error(invalid)['fields'][0]['location'] == 'body.model'


def test_a_disabled_provider_fails_its_test_with_the_reason(keyed: TestClient) -> None:
    keyed.post('/api/registry/providers', json={'key': 'off', 'kind': 'openai', 'enabled': False})
    body = keyed.post('/api/registry/providers/off/test', json={'model': 'gpt-5-mini'}).json()
    assert body['ok'] is False and 'disabled' in body['error']['message']
