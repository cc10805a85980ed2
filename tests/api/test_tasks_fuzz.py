"""Schemathesis over the task area's operations: no 5xx, every answer as documented, on every database.

Like tests/api/test_accounting_fuzz.py: the task router on an app of its own, with standing agents,
queued and finished tasks in the store first, so generated requests meet existing objects as well
as garbage (path ids, agent slugs, event names and cron expressions are drawn from real ones half
of the time). A valid-looking request can still be refused for what a schema cannot state (an
agent nobody serves, a cron expression or time zone that does not parse, an event name of the
wrong characters), so creates, changes, events and previews may answer 422.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from schemathesis.config import SchemathesisConfig

from chat_helpers import DEMO, LOCAL_PEER, LOCAL_URL, agent_catalog
from fuzz_helpers import OpenApiOnce, declared_operations, from_this_machine, fuzz_examples, fuzz_operation
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.tasks.routes import router
from synapse_agents.web.errors import install_error_handlers

MAX_EXAMPLES = fuzz_examples(30)

OPERATIONS = [
    ('GET', '/api/standing-agents'),
    ('POST', '/api/standing-agents'),
    ('GET', '/api/standing-agents/{standing_id}'),
    ('PATCH', '/api/standing-agents/{standing_id}'),
    ('DELETE', '/api/standing-agents/{standing_id}'),
    ('POST', '/api/standing-agents/{standing_id}/run'),
    ('POST', '/api/standing-agents/{standing_id}/pause'),
    ('POST', '/api/standing-agents/{standing_id}/resume'),
    ('GET', '/api/tasks'),
    ('GET', '/api/tasks/{task_id}'),
    ('POST', '/api/tasks/{task_id}/cancel'),
    ('POST', '/api/tasks/{task_id}/decisions'),
    ('POST', '/api/events'),
    ('GET', '/api/schedules/preview'),
]

REFUSABLE = {
    'POST /api/standing-agents': [201, 422],
    'PATCH /api/standing-agents/{standing_id}': [200, 404, 422],
    'POST /api/events': [202, 422],
    'POST /api/tasks/{task_id}/decisions': [200, 404, 409, 422],
    'GET /api/schedules/preview': [200, 422],
}
"""What positive data may be answered with, besides the defaults (see the module docstring)."""

EVENTS = ['order.created', 'invoice/paid', 'ping']
CRONS = ['0 9 * * 1-5', '*/15 * * * *', '@daily', '0 0 29 2 *']
ZONES = ['UTC', 'Europe/Madrid', 'America/New_York']
SLUGS = [DEMO + 'support-agent', DEMO + 'summariser']


def tasks_app(context: SynapseContext) -> FastAPI:
    """An app serving the task router with Synapse's context and JSON errors."""
    app = FastAPI()
    app.state.synapse = context
    install_error_handlers(app)
    app.include_router(router)
    return app


def seed_store(client: TestClient) -> dict[str, list[str]]:
    """Three standing agents (scheduled, listening, paused), a run of each, one of them cancelled."""
    standing: list[str] = []
    for body in (
        {'cron': '0 9 * * 1-5', 'timezone': 'Europe/Madrid', 'tenant': 'org:acme'},
        {'events': EVENTS, 'debounce_seconds': 30, 'agent': SLUGS[1]},
        {'cron': '@hourly', 'enabled': False},
    ):
        response = client.post(
            '/api/standing-agents', json={'name': 'Seeded', 'agent': SLUGS[0], 'instruction': 'Go.', **body}
        )
        assert response.status_code == 201, response.text
        standing.append(response.json()['id'])
    tasks = []
    for standing_id in standing:
        response = client.post(f'/api/standing-agents/{standing_id}/run')
        assert response.status_code == 202, response.text
        tasks.append(response.json()['task']['id'])
    assert client.post(f'/api/tasks/{tasks[0]}/cancel').status_code == 200
    fired = client.post('/api/events', json={'event': 'ping', 'tenant': 'org:acme', 'context': {'n': 1}})
    assert fired.status_code == 202 and fired.json()['queued'], fired.text
    return {'standing': standing, 'tasks': [*tasks, *fired.json()['queued']]}


def config(ids: dict[str, list[str]]) -> SchemathesisConfig:
    def drawn(name: str) -> dict[str, Any]:
        return {'dictionary': name, 'probability': 0.5}

    operations: list[dict[str, Any]] = [
        {
            # One filter: an include-method and an include-path would each match on their own.
            'include-name-regex': f'^{name}$',
            'checks': {'positive_data_acceptance': {'expected-statuses': statuses}},
        }
        for name, statuses in REFUSABLE.items()
    ]
    return SchemathesisConfig.from_dict(
        {
            'dictionaries': {
                'standing': {'values': ids['standing']},
                'tasks': {'values': ids['tasks']},
                'slugs': {'values': SLUGS},
                'events': {'values': EVENTS},
                'crons': {'values': CRONS},
                'zones': {'values': ZONES},
            },
            'parameters': {
                'path.standing_id': drawn('standing'),
                'path.task_id': drawn('tasks'),
                'query.standing_agent': drawn('standing'),
                'query.before': drawn('tasks'),
                'query.event': drawn('events'),
                'query.cron': drawn('crons'),
                'query.timezone': drawn('zones'),
                'body.agent': drawn('slugs'),
                'body.event': drawn('events'),
                'body.cron': drawn('crons'),
                'body.timezone': drawn('zones'),
            },
            'generation': {'max-examples': MAX_EXAMPLES, 'allow-x00': False},
            'operations': operations,
        }
    )


@pytest.fixture
def api_schema(context: SynapseContext, openapi_once: OpenApiOnce) -> Iterator[Any]:
    context.catalog = agent_catalog()
    app = openapi_once.reuse(tasks_app(context))
    with TestClient(app, base_url=LOCAL_URL, client=LOCAL_PEER) as client:
        ids = seed_store(client)
        yield schemathesis.openapi.from_asgi('/openapi.json', from_this_machine(app), config=config(ids))


def test_every_task_operation_is_fuzzed(api_schema: Any) -> None:
    assert sorted(declared_operations(api_schema)) == sorted(OPERATIONS)


@pytest.mark.parametrize(('method', 'path'), OPERATIONS, ids=[f'{m} {p}' for m, p in OPERATIONS])
def test_operation(api_schema: Any, method: str, path: str) -> None:
    fuzz_operation(api_schema[path][method], MAX_EXAMPLES)
