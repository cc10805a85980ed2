"""A configured agent's deps schema never reaches outside itself, never loops, never takes long.

Over HTTP on every selected database: the registry refuses, when a schema is saved, a `$ref` that
leaves the schema (a real local HTTP server counts the requests it gets: none), a reference cycle
that checks a value against itself forever, and a `pattern` with nested quantifiers; a schema
stored before (or by hand) with any of these is the agent's `config_error`, never a fetch, a file
read or a 500; and checking values against an allowed schema ends within a bounded time.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chat_helpers import decode
from synapse_agents.registry.tables import AgentConfig, Preset
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.store import Store
from synapse_agents.web.server import DEMO_TARGET

pytestmark = pytest.mark.any_database(
    reason="the refusals are JSON Schema checks, the database only keeps the schema's text"
)

SECRET = 'SYNAPSE-SECRET-7f3a9c'


class Counting(BaseHTTPRequestHandler):
    """Answers every GET with a JSON Schema, counting the requests."""

    hits: list[str] = []

    def do_GET(self) -> None:
        Counting.hits.append(self.path)
        body = json.dumps({'type': 'string', 'description': SECRET}).encode()
        self.send_response(200)
        self.send_header('content-type', 'application/schema+json')
        self.send_header('content-length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def remote() -> Iterator[str]:
    """A real HTTP server on 127.0.0.1 serving a schema; its requests are in `Counting.hits`."""
    Counting.hits = []
    server = ThreadingHTTPServer(('127.0.0.1', 0), Counting)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f'http://127.0.0.1:{server.server_address[1]}/schema.json'
    server.shutdown()
    server.server_close()


@pytest.fixture
def secret_file(tmp_path: Path) -> str:
    path = tmp_path / 'secret.json'
    path.write_text(json.dumps({'enum': [SECRET]}))
    return path.as_uri()


@pytest.fixture
def served(store: Store, context: SynapseContext, client_for: Callable[..., TestClient]) -> TestClient:
    with store.write() as session:
        session.add(Preset(key='offline', model='demo'))
    return client_for([DEMO_TARGET])


def save(client: TestClient, key: str, schema: Any) -> Any:
    return client.post(
        '/api/registry/agents', json={'key': key, 'preset_key': 'offline', 'spec': {'deps_schema': schema}}
    )


def stored(store: Store, key: str, schema: Any) -> None:
    """A schema written straight to the table (as one saved by an older version would be)."""
    with store.write() as session:
        session.add(AgentConfig(key=key, preset_key='offline', spec={'deps_schema': schema}))


def chat(client: TestClient, key: str, deps: Any) -> Any:
    return client.post(f'/api/agents/config:{key}/chat', data={'message': 'hi', 'deps': json.dumps(deps)})


def refused_at(response: Any, location: str) -> str:
    assert response.status_code == 422, response.text
    [field] = response.json()['error']['fields']
    assert field['location'] == location, field
    return str(field['message'])


def one_property(schema: Any) -> dict[str, Any]:
    return {'type': 'object', 'properties': {'code': schema}}


def test_a_reference_outside_the_schema_is_refused_and_never_fetched(
    served: TestClient, store: Store, remote: str, secret_file: str
) -> None:
    where = 'body.spec.deps_schema.properties.code.$ref'
    for uri in (remote, secret_file, 'https://example.invalid/x.json', 'other.json'):
        message = refused_at(save(served, 'a', one_property({'$ref': uri})), where)
        assert 'outside' in message and SECRET not in message
    patched = served.post('/api/registry/agents', json={'key': 'b', 'preset_key': 'offline'})
    assert patched.status_code == 201, patched.text
    response = served.patch(
        '/api/registry/agents/b', json={'spec': {'deps_schema': one_property({'$ref': remote})}}
    )
    refused_at(response, where)

    # Stored by hand: the agent has a config error, and a chat neither fetches nor reads the file.
    stored(store, 'web', one_property({'$ref': remote}))
    stored(store, 'disk', one_property({'$ref': secret_file}))
    for key in ('web', 'disk'):
        info = served.get(f'/api/agents/config:{key}').json()
        assert [p['code'] for p in info['problems']] == ['config_error'], info['problems']
        assert 'outside' in info['problems'][0]['message']
        for deps in ({'code': 5}, {'code': 'x'}):
            response = chat(served, key, deps)
            assert response.status_code in (200, 422), response.text
            assert SECRET not in response.text
    assert Counting.hits == []


def test_references_inside_the_schema_are_resolved(served: TestClient) -> None:
    schema = {
        '$id': 'https://schemas.example/deps',
        'type': 'object',
        '$defs': {'code': {'type': 'string', 'maxLength': 3}},
        'properties': {
            'code': {'$ref': '#/$defs/code'},
            'same': {'$ref': 'https://schemas.example/deps#/$defs/code'},
            'tree': {'$ref': '#/$defs/node'},
        },
    }
    schema['$defs']['node'] = {  # type: ignore[index]
        'type': 'object',
        'properties': {'children': {'type': 'array', 'items': {'$ref': '#/$defs/node'}}},
    }
    assert save(served, 'ok', schema).status_code == 201
    bad = chat(served, 'ok', {'code': 'long', 'same': 'x'})
    assert refused_at(bad, 'body.deps.code') == "deps.code: 'long' is too long"
    deep_tree = {'children': [{'children': [{'children': [{'children': 'no'}]}]}]}
    refused_at(
        chat(served, 'ok', {'tree': deep_tree}), 'body.deps.tree.children.0.children.0.children.0.children'
    )
    assert chat(served, 'ok', {'code': 'abc', 'tree': {'children': [{'children': []}]}}).status_code == 200


@pytest.mark.parametrize(
    ('schema', 'where'),
    [
        ({'$ref': '#'}, '$ref'),
        (
            {'type': 'object', 'allOf': [{'$ref': '#/$defs/a'}], '$defs': {'a': {'anyOf': [{'$ref': '#'}]}}},
            '$defs.a.anyOf.0.$ref',
        ),
        (
            {
                '$defs': {'a': {'$ref': '#/$defs/b'}, 'b': {'not': {'$ref': '#/$defs/a'}}},
                'properties': {'x': {'$ref': '#/$defs/a'}},
            },
            '$defs.b.not.$ref',
        ),
    ],
)
def test_a_reference_cycle_is_refused_and_a_stored_one_answers(
    served: TestClient, store: Store, schema: dict[str, Any], where: str
) -> None:
    message = refused_at(save(served, 'loop', schema), f'body.spec.deps_schema.{where}')
    assert 'cycle' in message
    stored(store, 'loop', schema)
    info = served.get('/api/agents/config:loop').json()
    assert [p['code'] for p in info['problems']] == ['config_error']
    response = served.post('/api/agents/config:loop/chat', data={'message': 'hi'})
    assert response.status_code == 200, response.text
    assert [c['type'] for c in decode(response.text) if c['type'] == 'error'], 'the config error card'
    response = chat(served, 'loop', {'x': 1})
    assert response.status_code == 422, response.text


@pytest.mark.parametrize(
    ('pattern', 'safe'),
    [
        ('^(a+)+$', False),
        ('^(\\w+\\s?)*$', False),
        ('^((ab)*c*)+$', False),
        ('(x+x+)+y', False),
        ('^[a-z]+(-[a-z]+)*$', True),
        ('^(\\.[0-9]+)+$', True),
        ('^[A-Z]{3}$', True),
        ('^(?:a|b)+$', True),
    ],
)
def test_patterns_with_nested_quantifiers_are_refused_when_saved(
    served: TestClient, pattern: str, safe: bool
) -> None:
    schema = one_property({'type': 'string', 'pattern': pattern})
    response = save(served, 'p', schema)
    if safe:
        assert response.status_code == 201, response.text
        return
    message = refused_at(response, 'body.spec.deps_schema.properties.code.pattern')
    assert 'nested' in message
    keyed = {'type': 'object', 'patternProperties': {pattern: {'type': 'string'}}}
    refused_at(save(served, 'q', keyed), 'body.spec.deps_schema.patternProperties')
    bad = refused_at(
        save(served, 'r', one_property({'pattern': '(unclosed'})),
        'body.spec.deps_schema.properties.code.pattern',
    )
    assert 'not a valid regular expression' in bad


def test_a_stored_catastrophic_pattern_answers_at_once(served: TestClient, store: Store) -> None:
    stored(store, 'slow', one_property({'type': 'string', 'pattern': '^(a+)+$'}))
    started = time.monotonic()
    response = chat(served, 'slow', {'code': 'a' * 27 + '!'})
    assert response.status_code == 422, response.text
    assert time.monotonic() - started < 5
    assert served.get('/api/agents/config:slow').json()['problems'][0]['code'] == 'config_error'


@pytest.mark.parametrize('where', ['pattern', 'patternProperties', 'additionalProperties'])
def test_checking_values_takes_a_bounded_time(served: TestClient, where: str) -> None:
    # Exponential on a backtracking engine, yet no nested quantifier: allowed, and bounded.
    slow = '^(a|aa)+$'
    value = 'a' * 38 + '!'
    if where == 'pattern':
        schema, deps = one_property({'type': 'string', 'pattern': slow}), {'code': value}
    elif where == 'patternProperties':
        schema, deps = {'type': 'object', 'patternProperties': {slow: {'type': 'string'}}}, {value: 'x'}
    else:
        schema = {'type': 'object', 'patternProperties': {slow: {}}, 'additionalProperties': False}
        deps = {value: 'x'}
    assert save(served, 'bounded', schema).status_code == 201
    started = time.monotonic()
    response = chat(served, 'bounded', deps)
    took = time.monotonic() - started
    assert response.status_code == 422, response.text
    assert response.json()['error']['code'] == 'deps_too_costly'
    assert took < 6, took
    many = {f'k{i}': 'a' * 27 + '!' for i in range(300)}
    many_schema = {'type': 'object', 'additionalProperties': {'type': 'string', 'pattern': slow}}
    assert save(served, 'many', many_schema).status_code == 201
    started = time.monotonic()
    response = chat(served, 'many', many)
    assert response.status_code == 422, response.text
    assert response.json()['error']['code'] == 'deps_too_costly'
    assert time.monotonic() - started < 6
