"""A task queued from a tool joins the trace of the run whose tool queued it, on every selected
database: its run is a child of that run (depth 1, same root), hangs under the tool in the tree,
continues the same OpenTelemetry trace, keeps its bodies although tasks keep none by default, and
is not listed as a root. A task queued outside any run is a root of its own, recorded without its
bodies by default."""

from __future__ import annotations

import time
from typing import Any

import anyio.to_thread
import pytest
from fastapi.testclient import TestClient
from pydantic_ai import Agent, RunContext
from pydantic_ai.models.test import TestModel
from sqlalchemy import select

from chat_helpers import DEMO, agent_catalog, collect, failure, finished
from synapse_agents.chat.request import TurnRequest
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.targets.target import TurnTarget
from synapse_agents.tasks import events, runner
from synapse_agents.tasks.tables import AgentTask

SUMMARISER = DEMO + 'summariser'
EVENT = 'followup.requested'


@pytest.fixture
def context(context: SynapseContext) -> SynapseContext:
    context.catalog = agent_catalog()
    return context


def _dispatcher(context: SynapseContext) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(TestModel(call_tools=['queue_followup']), name='dispatcher')

    @agent.tool
    async def queue_followup(ctx: RunContext[None], note: str) -> str:
        fired = await anyio.to_thread.run_sync(
            lambda: events.fire(context.store, EVENT, context={'note': note})
        )
        return f'queued {len(fired.queued)}'

    return agent


def _standing(client: TestClient) -> str:
    body = {'name': 'Follow-up', 'agent': SUMMARISER, 'instruction': 'Summarise.', 'events': [EVENT]}
    response = client.post('/api/standing-agents', json=body)
    assert response.status_code == 201, response.text
    standing_id: str = response.json()['id']
    return standing_id


def _turn(client: TestClient, context: SynapseContext, agent: Agent[None, str]) -> Any:
    engine = context.chat_service().engine

    async def go() -> Any:
        prepared = await engine.prepare(TurnRequest(TurnTarget.for_agent(agent), 'Please follow up.'))
        turn_events = await collect(engine.stream(prepared))
        assert failure(turn_events) is None, failure(turn_events)
        return finished(turn_events)

    assert client.portal is not None
    return client.portal.call(go)


def _queued(context: SynapseContext) -> AgentTask:
    with context.store.read() as session:
        task = session.scalars(select(AgentTask)).one()
    return task


def _get(client: TestClient, path: str, expect: int = 200) -> Any:
    deadline = time.monotonic() + 5
    while True:
        response = client.get(path)
        if response.status_code == expect or time.monotonic() > deadline:
            assert response.status_code == expect, response.text
            return response.json()
        time.sleep(0.05)


def _find(node: dict[str, Any], kind: str, name: str) -> dict[str, Any]:
    if node['kind'] == kind and node['name'] == name:
        return node
    for child in node['children']:
        try:
            return _find(child, kind, name)
        except LookupError:
            continue
    raise LookupError(f'no {kind} {name!r} in the tree')


def test_a_task_queued_from_a_tool_joins_the_trace_of_the_run_that_queued_it(
    client: TestClient, context: SynapseContext
) -> None:
    _standing(client)
    outer = _turn(client, context, _dispatcher(context))
    task = _queued(context)
    assert task.trace_parent is not None and task.trace_parent['run_id'] == outer.run_id

    assert client.portal is not None
    client.portal.call(runner.run_task, context, task.id, 'test-worker')
    with context.store.read() as session:
        ran = session.get(AgentTask, task.id)
        assert ran is not None and ran.status == 'succeeded', ran and ran.error
        task_run_id = ran.run_id

    def tree_with_task() -> dict[str, Any]:
        deadline = time.monotonic() + 5
        while True:
            root: dict[str, Any] = _get(client, f'/api/traces/{outer.run_id}')['root']
            tool = _find(root, 'tool', 'queue_followup')
            if tool['children'] or time.monotonic() > deadline:
                return root
            time.sleep(0.05)

    root = tree_with_task()
    assert root['depth'] == 0 and root['parent_run_id'] is None
    tool = _find(root, 'tool', 'queue_followup')
    [child] = [node for node in tool['children'] if node['kind'] == 'run']
    assert child['agent_run_id'] == task_run_id
    assert child['parent_run_id'] == outer.run_id
    assert child['depth'] == 1
    assert child['agent_key'] == SUMMARISER
    assert child['trace_id'] == root['trace_id'], 'the task continues the OpenTelemetry trace'
    assert any(node['kind'] == 'model' for node in child['children'])

    roots = _get(client, '/api/traces')['roots']
    assert [r['agent_run_id'] for r in roots] == [outer.run_id]


def test_a_task_queued_outside_any_run_is_a_root_of_its_own_without_bodies(
    client: TestClient, context: SynapseContext
) -> None:
    _standing(client)
    fired = events.fire(context.store, EVENT)
    [task_id] = fired.queued
    with context.store.read() as session:
        task = session.get(AgentTask, task_id)
        assert task is not None and task.trace_parent is None
    assert client.portal is not None
    client.portal.call(runner.run_task, context, task_id, 'test-worker')
    with context.store.read() as session:
        ran = session.get(AgentTask, task_id)
        assert ran is not None and ran.status == 'succeeded'
        run_id = ran.run_id
    root = _get(client, f'/api/traces/{run_id}')['root']
    assert (root['depth'], root['parent_run_id'], root['module']) == (0, None, 'task')
    assert root['output'] is None, 'bodies are kept only when a debug setting says so'
    assert [r['agent_run_id'] for r in _get(client, '/api/traces')['roots']] == [run_id]
