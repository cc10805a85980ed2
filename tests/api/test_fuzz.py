"""Schemathesis over the app's own OpenAPI schema: every route, no 5xx, every answer as documented.

The app runs in-process (schemathesis's ASGI transport) on each selected database, serving the demo
agents and the test agents (`chat_agents`). Before fuzzing, a few real turns give the store
conversations, messages with files, and tool calls; schemathesis draws path parameters from those
real ids (and the real slugs) half of the time and generates the rest, so operations are exercised
on objects that exist as well as on garbage.

Checks: every schemathesis check (no server error, status codes, content types, response schemas
and headers as documented, negative data rejected, ...). Chat turns stay fast: the test agents run
on scripted `FunctionModel`s, and the demo agents' `DemoModel`s stream without their 30 ms pauses
(`chunk_delay = 0`) for the duration of the test, so a fuzzed turn costs milliseconds.

Each operation is one test that runs hypothesis over schemathesis's own strategies (valid and
invalid data mixed, `MAX_EXAMPLES` each, the same examples every run). Not `@schema.parametrize()`:
schemathesis 4.32's pytest integration for a schema from a fixture reads `request.node._nodeid`,
which pytest 9 no longer has. About 8 s a database with the default count.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from schemathesis.config import SchemathesisConfig

from chat_helpers import DEMO, LOCAL_PEER, LOCAL_URL, agent_catalog, decode
from fuzz_helpers import OpenApiOnce, declared_operations, from_this_machine, fuzz_examples, fuzz_operation
from synapse_agents.demo import DemoModel
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.web.app import create_app

FAST_SLUGS = [
    'chat_agents.greeter',
    'chat_agents.echo',
    'chat_agents.shop',
    'chat_agents.boom',
    'chat_agents.breaks-midway',
    'chat_agents.modelless',
    DEMO + 'support-agent',
    DEMO + 'summariser',
    DEMO + 'structured-agent',
    DEMO + 'deps-agent',
]
MAX_EXAMPLES = fuzz_examples(40)
"""Examples per operation (`FUZZ_EXAMPLES=600 FUZZ_RANDOM=1` to fuzz longer, with new examples)."""


@contextmanager
def undelayed_demo_models() -> Iterator[None]:
    """Every demo agent's `DemoModel` streams without pauses while the block runs."""
    models: list[DemoModel] = []
    for found in agent_catalog().scan().agents:
        model = found.agent.model
        for candidate in [model, *getattr(model, 'models', [])]:
            if isinstance(candidate, DemoModel):
                models.append(candidate)
    delays = [model.chunk_delay for model in models]
    for model in models:
        model.chunk_delay = 0
    try:
        yield
    finally:
        for model, delay in zip(models, delays, strict=True):
            model.chunk_delay = delay


def seed(client: TestClient) -> dict[str, list[Any]]:
    """Real turns through the API; the ids they produced."""
    ids: dict[str, list[Any]] = {'conversations': [], 'messages': [], 'files': [], 'tools': []}
    for slug, files in (
        ('chat_agents.shop', None),
        ('chat_agents.echo', [('attachments', ('notes.txt', b'abc', 'text/plain'))]),
        ('chat_agents.boom', None),
    ):
        response = client.post(f'/api/agents/{slug}/chat', data={'message': 'hello'}, files=files)
        conversation_id = decode(response.text)[0]['messageMetadata']['conversation_id']
        thread = client.get(f'/api/conversations/{conversation_id}').json()
        ids['conversations'].append(conversation_id)
        for message in thread['messages']:
            ids['messages'].append(message['id'])
            if message.get('attachments'):
                ids['files'].append(message['id'])
            ids['tools'].extend(p['tool']['id'] for p in message.get('parts', []) if 'tool' in p)
    return ids


def config(ids: dict[str, list[Any]]) -> SchemathesisConfig:
    def drawn(name: str) -> dict[str, Any]:
        return {'dictionary': name, 'probability': 0.5}

    return SchemathesisConfig.from_dict(
        {
            'dictionaries': {
                'slugs': {'values': FAST_SLUGS},
                'conversations': {'values': ids['conversations']},
                'messages': {'values': ids['messages']},
                'tools': {'values': ids['tools']},
                'files': {'values': ids['files']},
                'indexes': {'values': [0, 1]},
                'models': {'values': ['demo', 'function:scripted']},
            },
            'parameters': {
                'path.slug': drawn('slugs'),
                'path.conversation_id': drawn('conversations'),
                'path.message_id': drawn('messages'),
                'path.tool_id': drawn('tools'),
                'path.index': drawn('indexes'),
                'body.model': drawn('models'),
                'body.conversation_id': drawn('conversations'),
                'body.message_id': drawn('messages'),
            },
            # A NUL in a URL is refused before routing (400, tests/api/test_input_hygiene.py); the
            # generated data leaves it out so that every other check sees real answers.
            'generation': {'max-examples': MAX_EXAMPLES, 'allow-x00': False},
            'operations': [
                {
                    # Attachments: draw from the messages that have files.
                    'include-path': '/api/attachments/{message_id}/{index}',
                    'parameters': {'path.message_id': drawn('files'), 'path.index': drawn('indexes')},
                },
                {
                    # A fork of a conversation answers 201, or 404 when the message is none of its
                    # user messages, or 409 while a turn before it is running.
                    'include-name': 'POST /api/conversations/{conversation_id}/fork',
                    'checks': {'positive_data_acceptance': {'expected-statuses': [201, 404, 409]}},
                },
                {
                    # An eval dataset's cases and evaluators are pydantic-evals' own serialised form:
                    # whether an evaluator exists and takes those arguments, or a history is
                    # pydantic-ai's model messages, is decided by those libraries (a 422 naming the
                    # field), never by a schema; a case's message names a stored message (422).
                    'include-path-regex': '^/api/evals/(datasets|runs)',
                    'include-method-regex': '^(POST|PATCH)$',
                    'checks': {
                        'positive_data_acceptance': {'expected-statuses': [200, 201, 202, 404, 409, 422]}
                    },
                },
                {
                    # A workflow definition is checked against the agents it names and their output
                    # schemas (a 422 naming the step and path), which no schema can state; a run of
                    # a finished workflow run cannot change (409).
                    'include-path-regex': '^/api/(workflows|workflow-runs)',
                    'include-method-regex': '^(POST|PATCH)$',
                    'checks': {
                        'positive_data_acceptance': {'expected-statuses': [200, 201, 202, 404, 409, 422]}
                    },
                },
                {
                    # A valid-looking chat request can still be a 422 for reasons no schema can state:
                    # `model` must be one of *this agent's* models, and a message needs text or a file.
                    # (One `include-name`: an include-path and an include-method would match either.)
                    'include-name': 'POST /api/agents/{slug}/chat',
                    'checks': {'positive_data_acceptance': {'expected-statuses': [200, 404, 409, 413, 422]}},
                },
            ],
        }
    )


@pytest.fixture
def api_schema(context: SynapseContext, openapi_once: OpenApiOnce) -> Iterator[Any]:
    """The app's schema, loaded from `/api/openapi.json` through the app itself."""
    context.catalog = agent_catalog()
    # Schemathesis's ASGI client sends `Host: testserver`: allow it, as a dev proxy's name would be.
    context.settings.allowed_hosts = ['testserver']
    app = openapi_once.reuse(create_app(context))
    with undelayed_demo_models():
        with TestClient(app, base_url=LOCAL_URL, client=LOCAL_PEER) as client:
            ids = seed(client)
        yield schemathesis.openapi.from_asgi('/api/openapi.json', from_this_machine(app), config=config(ids))


OPERATIONS = [
    ('GET', '/api/health'),
    ('GET', '/api/agents'),
    ('GET', '/api/agents/{slug}'),
    ('GET', '/api/agents/{slug}/models'),
    ('GET', '/api/agents/{slug}/model-tools'),
    ('POST', '/api/agents/{slug}/mcp/{index}/connect'),
    ('POST', '/api/agents/{slug}/chat'),
    ('GET', '/api/conversations'),
    ('GET', '/api/conversations/{conversation_id}'),
    ('PATCH', '/api/conversations/{conversation_id}'),
    ('DELETE', '/api/conversations/{conversation_id}'),
    ('POST', '/api/conversations/{conversation_id}/fork'),
    ('POST', '/api/conversations/clear'),
    ('GET', '/api/tool-invocations/{tool_id}'),
    ('GET', '/api/attachments/{message_id}/{index}'),
    ('GET', '/api/extensions'),
    ('GET', '/api/traces'),
    ('GET', '/api/traces/{agent_run_id}'),
    ('GET', '/api/traces/calls/{debug_id}'),
    ('GET', '/api/traces/calls/{debug_id}/context'),
    ('GET', '/api/messages/{message_id}/context'),
    ('GET', '/api/rules'),
    ('POST', '/api/rules'),
    ('GET', '/api/rules/preview'),
    ('GET', '/api/rules/{rule_id}'),
    ('PATCH', '/api/rules/{rule_id}'),
    ('DELETE', '/api/rules/{rule_id}'),
    ('GET', '/api/memories/status'),
    ('GET', '/api/memories'),
    ('POST', '/api/memories'),
    ('GET', '/api/memories/search'),
    ('GET', '/api/memories/people/{actor}'),
    ('DELETE', '/api/memories/people/{actor}'),
    ('GET', '/api/memories/people/{actor}/sharing'),
    ('PUT', '/api/memories/people/{actor}/sharing'),
    ('POST', '/api/memories/distill'),
    ('GET', '/api/memories/{memory_id}'),
    ('PATCH', '/api/memories/{memory_id}'),
    ('DELETE', '/api/memories/{memory_id}'),
    ('GET', '/api/evals/datasets'),
    ('POST', '/api/evals/datasets'),
    ('POST', '/api/evals/datasets/import'),
    ('GET', '/api/evals/datasets/{key}'),
    ('PATCH', '/api/evals/datasets/{key}'),
    ('DELETE', '/api/evals/datasets/{key}'),
    ('GET', '/api/evals/datasets/{key}/versions'),
    ('POST', '/api/evals/datasets/{key}/cases'),
    ('POST', '/api/evals/datasets/{key}/cases/from-message'),
    ('GET', '/api/evals/datasets/{key}/export'),
    ('GET', '/api/evals/evaluators'),
    ('GET', '/api/conversations/{conversation_id}/privacy'),
    ('PUT', '/api/conversations/{conversation_id}/privacy'),
    ('GET', '/api/conversations/{conversation_id}/privacy/values'),
    ('POST', '/api/evals/runs'),
    ('POST', '/api/evals/runs/side-by-side'),
    ('GET', '/api/evals/runs'),
    ('GET', '/api/evals/runs/compare'),
    ('GET', '/api/evals/runs/{run_id}'),
    ('POST', '/api/evals/runs/{run_id}/stop'),
    ('GET', '/api/workflows'),
    ('POST', '/api/workflows'),
    ('POST', '/api/workflows/validate'),
    ('GET', '/api/workflows/{key}'),
    ('PATCH', '/api/workflows/{key}'),
    ('DELETE', '/api/workflows/{key}'),
    ('GET', '/api/workflows/{key}/versions'),
    ('POST', '/api/workflows/{key}/validate'),
    ('POST', '/api/workflows/{key}/run'),
    ('GET', '/api/workflow-runs'),
    ('GET', '/api/workflow-runs/{run_id}'),
    ('PATCH', '/api/workflow-runs/{run_id}'),
    ('GET', '/api/rag/sources'),
    ('POST', '/api/rag/sources'),
    ('GET', '/api/rag/sources/{slug}'),
    ('PATCH', '/api/rag/sources/{slug}'),
    ('DELETE', '/api/rag/sources/{slug}'),
    ('POST', '/api/rag/sources/{slug}/index'),
    ('GET', '/api/rag/sources/{slug}/progress'),
    ('GET', '/api/rag/sources/{slug}/files'),
    ('POST', '/api/rag/sources/{slug}/files'),
    ('DELETE', '/api/rag/sources/{slug}/files'),
    ('GET', '/api/rag/sources/{slug}/documents'),
    ('GET', '/api/rag/chunks/{chunk_id}'),
    ('GET', '/api/rag/search'),
]


def test_every_operation_is_fuzzed(api_schema: Any) -> None:
    """A route added to the API is added here too."""
    # The registry's, the accounting's and the task area's operations are fuzzed by
    # tests/api/test_registry_fuzz.py, tests/api/test_accounting_fuzz.py and tests/api/test_tasks_fuzz.py.
    declared = [
        (method, path)
        for method, path in declared_operations(api_schema)
        if not path.startswith(
            (
                '/api/registry/',
                '/api/spend',
                '/api/limits',
                '/api/standing-agents',
                '/api/tasks',
                '/api/events',
                '/api/schedules/',
            )
        )
    ]
    assert sorted(declared) == sorted(OPERATIONS)


@pytest.mark.parametrize(('method', 'path'), OPERATIONS, ids=[f'{m} {p}' for m, p in OPERATIONS])
def test_operation(api_schema: Any, method: str, path: str) -> None:
    fuzz_operation(api_schema[path][method], MAX_EXAMPLES)
