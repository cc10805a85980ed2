"""Schemathesis over vector memory's and the privacy view's operations: no 5xx, every answer as
documented, on every database.

Like tests/api/test_fuzz.py, with vector memories, memories and conversations in the store first, so
that generated requests meet existing rows as well as garbage (ids, tenants and people are drawn
from the seeded ones half of the time). A valid-looking write can still be refused for what a schema
cannot state (a user-scoped memory needs a person; a conversation-scoped one names one of its
tenant's conversations), so a create may answer 422; a recall names a person or a conversation.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from schemathesis.config import SchemathesisConfig

from fuzz_helpers import OpenApiOnce, declared_operations, from_this_machine, fuzz_examples, fuzz_operation
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.runtime.root import SynapseRuntime
from vector_memory_helpers import vector_memory_app

pytestmark = pytest.mark.vectors

MAX_EXAMPLES = fuzz_examples(30)

OPERATIONS = [
    ('GET', '/api/vector-memories'),
    ('POST', '/api/vector-memories'),
    ('GET', '/api/vector-memories/recall'),
    ('DELETE', '/api/vector-memories/{memory_id}'),
    ('GET', '/api/people/{person}/data'),
    ('DELETE', '/api/people/{person}/data'),
]
PEOPLE = ['user:maria', 'user:juan']
TENANTS = ['firm:7', 'firm:8']


def config(ids: list[str], conversations: list[str]) -> SchemathesisConfig:
    def drawn(name: str) -> dict[str, Any]:
        return {'dictionary': name, 'probability': 0.5}

    return SchemathesisConfig.from_dict(
        {
            'dictionaries': {
                'memories': {'values': ids},
                'conversations': {'values': conversations},
                'people': {'values': PEOPLE},
                'tenants': {'values': TENANTS},
            },
            'parameters': {
                'path.memory_id': drawn('memories'),
                'path.person': drawn('people'),
                'query.person': drawn('people'),
                'query.tenant': drawn('tenants'),
                'query.conversation_id': drawn('conversations'),
                'body.tenant': drawn('tenants'),
                'body.person': drawn('people'),
                'body.conversation_id': drawn('conversations'),
            },
            'generation': {'max-examples': MAX_EXAMPLES, 'allow-x00': False},
            'operations': [
                {
                    'include-name-regex': '^(POST /api/vector-memories|GET /api/vector-memories/recall)$',
                    'checks': {'positive_data_acceptance': {'expected-statuses': [200, 201, 422]}},
                },
            ],
        }
    )


@pytest.fixture
def api_schema(context: SynapseRuntime, openapi_once: OpenApiOnce) -> Iterator[Any]:
    context.settings.allowed_hosts = ['testserver']
    client = vector_memory_app(context)
    app = openapi_once.reuse(client.app)  # type: ignore[arg-type]
    with client:
        conversations = [
            ConversationRepository(context.store).create(agent_key='a', tenant_type='firm', tenant_id=n).id
            for n in ('7', '8')
        ]
        ids = []
        for tenant, person, conversation in (
            ('firm:7', 'user:maria', None),
            ('firm:7', 'user:juan', None),
            ('firm:7', None, conversations[0]),
            ('firm:8', 'user:maria', conversations[1]),
        ):
            body = {
                'tenant': tenant,
                'content': f'A note of {tenant} for {person}.',
                'person': person,
                'scope': 'conversation' if conversation else 'user',
                'conversation_id': conversation,
            }
            response = client.post('/api/vector-memories', json=body)
            assert response.status_code == 201, response.text
            ids.append(response.json()['id'])
        memory = {'tenant': 'firm:7', 'content': 'María wants bullet points.', 'applies_to': 'user:maria'}
        assert client.post('/api/memories', json=memory).status_code == 201
        yield schemathesis.openapi.from_asgi(
            '/api/openapi.json', from_this_machine(app), config=config(ids, conversations)
        )


def test_every_vector_memory_operation_is_fuzzed(api_schema: Any) -> None:
    declared = [
        (method, path)
        for method, path in declared_operations(api_schema)
        if path.startswith(('/api/vector-memories', '/api/people/'))
    ]
    assert sorted(declared) == sorted(OPERATIONS)


@pytest.mark.parametrize(('method', 'path'), OPERATIONS, ids=[f'{m} {p}' for m, p in OPERATIONS])
def test_operation(api_schema: Any, method: str, path: str) -> None:
    fuzz_operation(api_schema[path][method], MAX_EXAMPLES)
