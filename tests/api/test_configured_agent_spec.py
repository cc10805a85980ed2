"""A configured agent's `spec` over HTTP: `output_schema` and `deps_schema` read back as written,
a schema that is not one is a 422 naming the field, and the demo's tools serve a configured agent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chat_helpers import decode
from synapse_agents.web.server import DEMO_TARGET

ORDER_STATUS = {
    'type': 'object',
    'title': 'OrderStatus',
    'properties': {'order_id': {'type': 'string'}, 'status': {'type': 'string'}},
    'required': ['order_id', 'status'],
}
ACCOUNT = {'type': 'object', 'properties': {'account_id': {'type': 'string'}}, 'required': ['account_id']}


def fields_of(response: Any) -> list[dict[str, str]]:
    found: list[dict[str, str]] = response.json()['error']['fields']
    return found


def test_the_spec_schemas_round_trip_and_a_change_is_a_version(client: TestClient) -> None:
    spec = {'output_schema': ORDER_STATUS, 'deps_schema': ACCOUNT}
    created = client.post('/api/registry/agents', json={'key': 'orders', 'spec': spec})
    assert created.status_code == 201, created.text
    assert created.json()['spec'] == spec
    assert client.get('/api/registry/agents/orders').json()['spec'] == spec

    changed_schema = {**ORDER_STATUS, 'required': ['order_id']}
    changed = client.patch('/api/registry/agents/orders', json={'spec': {'output_schema': changed_schema}})
    assert changed.status_code == 200, changed.text
    assert changed.json()['version'] == 2
    assert changed.json()['spec'] == {'output_schema': changed_schema}, 'the spec is replaced whole'
    versions = client.get('/api/registry/agents/orders/versions').json()['versions']
    assert [v['definition']['spec'] for v in versions] == [spec, {'output_schema': changed_schema}]


@pytest.mark.parametrize(
    ('spec', 'location'),
    [
        ({'output_schema': {'type': 'nonsense'}}, 'body.spec.output_schema.type'),
        ({'output_schema': {'type': 'string'}}, 'body.spec.output_schema'),
        ({'output_schema': {'properties': 3}}, 'body.spec.output_schema.properties'),
        ({'output_schema': []}, 'body.spec.output_schema'),
        ({'deps_schema': {'type': 'nonsense'}}, 'body.spec.deps_schema.type'),
        ({'deps_schema': {'properties': 3}}, 'body.spec.deps_schema.properties'),
        ({'deps_schema': {'required': 'id'}}, 'body.spec.deps_schema.required'),
        (
            {'deps_schema': {'type': 'object', 'properties': {'id': {'type': 'strin'}}}},
            'body.spec.deps_schema.properties.id.type',
        ),
        ({'output_schema': {'$schema': 5, 'type': 'object'}}, 'body.spec.output_schema.$schema'),
        ({'deps_schema': {'$schema': ['x'], 'type': 'object'}}, 'body.spec.deps_schema.$schema'),
    ],
)
def test_a_malformed_schema_is_a_422_naming_the_field(
    client: TestClient, spec: dict[str, Any], location: str
) -> None:
    response = client.post('/api/registry/agents', json={'key': 'a', 'spec': spec})
    assert response.status_code == 422, response.text
    fields = fields_of(response)
    assert fields[0]['location'] == location, fields
    assert fields[0]['message']
    assert client.get('/api/registry/agents/a').status_code == 404, 'nothing was created'

    client.post('/api/registry/agents', json={'key': 'a'})
    refused = client.patch('/api/registry/agents/a', json={'spec': spec})
    assert refused.status_code == 422, refused.text
    assert fields_of(refused)[0]['location'] == location
    assert client.get('/api/registry/agents/a').json()['version'] == 1, 'a refused change makes no version'


def test_the_demo_offers_its_tools_and_a_configured_agent_calls_one(
    client_for: Callable[..., TestClient],
) -> None:
    served = client_for([DEMO_TARGET])
    tools = {tool['name']: tool for tool in served.get('/api/registry/tools').json()['tools']}
    assert {'lookup_order', 'search_knowledge_base', 'create_ticket', 'check_inventory'} <= set(tools)
    assert tools['lookup_order']['module'] == 'synapse_agents.demo.agents'
    assert 'support' in tools['lookup_order']['tags']
    # Tools that read the demo's own run dependencies are not offered: a configured agent has none.
    assert 'list_invoices' not in tools and 'get_account_summary' not in tools

    served.post('/api/registry/presets', json={'key': 'demo', 'model': 'demo'})
    created = served.post(
        '/api/registry/agents',
        json={
            'key': 'orders',
            'instructions': 'Look orders up.',
            'preset_key': 'demo',
            'tools': ['lookup_order'],
            'spec': {'output_schema': ORDER_STATUS},
        },
    )
    assert created.status_code == 201, created.text
    info = served.get('/api/agents/config:orders').json()
    assert info['problems'] == [] and [tool['name'] for tool in info['tools']] == ['lookup_order']

    response = served.post('/api/agents/config:orders/chat', data={'message': 'Where is order A-1001?'})
    assert response.status_code == 200, response.text
    chunks = decode(response.text)
    assert not [c for c in chunks if c['type'] == 'error'], chunks
    calls = [c for c in chunks if c['type'] == 'tool-input-available']
    assert [c['toolName'] for c in calls] == ['lookup_order', 'final_result']
    assert calls[0]['input'] == {'order_id': 'A-1001'}
    result = next(c for c in chunks if c['type'] == 'tool-output-available')
    assert result['toolCallId'] == calls[0]['toolCallId']
    assert result['output']['status'] == 'shipped', 'the demo tool itself answered'
    structured = next(c for c in chunks if c['type'] == 'data-structured-output')['data']['output']
    assert set(structured) == {'order_id', 'status'} and structured['order_id'] == 'A-1001'
