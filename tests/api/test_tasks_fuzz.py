"""Schemathesis over the task area's operations: no 5xx, every answer as documented, on every database.

Like tests/api/test_accounting_fuzz.py: the task router on an app of its own, with standing agents,
queued and finished tasks in the store first, so generated requests meet existing objects as well
as garbage (path ids, agent slugs, event names and cron expressions are drawn from real ones half
of the time). A valid-looking request can still be refused for what a schema cannot state (an
agent nobody serves, a cron expression or time zone that does not parse, an event name of the
wrong characters), so creates, changes, events and previews may answer 422.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.config import SchemathesisConfig
from schemathesis.generation import GenerationMode
from starlette.types import ASGIApp, Receive, Scope, Send

from chat_helpers import DEMO, LOCAL_PEER, LOCAL_URL, agent_catalog
from fuzz_helpers import OpenApiOnce
from synapse_agents.tasks.routes import router
from synapse_agents.web import SynapseContext
from synapse_agents.web.errors import install_error_handlers

MAX_EXAMPLES = int(os.environ.get('FUZZ_EXAMPLES', '30'))
DERANDOMIZE = not os.environ.get('FUZZ_RANDOM')

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


def from_this_machine(app: ASGIApp) -> ASGIApp:
    """`app` as a loopback connection reaches it: schemathesis's ASGI client names no address."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope['type'] in ('http', 'websocket'):
            scope = {**scope, 'client': LOCAL_PEER}
        await app(scope, receive, send)

    return wrapped


@pytest.fixture
def api_schema(context: SynapseContext, openapi_once: OpenApiOnce) -> Iterator[Any]:
    context.catalog = agent_catalog()
    app = openapi_once.reuse(tasks_app(context))
    with TestClient(app, base_url=LOCAL_URL, client=LOCAL_PEER) as client:
        ids = seed_store(client)
        yield schemathesis.openapi.from_asgi('/openapi.json', from_this_machine(app), config=config(ids))


def test_every_task_operation_is_fuzzed(api_schema: Any) -> None:
    declared = [
        (method.upper(), path) for path, item in api_schema.raw_schema['paths'].items() for method in item
    ]
    assert sorted(declared) == sorted(OPERATIONS)


@pytest.mark.parametrize(('method', 'path'), OPERATIONS, ids=[f'{m} {p}' for m, p in OPERATIONS])
def test_operation(api_schema: Any, method: str, path: str) -> None:
    operation = api_schema[path][method]
    cases = st.one_of(
        operation.as_strategy(GenerationMode.POSITIVE), operation.as_strategy(GenerationMode.NEGATIVE)
    )

    @given(case=cases)
    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=DERANDOMIZE,
        database=None,
    )
    def fuzz(case: Any) -> None:
        case.call_and_validate()

    fuzz()
