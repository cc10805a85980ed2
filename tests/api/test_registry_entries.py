"""Registry models and prices, presets, tones and configured agents over HTTP, on every database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from synapse_agents.registry import read
from synapse_agents.registry.tables import AgentConfig, Preset
from synapse_agents.store import Store


def error(response: Any) -> dict[str, Any]:
    body: dict[str, Any] = response.json()['error']
    return body


def first_location(response: Any) -> str:
    location: str = error(response)['fields'][0]['location']
    return location


# -- models and prices -------------------------------------------------------------------------


def test_model_crud_with_prices(client: TestClient) -> None:
    client.post(
        '/api/registry/providers',
        json={'key': 'local', 'kind': 'openai-compatible', 'base_url': 'http://127.0.0.1:1/v1'},
    )
    created = client.post(
        '/api/registry/models',
        json={
            'provider_key': 'local',
            'name': 'llama3.2',
            'label': 'Llama',
            'context_window': 128000,
            'prices': [{'input_per_mtok': '0.15', 'output_per_mtok': 0.6, 'cache_read_per_mtok': '0.075'}],
        },
    )
    assert created.status_code == 201, created.text
    model = created.json()
    assert model['key'] == 'local:llama3.2', 'the key defaults to provider:name'
    assert model['price'] == model['prices'][0]
    assert model['price']['input_per_mtok'] == '0.15' and model['price']['output_per_mtok'] == '0.6'
    assert model['price']['cache_read_per_mtok'] == '0.075' and model['price']['cache_write_per_mtok'] is None
    assert model['price']['currency'] == 'USD'
    assert client.get('/api/registry/models').json() == {'models': [model]}
    assert client.get('/api/registry/models/local:llama3.2').json() == model

    changed = client.patch(
        '/api/registry/models/local:llama3.2', json={'label': 'Llama 3.2', 'max_output_tokens': 4096}
    )
    assert changed.json()['label'] == 'Llama 3.2' and changed.json()['max_output_tokens'] == 4096
    assert client.delete('/api/registry/models/local:llama3.2').json() == {'deleted': 'local:llama3.2'}
    assert client.get('/api/registry/models/local:llama3.2').status_code == 404


def test_a_model_of_a_pydantic_ai_provider_needs_no_registry_provider(client: TestClient) -> None:
    created = client.post(
        '/api/registry/models',
        json={'key': 'openai:gpt-5-mini', 'provider_key': 'openai', 'name': 'gpt-5-mini'},
    )
    assert created.status_code == 201
    unknown = client.post('/api/registry/models', json={'provider_key': 'nobody', 'name': 'x'})
    assert unknown.status_code == 422 and first_location(unknown) == 'body.provider_key'
    moved = client.patch('/api/registry/models/openai:gpt-5-mini', json={'provider_key': 'nobody'})
    assert moved.status_code == 422 and first_location(moved) == 'body.provider_key'


def test_prices_in_force_by_valid_from(client: TestClient, store: Store) -> None:
    now = datetime.now(UTC)
    client.post('/api/registry/models', json={'provider_key': 'openai', 'name': 'm'})
    assert client.get('/api/registry/models/openai:m').json()['price'] is None
    old = {'input_per_mtok': 1, 'output_per_mtok': 2, 'valid_from': (now - timedelta(days=10)).isoformat()}
    current = {
        'input_per_mtok': '1.5',
        'output_per_mtok': '3',
        'valid_from': (now - timedelta(days=1)).isoformat(),
    }
    future = {'input_per_mtok': 9, 'output_per_mtok': 9, 'valid_from': (now + timedelta(days=5)).isoformat()}
    for price in (current, future, old):
        added = client.post('/api/registry/models/openai:m/prices', json=price)
        assert added.status_code == 201, added.text
    body = client.get('/api/registry/models/openai:m').json()
    assert [p['input_per_mtok'] for p in body['prices']] == ['1', '1.5', '9'], 'oldest first'
    assert body['price']['input_per_mtok'] == '1.5' and body['price']['output_per_mtok'] == '3'
    in_force = read.price_in_force(store, 'openai:m')
    assert in_force is not None and str(in_force.input_per_mtok.normalize()) == '1.5'
    ancient = {'input_per_mtok': 0, 'output_per_mtok': 0, 'valid_from': '0001-01-01T06:00:00+05:00'}
    assert client.post('/api/registry/models/openai:m/prices', json=ancient).status_code == 201
    assert (
        client.get('/api/registry/models/openai:m').json()['prices'][0]['valid_from']
        == '0001-01-01T01:00:00.000Z'
    )
    again = client.post('/api/registry/models/openai:m/prices', json=old)
    assert again.status_code == 409, 'two prices from the same moment'
    assert client.post('/api/registry/models/openai:nope/prices', json=old).status_code == 404


@pytest.mark.parametrize(
    ('price', 'location'),
    [
        ({'input_per_mtok': -1, 'output_per_mtok': 1}, 'body.input_per_mtok'),
        ({'input_per_mtok': 'abc', 'output_per_mtok': 1}, 'body.input_per_mtok'),
        ({'input_per_mtok': '0.00000000001', 'output_per_mtok': 1}, 'body.input_per_mtok'),
        ({'input_per_mtok': 1, 'output_per_mtok': 2_000_000}, 'body.output_per_mtok'),
        ({'input_per_mtok': 1}, 'body.output_per_mtok'),
        ({'input_per_mtok': 1, 'output_per_mtok': 1, 'currency': 'usd'}, 'body.currency'),
        ({'input_per_mtok': 1, 'output_per_mtok': 1, 'valid_from': 'yesterday'}, 'body.valid_from'),
        (
            {'input_per_mtok': 1, 'output_per_mtok': 1, 'valid_from': '0001-01-01T00:00:00+05:00'},
            'body.valid_from',
        ),
    ],
)
def test_invalid_prices_are_422(client: TestClient, price: dict[str, Any], location: str) -> None:
    client.post('/api/registry/models', json={'provider_key': 'openai', 'name': 'm'})
    response = client.post('/api/registry/models/openai:m/prices', json=price)
    assert response.status_code == 422, response.text
    assert first_location(response) == location


def test_model_refusals(client: TestClient) -> None:
    client.post('/api/registry/models', json={'provider_key': 'openai', 'name': 'm'})
    duplicate = client.post('/api/registry/models', json={'provider_key': 'openai', 'name': 'm'})
    assert duplicate.status_code == 409
    slashed = client.post('/api/registry/models', json={'provider_key': 'openai', 'name': 'org/model'})
    assert slashed.status_code == 422 and first_location(slashed) == 'body.key'
    keyed = client.post(
        '/api/registry/models',
        json={'key': 'openai:org-model', 'provider_key': 'openai', 'name': 'org/model'},
    )
    assert keyed.status_code == 201
    bad_key = client.post(
        '/api/registry/models', json={'key': 'nocolon', 'provider_key': 'openai', 'name': 'x'}
    )
    assert bad_key.status_code == 422 and first_location(bad_key) == 'body.key'
    huge = client.post(
        '/api/registry/models', json={'provider_key': 'openai', 'name': 'y', 'context_window': 2**31}
    )
    assert huge.status_code == 422 and first_location(huge) == 'body.context_window'
    twice = {'input_per_mtok': 1, 'output_per_mtok': 1, 'valid_from': '2026-01-01T00:00:00Z'}
    same = client.post(
        '/api/registry/models', json={'provider_key': 'openai', 'name': 'z', 'prices': [twice, twice]}
    )
    assert same.status_code == 422 and first_location(same) == 'body.prices'
    client.post('/api/registry/presets', json={'key': 'p', 'model': 'openai:m'})
    used = client.delete('/api/registry/models/openai:m')
    assert used.status_code == 409 and "'p'" in error(used)['message']


# -- presets and tones -------------------------------------------------------------------------


def test_preset_crud(client: TestClient) -> None:
    created = client.post(
        '/api/registry/presets',
        json={
            'key': 'precise',
            'name': 'Precise',
            'model': 'openai:gpt-5',
            'temperature': 0.1,
            'max_tokens': 800,
            'top_p': 0.9,
            'timeout_s': 30,
        },
    )
    assert created.status_code == 201, created.text
    preset = created.json()
    assert preset['temperature'] == 0.1 and preset['streaming'] is True and preset['is_sandbox'] is False
    assert client.get('/api/registry/presets/precise').json() == preset
    cleared = client.patch(
        '/api/registry/presets/precise', json={'temperature': None, 'streaming': False}
    ).json()
    assert cleared['temperature'] is None and cleared['streaming'] is False and cleared['max_tokens'] == 800
    assert client.delete('/api/registry/presets/precise').status_code == 200
    assert client.get('/api/registry/presets/precise').status_code == 404


@pytest.mark.parametrize(
    ('field', 'value'),
    [
        ('temperature', 2.5),
        ('temperature', -0.1),
        ('top_p', 1.5),
        ('max_tokens', 0),
        ('timeout_s', 0),
        ('model', ''),
        ('model', 'a b'),
    ],
)
def test_preset_limits_are_422_naming_the_field(client: TestClient, field: str, value: Any) -> None:
    response = client.post('/api/registry/presets', json={'key': 'p', 'model': 'demo', field: value})
    assert response.status_code == 422 and first_location(response) == f'body.{field}'
    client.post('/api/registry/presets', json={'key': 'ok', 'model': 'demo'})
    patched = client.patch('/api/registry/presets/ok', json={field: value})
    assert patched.status_code == 422 and first_location(patched) == f'body.{field}'


@pytest.mark.parametrize(
    ('field', 'value'),
    [
        ('timeout_s', True),
        ('temperature', '0.5'),
        ('max_tokens', True),
        ('max_tokens', '5'),
        ('streaming', 1),
    ],
)
def test_numbers_and_flags_are_not_coerced(client: TestClient, field: str, value: Any) -> None:
    """`true` is no timeout and `"5"` no count: the schema says number, so does the API."""
    response = client.post('/api/registry/presets', json={'key': 'p', 'model': 'demo', field: value})
    assert response.status_code == 422, response.text
    assert first_location(response) == f'body.{field}'


def test_a_price_is_not_a_flag(client: TestClient) -> None:
    client.post('/api/registry/models', json={'provider_key': 'openai', 'name': 'm'})
    response = client.post(
        '/api/registry/models/openai:m/prices', json={'input_per_mtok': True, 'output_per_mtok': 1}
    )
    assert response.status_code == 422 and first_location(response) == 'body.input_per_mtok'
    assert (
        client.post(
            '/api/registry/models', json={'provider_key': 'openai', 'name': 'n', 'enabled': 'yes'}
        ).status_code
        == 422
    )


def test_tone_crud_and_in_use(client: TestClient) -> None:
    created = client.post(
        '/api/registry/tones', json={'key': 'warm', 'name': 'Warm', 'emoji': '🌞', 'instructions': 'Be warm.'}
    )
    assert created.status_code == 201
    assert client.get('/api/registry/tones').json()['tones'] == [created.json()]
    assert client.patch('/api/registry/tones/warm', json={'emoji': '🔥'}).json()['emoji'] == '🔥'
    assert client.post('/api/registry/tones', json={'key': 'warm'}).status_code == 409
    long_emoji = client.post('/api/registry/tones', json={'key': 't', 'emoji': 'x' * 17})
    assert long_emoji.status_code == 422 and first_location(long_emoji) == 'body.emoji'
    client.post('/api/registry/agents', json={'key': 'a', 'tone_key': 'warm'})
    used = client.delete('/api/registry/tones/warm')
    assert used.status_code == 409 and "'a'" in error(used)['message']
    client.delete('/api/registry/agents/a')
    assert client.delete('/api/registry/tones/warm').status_code == 200
    assert client.delete('/api/registry/tones/warm').status_code == 404


# -- configured agents -------------------------------------------------------------------------


def test_agent_crud_and_references(client: TestClient) -> None:
    client.post('/api/registry/presets', json={'key': 'fast', 'model': 'demo'})
    client.post('/api/registry/tones', json={'key': 'brief', 'instructions': 'Be brief.'})
    created = client.post(
        '/api/registry/agents',
        json={
            'key': 'helper',
            'name': 'Helper',
            'instructions': 'Help.',
            'preset_key': 'fast',
            'tone_key': 'brief',
            'tools': ['lookup', 'tag:orders'],
            'access': {'tenants': ['org:1'], 'actors': ['user']},
            'spec': {'retries': 2, 'output_schema': {'type': 'object'}},
        },
    )
    assert created.status_code == 201, created.text
    agent = created.json()
    assert agent['slug'] == 'config:helper' and agent['version'] == 1
    assert agent['access'] == {'tenants': ['org:1'], 'actors': ['user']}
    assert agent['tools'] == ['lookup', 'tag:orders'] and agent['spec']['retries'] == 2
    assert client.get('/api/registry/agents/helper').json() == agent
    assert client.get('/api/registry/agents').json() == {'agents': [agent]}
    assert client.delete('/api/registry/presets/fast').status_code == 409, 'the agent uses it'
    assert client.delete('/api/registry/agents/helper').json() == {'deleted': 'helper'}
    assert client.get('/api/registry/agents/helper/versions').status_code == 404


@pytest.mark.parametrize(
    ('body', 'location'),
    [
        ({'preset_key': 'missing'}, 'body.preset_key'),
        ({'tone_key': 'missing'}, 'body.tone_key'),
        ({'tools': ['two words']}, 'body.tools.0'),
        ({'access': {'tenants': [':nope']}}, 'body.access.tenants.0'),
        ({'access': {'groups': []}}, 'body.access.groups'),
        ({'spec': {'model': 'openai:gpt-5'}}, 'body.spec.model'),
        ({'spec': {'retries': 'many'}}, 'body.spec.retries'),
        ({'rag_sources': [{'x': 'a\x00'}]}, 'body.rag_sources.0'),
    ],
)
def test_invalid_agents_are_422_naming_the_field(
    client: TestClient, body: dict[str, Any], location: str
) -> None:
    response = client.post('/api/registry/agents', json={'key': 'a', **body})
    assert response.status_code == 422, response.text
    assert first_location(response).startswith(location), error(response)


def test_every_change_is_a_version_and_every_version_reads_back(client: TestClient, store: Store) -> None:
    client.post('/api/registry/agents', json={'key': 'a', 'instructions': 'one'})
    assert client.patch('/api/registry/agents/a', json={'instructions': 'two'}).json()['version'] == 2
    assert client.patch('/api/registry/agents/a', json={'enabled': False}).json()['version'] == 3
    same = client.patch('/api/registry/agents/a', json={'instructions': 'two'}).json()
    assert same['version'] == 3, 'a PATCH that changes nothing makes no version'
    versions = client.get('/api/registry/agents/a/versions').json()['versions']
    assert [v['version'] for v in versions] == [1, 2, 3]
    assert [v['definition']['instructions'] for v in versions] == ['one', 'two', 'two']
    assert versions[2]['definition']['enabled'] is False
    first = read.agent_version(store, 'a', 1)
    assert first is not None and first.definition['instructions'] == 'one'
    refused = client.patch('/api/registry/agents/a', json={'preset_key': 'nope'})
    assert refused.status_code == 422 and first_location(refused) == 'body.preset_key'
    assert client.get('/api/registry/agents/a').json()['version'] == 3, 'a refused change makes no version'
    # Deleting and creating again starts over at version 1.
    client.delete('/api/registry/agents/a')
    assert client.post('/api/registry/agents', json={'key': 'a'}).json()['version'] == 1
    assert len(client.get('/api/registry/agents/a/versions').json()['versions']) == 1


# -- the sandbox -------------------------------------------------------------------------------


def test_sandboxes_are_left_out_of_listings_and_found_by_key(client: TestClient, store: Store) -> None:
    client.post('/api/registry/presets', json={'key': 'real', 'model': 'demo'})
    client.post('/api/registry/presets', json={'key': 'trial', 'model': 'demo', 'is_sandbox': True})
    client.post('/api/registry/agents', json={'key': 'live', 'preset_key': 'real'})
    client.post('/api/registry/agents', json={'key': 'draft', 'preset_key': 'trial', 'is_sandbox': True})

    def keys(path: str, **params: str) -> list[str]:
        kind = path.rsplit('/', 1)[-1]
        return [row['key'] for row in client.get(path, params=params).json()[kind]]

    assert keys('/api/registry/presets') == ['real']
    assert keys('/api/registry/presets', sandbox='only') == ['trial']
    assert keys('/api/registry/presets', sandbox='include') == ['real', 'trial']
    assert keys('/api/registry/agents') == ['live']
    assert keys('/api/registry/agents', sandbox='only') == ['draft']
    assert keys('/api/registry/agents', sandbox='include') == ['draft', 'live']
    assert client.get('/api/registry/agents', params={'sandbox': 'all'}).status_code == 422
    assert client.get('/api/registry/agents/draft').json()['is_sandbox'] is True
    assert client.get('/api/registry/presets/trial').status_code == 200
    assert read.by_key(store, AgentConfig, 'draft') is not None


def test_sandbox_cleanup(client: TestClient, store: Store) -> None:
    client.post('/api/registry/presets', json={'key': 'trial', 'model': 'demo', 'is_sandbox': True})
    client.post('/api/registry/presets', json={'key': 'kept-trial', 'model': 'demo', 'is_sandbox': True})
    client.post('/api/registry/presets', json={'key': 'real', 'model': 'demo'})
    client.post('/api/registry/agents', json={'key': 'draft', 'preset_key': 'trial', 'is_sandbox': True})
    client.patch('/api/registry/agents/draft', json={'instructions': 'v2'})
    client.post('/api/registry/agents', json={'key': 'live', 'preset_key': 'kept-trial'})
    done = client.post('/api/registry/sandbox/cleanup')
    assert done.status_code == 200 and done.json() == {'deleted': {'agents': 1, 'presets': 1, 'workflows': 0}}
    assert client.get('/api/registry/agents/draft').status_code == 404
    assert read.agent_version(store, 'draft', 1) is None, 'its versions went with it'
    remaining = [p.key for p in read.listing(store, Preset, sandbox='include')]
    assert remaining == ['kept-trial', 'real'], 'a sandbox preset a kept agent uses stays'
    assert client.post('/api/registry/sandbox/cleanup').json() == {
        'deleted': {'agents': 0, 'presets': 0, 'workflows': 0}
    }
