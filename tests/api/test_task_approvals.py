"""A task whose run pauses on tool calls needing a person ends `awaiting`, lists what waits, and
is answered through the API: it is queued again once, and the next run resumes where it paused."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from chat_helpers import DEMO, agent_catalog
from synapse_agents.demo.approvals import RESTARTS
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.tasks import runner

OPS = 'synapse_agents.demo.approvals.ops-agent'


@pytest.fixture
def context(context: SynapseContext) -> SynapseContext:
    context.catalog = agent_catalog()
    return context


def _paused_task(client: TestClient, context: SynapseContext, instruction: str) -> dict[str, Any]:
    body = {'name': 'Ops', 'agent': OPS, 'instruction': instruction}
    standing = client.post('/api/standing-agents', json=body)
    assert standing.status_code == 201, standing.text
    queued = client.post(f'/api/standing-agents/{standing.json()["id"]}/run')
    task_id = queued.json()['task']['id']
    assert _run(client, context, task_id) == 'awaiting'
    found: dict[str, Any] = client.get(f'/api/tasks/{task_id}').json()
    return found


def _run(client: TestClient, context: SynapseContext, task_id: str) -> str | None:
    assert client.portal is not None
    return client.portal.call(runner.run_task, context, task_id, 'test-worker')


def test_an_awaiting_task_is_answered_and_resumes_its_run(
    client: TestClient, context: SynapseContext
) -> None:
    before = len(RESTARTS)
    task = _paused_task(client, context, 'Restart the billing service and delete backup 7.')
    assert task['status'] == 'awaiting' and task['finished_at'] is not None
    waiting = {call['tool_name']: call for call in task['waiting']}
    assert set(waiting) == {'restart_service', 'delete_backup'}
    assert waiting['restart_service']['args'] == {'service': 'billing'}
    assert {call['kind'] for call in task['waiting']} == {'approval'}
    assert task['logs'][-2]['message'] == 'Waiting for a decision on 2 tool calls.'
    assert len(RESTARTS) == before  # nothing ran without approval

    decisions = {
        waiting['restart_service']['tool_call_id']: {'approved': True},
        waiting['delete_backup']['tool_call_id']: {'approved': False, 'reason': 'keep the backups'},
    }
    answered = client.post(f'/api/tasks/{task["id"]}/decisions', json={'decisions': decisions})
    assert answered.status_code == 200, answered.text
    assert answered.json()['status'] == 'queued'
    again = client.post(f'/api/tasks/{task["id"]}/decisions', json={'decisions': decisions})
    assert again.status_code == 409

    assert _run(client, context, task['id']) == 'succeeded'
    done = client.get(f'/api/tasks/{task["id"]}').json()
    assert done['waiting'] == [] and isinstance(done['output'], str) and done['output']
    assert RESTARTS[before:] == ['billing']
    thread = client.get(f'/api/conversations/{done["conversation_id"]}').json()
    statuses = {
        part['tool']['name']: part['tool']['status']
        for part in thread['messages'][1]['parts']
        if part['type'] == 'tool'
    }
    assert statuses == {'restart_service': 'approved', 'delete_backup': 'denied'}


def test_an_external_call_is_answered_with_its_result(client: TestClient, context: SynapseContext) -> None:
    task = _paused_task(client, context, 'Ask on-call whether the deploy can go ahead.')
    [call] = task['waiting']
    assert (call['tool_name'], call['kind']) == ('ask_on_call', 'external')
    decisions = {call['tool_call_id']: {'result': 'Yes, go ahead after 5 pm.'}}
    assert client.post(f'/api/tasks/{task["id"]}/decisions', json={'decisions': decisions}).status_code == 200
    assert _run(client, context, task['id']) == 'succeeded'


def test_bad_answers_are_refused_and_change_nothing(client: TestClient, context: SynapseContext) -> None:
    task = _paused_task(client, context, 'Restart the billing service and delete backup 7.')
    path = f'/api/tasks/{task["id"]}/decisions'
    first, second = (call['tool_call_id'] for call in task['waiting'])
    for body, status, words in [
        ({'decisions': {first: {'approved': True}}}, 422, 'missing: '),
        ({'decisions': {first: {'result': 1}, second: True}}, 422, 'needs approval'),
        ({'decisions': {}}, 422, 'expected an object'),
        ({'decisions': 'yes'}, 422, 'decisions'),
    ]:
        response = client.post(path, json=body)
        assert response.status_code == status, response.text
        assert words in response.json()['error']['message']
    assert client.get(f'/api/tasks/{task["id"]}').json()['status'] == 'awaiting'
    assert client.post('/api/tasks/not-an-id/decisions', json={'decisions': {'a': True}}).status_code == 404


def test_a_task_that_does_not_wait_cannot_be_decided(client: TestClient, context: SynapseContext) -> None:
    body = {'name': 'Desk', 'agent': DEMO + 'support-agent', 'instruction': 'Where is order A-1001?'}
    standing = client.post('/api/standing-agents', json=body).json()
    task_id = client.post(f'/api/standing-agents/{standing["id"]}/run').json()['task']['id']
    response = client.post(f'/api/tasks/{task_id}/decisions', json={'decisions': {'x': True}})
    assert response.status_code == 409 and 'queued' in response.json()['error']['message']
