"""Schemathesis over the registry's operations: no 5xx, every answer as documented, on every database.

Like tests/api/test_fuzz.py (which fuzzes the rest of the API), but with registry entries in the
store first, so that generated requests meet existing keys as well as garbage: path keys are drawn
from the seeded ones half of the time. A valid-looking body can still be refused for reasons a
schema cannot state (a key taken, a preset that does not exist, a base_url an `openai-compatible`
provider needs), so creates and changes may answer 404, 409 or 422 to positive data.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from pydantic import SecretStr
from schemathesis.config import SchemathesisConfig

from chat_helpers import LOCAL_PEER, LOCAL_URL
from fuzz_helpers import OpenApiOnce, declared_operations, from_this_machine, fuzz_examples, fuzz_operation
from synapse_agents.encryption import new_key
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.web.app import create_app

MAX_EXAMPLES = fuzz_examples(30)

KEYS = ['p1', 'fast', 'warm', 'helper', 'draft', 'nope']
MODEL_KEYS = ['openai:gpt-5-mini', 'p1:local-model', 'openai:none']

OPERATIONS = [
    ('GET', '/api/registry/providers'),
    ('POST', '/api/registry/providers'),
    ('GET', '/api/registry/providers/{key}'),
    ('PATCH', '/api/registry/providers/{key}'),
    ('DELETE', '/api/registry/providers/{key}'),
    ('POST', '/api/registry/providers/{key}/test'),
    ('GET', '/api/registry/models'),
    ('POST', '/api/registry/models'),
    ('GET', '/api/registry/models/{key}'),
    ('PATCH', '/api/registry/models/{key}'),
    ('DELETE', '/api/registry/models/{key}'),
    ('POST', '/api/registry/models/{key}/prices'),
    ('GET', '/api/registry/settings'),
    ('PUT', '/api/registry/settings/{name}'),
    ('DELETE', '/api/registry/settings/{name}'),
    ('GET', '/api/registry/presets'),
    ('POST', '/api/registry/presets'),
    ('GET', '/api/registry/presets/{key}'),
    ('PATCH', '/api/registry/presets/{key}'),
    ('DELETE', '/api/registry/presets/{key}'),
    ('GET', '/api/registry/tones'),
    ('POST', '/api/registry/tones'),
    ('GET', '/api/registry/tones/{key}'),
    ('PATCH', '/api/registry/tones/{key}'),
    ('DELETE', '/api/registry/tones/{key}'),
    ('GET', '/api/registry/agents'),
    ('POST', '/api/registry/agents'),
    ('GET', '/api/registry/agents/{key}'),
    ('PATCH', '/api/registry/agents/{key}'),
    ('DELETE', '/api/registry/agents/{key}'),
    ('GET', '/api/registry/agents/{key}/versions'),
    ('POST', '/api/registry/sandbox/cleanup'),
    ('GET', '/api/registry/tools'),
]

REFUSABLE = {
    'POST': [201, 200, 404, 409, 422],
    'PATCH': [200, 404, 422],
    'PUT': [200, 422],
    'DELETE': [200, 404, 409],
}
"""What positive data may be answered with, by method (see the module docstring)."""


def seed(client: TestClient) -> None:
    for path, body in (
        (
            '/api/registry/providers',
            {
                'key': 'p1',
                'kind': 'openai-compatible',
                'base_url': 'http://127.0.0.1:9/v1',
                'api_key': 'sk-fuzz-1234',
            },
        ),
        (
            '/api/registry/models',
            {
                'provider_key': 'openai',
                'name': 'gpt-5-mini',
                'prices': [{'input_per_mtok': 1, 'output_per_mtok': 2}],
            },
        ),
        ('/api/registry/models', {'provider_key': 'p1', 'name': 'local-model'}),
        ('/api/registry/presets', {'key': 'fast', 'model': 'openai:gpt-5-mini'}),
        ('/api/registry/tones', {'key': 'warm', 'emoji': '🌞'}),
        ('/api/registry/agents', {'key': 'helper', 'preset_key': 'fast', 'tone_key': 'warm'}),
        ('/api/registry/agents', {'key': 'draft', 'is_sandbox': True}),
    ):
        response = client.post(path, json=body)
        assert response.status_code == 201, response.text


def config() -> SchemathesisConfig:
    operations: list[dict[str, Any]] = [
        {
            'include-path-regex': '^/api/registry/models/',
            'parameters': {'path.key': {'dictionary': 'model_keys', 'probability': 0.5}},
        },
    ]
    operations += [
        {
            # One filter: an include-method and an include-path would each match on their own.
            'include-name-regex': f'^{method} /api/registry/',
            'checks': {'positive_data_acceptance': {'expected-statuses': statuses}},
        }
        for method, statuses in REFUSABLE.items()
    ]
    return SchemathesisConfig.from_dict(
        {
            'dictionaries': {'keys': {'values': KEYS}, 'model_keys': {'values': MODEL_KEYS}},
            'parameters': {'path.key': {'dictionary': 'keys', 'probability': 0.5}},
            'generation': {'max-examples': MAX_EXAMPLES, 'allow-x00': False},
            'operations': operations,
        }
    )


@pytest.fixture
def api_schema(context: SynapseContext, openapi_once: OpenApiOnce) -> Iterator[Any]:
    context.settings.allowed_hosts = ['testserver']
    context.settings.secret_key = SecretStr(new_key())
    app = openapi_once.reuse(create_app(context))
    with TestClient(app, base_url=LOCAL_URL, client=LOCAL_PEER) as client:
        seed(client)
        yield schemathesis.openapi.from_asgi('/api/openapi.json', from_this_machine(app), config=config())


def test_every_registry_operation_is_fuzzed(api_schema: Any) -> None:
    declared = [
        (method, path)
        for method, path in declared_operations(api_schema)
        if path.startswith('/api/registry/')
    ]
    assert sorted(declared) == sorted(OPERATIONS)


@pytest.mark.parametrize(('method', 'path'), OPERATIONS, ids=[f'{m} {p}' for m, p in OPERATIONS])
def test_operation(api_schema: Any, method: str, path: str) -> None:
    fuzz_operation(api_schema[path][method], MAX_EXAMPLES)
