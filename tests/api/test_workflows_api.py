"""`/api/workflows` and `/api/workflow-runs` over HTTP: definitions checked against their agents and
versioned, runs on the in-process task worker with each step a conversation of origin `workflow`
(its ledger rows and its trace under the run), a failing step naming itself, finished runs
immutable, runs kept (their link null) when the definition goes, and sandbox workflows."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from chat_helpers import LOCAL_PEER, LOCAL_URL
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.errors import WorkflowConflict
from synapse_agents.runtime.root import SynapseRuntime
from synapse_agents.store import Store
from synapse_agents.traces.tables import TraceRun
from synapse_agents.web.app import create_app
from synapse_agents.workflows import book, runs

DEMO = 'synapse_agents.demo.agents.'
TRIAGE_THEN_SUMMARY = {
    'version': 1,
    'steps': [
        {
            'name': 'triage',
            'agent_name': 'structured_agent',
            'input_mapping': {'message': '$.input.message'},
            'output_key': 'triage',
        },
        {
            'name': 'summary',
            'agent_name': f'{DEMO}summariser',
            'input_mapping': {'category': '$.steps.triage.output.category', 'text': '$.input.message'},
            'output_key': 'summary',
        },
    ],
    'outputs': {'category': '$.steps.triage.output.category', 'final': '$.steps.summary.output.answer'},
}


@pytest.fixture
def client(context: SynapseRuntime) -> Iterator[TestClient]:
    """The app as `synapse serve` opens it: its in-process worker runs the queued workflow runs."""
    context.maintenance = True
    with TestClient(create_app(context), base_url=LOCAL_URL, client=LOCAL_PEER) as client:
        yield client


def finished(client: TestClient, run_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    run: dict[str, Any] = {}
    while time.monotonic() < deadline:
        run = client.get(f'/api/workflow-runs/{run_id}').json()
        if run['status'] != 'running':
            return run
        time.sleep(0.1)
    raise AssertionError(f'run {run_id} did not end: {run}')


def traced_run(store: Store, agent_run_id: str) -> TraceRun:
    """The step's trace row, once the write queue has written it."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with store.read() as session:
            found = session.get(TraceRun, agent_run_id)
            if found is not None:
                session.expunge(found)
                return found
        time.sleep(0.05)
    raise AssertionError(f'no trace of run {agent_run_id}')


def create(client: TestClient, key: str, definition: dict[str, Any], **extra: Any) -> dict[str, Any]:
    made = client.post(
        '/api/workflows', json={'key': key, 'name': key.title(), 'definition': definition, **extra}
    )
    assert made.status_code == 201, made.text
    return dict(made.json())


def test_a_run_sends_each_step_as_a_workflow_conversation(client: TestClient, store: Store) -> None:
    create(client, 'triage', TRIAGE_THEN_SUMMARY)
    started = client.post(
        '/api/workflows/triage/run', json={'input': {'message': 'My order A-1001 is late!'}}
    )
    assert started.status_code == 202, started.text
    assert started.json()['status'] == 'running' and started.json()['task_id']
    run = finished(client, started.json()['id'])
    assert run['status'] == 'completed', run['error']
    assert (run['workflow'], run['workflow_version'], run['step_count']) == ('triage', 1, 2)
    assert run['current_step_index'] == 1 and run['completed_at'] and run['duration_ms'] is not None
    assert run['total_tokens'] > 0 and run['error'] is None
    triage, summary = run['steps']
    assert run['output'] == {'category': triage['output']['category'], 'final': summary['output']['answer']}
    assert json.loads(summary['message']) == {
        'category': triage['output']['category'],
        'text': 'My order A-1001 is late!',
    }, 'any other mapping is sent as JSON'
    assert triage['message'] == 'My order A-1001 is late!', 'a {"message": text} mapping sends the text'
    assert all(step['status'] == 'completed' and step['conversation_id'] for step in run['steps'])

    listed = client.get('/api/conversations', params={'origin': 'workflow'}).json()['conversations']
    assert {c['id'] for c in listed} == {triage['conversation_id'], summary['conversation_id']}
    with store.read() as session:
        calls = list(
            session.scalars(select(LlmCall).where(LlmCall.conversation_id == summary['conversation_id']))
        )
    traced = traced_run(store, summary['agent_run_id'])
    assert calls and all(c.module == 'workflow' and c.parent_run_id == run['id'] for c in calls)
    assert traced.workflow_run_id == run['id']
    assert (traced.origin, traced.depth, traced.is_root, traced.parent_run_id) == (
        'workflow',
        1,
        True,
        run['id'],
    )
    by_run = client.get('/api/traces', params={'workflow_run_id': run['id']}).json()
    assert len(by_run['roots']) == 2, 'both steps are roots of the trace list'

    assert [
        r['id'] for r in client.get('/api/workflow-runs', params={'workflow': 'triage'}).json()['runs']
    ] == [run['id']]
    assert client.get('/api/workflow-runs', params={'status': 'failed'}).json()['runs'] == []


def test_a_failing_step_fails_the_run_naming_it(client: TestClient) -> None:
    definition = {
        'steps': [
            {
                'name': 'first',
                'agent_name': f'{DEMO}summariser',
                'input_mapping': {'message': '$.input.text'},
            },
            {
                'name': 'second',
                'agent_name': f'{DEMO}summariser',
                'input_mapping': {'message': '$.input.gone'},
            },
            {'name': 'third', 'agent_name': f'{DEMO}summariser'},
        ]
    }
    create(client, 'breaks', definition)
    run = finished(
        client, client.post('/api/workflows/breaks/run', json={'input': {'text': 'Hello'}}).json()['id']
    )
    assert run['status'] == 'failed' and run['failed_step'] == 'second' and run['output'] is None
    assert run['error'].startswith("Step 'second' (2 of 3) failed: PathMissing: ")
    assert "'$.input.gone' matched nothing" in run['error']
    assert [(s['name'], s['status']) for s in run['steps']] == [('first', 'completed'), ('second', 'failed')]
    assert run['current_step_index'] == 1


def test_without_outputs_each_step_output_is_under_its_output_key(client: TestClient) -> None:
    definition = {'steps': [{'name': 's', 'agent_name': 'summariser', 'output_key': 'gist'}]}
    create(client, 'plain', definition)
    run = finished(client, client.post('/api/workflows/plain/run', json={'input': 'A text.'}).json()['id'])
    assert run['status'] == 'completed', run['error']
    assert run['steps'][0]['message'] == 'A text.', 'an empty mapping sends a text input as it is'
    assert set(run['output']) == {'gist'} and isinstance(run['output']['gist']['answer'], str)


def test_a_finished_run_is_immutable(client: TestClient, store: Store) -> None:
    create(client, 'once', {'steps': [{'name': 's', 'agent_name': 'summariser'}]})
    run = finished(client, client.post('/api/workflows/once/run', json={'input': 'x'}).json()['id'])
    refused = client.patch(f'/api/workflow-runs/{run["id"]}', json={'status': 'failed', 'error': 'late'})
    assert refused.status_code == 409 and 'has finished (completed)' in refused.json()['error']['message']
    assert client.patch(f'/api/workflow-runs/{run["id"]}', json={}).status_code == 409
    with pytest.raises(WorkflowConflict):
        runs.update_running(store, run['id'], output={'forged': True})
    runs.finish(store, run['id'], error='a second finish changes nothing')
    again = client.get(f'/api/workflow-runs/{run["id"]}').json()
    assert (again['status'], again['output'], again['error']) == ('completed', run['output'], None)


def test_a_running_run_can_be_failed_by_request(client: TestClient, store: Store) -> None:
    """A run not put on the queue (no worker takes it) changes while it runs."""
    create(client, 'held', {'steps': [{'name': 's', 'agent_name': 'summariser'}]})
    run = runs.create_run(store, book.read(store, 'held'), {'message': 'x'})
    assert client.get(f'/api/workflow-runs/{run.id}').json()['status'] == 'running'
    assert client.patch(f'/api/workflow-runs/{run.id}', json={}).status_code == 200
    patched = client.patch(
        f'/api/workflow-runs/{run.id}', json={'status': 'failed', 'error': 'Stopped by hand.'}
    )
    assert patched.status_code == 200, patched.text
    assert (patched.json()['status'], patched.json()['error']) == ('failed', 'Stopped by hand.')
    assert client.patch(f'/api/workflow-runs/{run.id}', json={'status': 'failed'}).status_code == 409


def test_definitions_are_checked_naming_the_step_and_path(client: TestClient) -> None:
    client.post('/api/registry/presets', json={'key': 'plain', 'model': 'demo'})
    client.post('/api/registry/agents', json={'key': 'helper', 'preset_key': 'plain'})
    bad: dict[str, Any] = {
        'steps': [
            {
                'name': 'triage',
                'agent_name': 'structured_agent',
                'input_mapping': {'m': '$.steps.later.output'},
            },
            {'name': 'later', 'agent_name': 'no_such_agent'},
            {
                'name': 'text',
                'agent_name': 'summariser',
                'input_mapping': {'c': '$.steps.triage.output.colour'},
            },
        ],
        'outputs': {'deep': '$.steps.text.output.answer.words', 'odd': '$.elsewhere'},
    }
    answer = client.post('/api/workflows', json={'key': 'bad', 'name': 'Bad', 'definition': bad})
    assert answer.status_code == 422
    fields = {f['location']: f['message'] for f in answer.json()['error']['fields']}
    assert 'not a step before this one' in fields['body.definition.steps.0.input_mapping.m']
    assert set(fields) == {
        'body.definition.steps.0.input_mapping.m',
        'body.definition.outputs.odd',
    }, 'paths that point at nothing are refused before the agents are looked up'
    bad['steps'][0]['input_mapping'] = {}
    del bad['outputs']['odd']
    answer = client.post('/api/workflows/validate', json={'definition': bad})
    fields = {f['location']: f['message'] for f in answer.json()['error']['fields']}
    assert answer.status_code == 422 and set(fields) == {
        'body.definition.steps.1.agent_name',
        'body.definition.steps.2.input_mapping.c',
        'body.definition.outputs.deep',
    }
    assert "step 'later'" in fields['body.definition.steps.1.agent_name']
    assert "'colour' is not a field of the output" in fields['body.definition.steps.2.input_mapping.c']
    assert "'words' is read from a string" in fields['body.definition.outputs.deep']
    good = client.post('/api/workflows/validate', json={'definition': TRIAGE_THEN_SUMMARY})
    assert good.status_code == 200 and good.json() == {'valid': True, 'step_count': 2}
    create(client, 'stored', {'steps': [{'name': 's', 'agent_name': 'config:helper'}]})
    assert client.post('/api/workflows/stored/validate').json() == {'valid': True, 'step_count': 1}
    assert client.get('/api/workflows/bad').status_code == 404
    assert client.delete('/api/registry/agents/helper').status_code == 200
    gone = client.post('/api/workflows/stored/validate')
    assert gone.status_code == 422, 'an agent removed since the workflow was saved'
    assert gone.json()['error']['fields'][0]['location'] == 'body.definition.steps.0.agent_name'


def test_every_change_is_a_new_version_and_every_version_stays(client: TestClient) -> None:
    one = {'steps': [{'name': 's', 'agent_name': 'summariser'}]}
    two = {'steps': [{'name': 's', 'agent_name': 'summariser'}, {'name': 't', 'agent_name': 'summariser'}]}
    create(client, 'grows', one)
    assert (
        client.post('/api/workflows', json={'key': 'grows', 'name': 'X', 'definition': one}).status_code
        == 409
    )
    changed = client.patch('/api/workflows/grows', json={'definition': two, 'version': 1})
    assert changed.status_code == 200 and changed.json()['version'] == 2
    stale = client.patch('/api/workflows/grows', json={'name': 'Stale', 'version': 1})
    assert stale.status_code == 409 and 'not 1' in stale.json()['error']['message']
    assert client.patch('/api/workflows/grows', json={'name': 'Renamed'}).json()['version'] == 3
    assert client.get('/api/workflows/grows', params={'version': 1}).json()['definition'] == one
    assert client.get('/api/workflows/grows').json()['definition'] == two
    versions = client.get('/api/workflows/grows/versions').json()['versions']
    assert [(v['version'], v['name'], v['change']) for v in versions] == [
        (3, 'Renamed', 'edited'),
        (2, 'Grows', 'edited'),
        (1, 'Grows', 'created'),
    ]
    assert client.get('/api/workflows/grows', params={'version': 9}).status_code == 404
    refused = client.patch('/api/workflows/grows', json={'definition': {'steps': []}})
    assert (
        refused.status_code == 422
        and refused.json()['error']['fields'][0]['location'] == 'body.definition.steps'
    )


def test_runs_outlive_their_deleted_definition(client: TestClient) -> None:
    create(client, 'brief', {'steps': [{'name': 's', 'agent_name': 'summariser'}]})
    run = finished(client, client.post('/api/workflows/brief/run', json={'input': 'x'}).json()['id'])
    assert run['workflow_deleted'] is False
    gone = client.delete('/api/workflows/brief')
    assert gone.status_code == 200 and gone.json() == {'deleted': 'brief', 'runs_kept': 1}
    assert client.get('/api/workflows/brief').status_code == 404
    kept = client.get(f'/api/workflow-runs/{run["id"]}').json()
    assert kept['workflow_deleted'] is True and (kept['workflow'], kept['workflow_version']) == ('brief', 1)
    assert kept['output'] == run['output'] and len(kept['steps']) == 1
    create(client, 'brief', {'steps': [{'name': 's', 'agent_name': 'summariser'}]})
    assert client.get(f'/api/workflow-runs/{run["id"]}').json()['workflow_deleted'] is True, (
        'a new workflow under the same key is not the old one'
    )


def test_sandbox_workflows_are_listed_only_when_asked_and_cleaned_up_with_their_runs(
    client: TestClient, store: Store
) -> None:
    create(client, 'kept', {'steps': [{'name': 's', 'agent_name': 'summariser'}]})
    create(client, 'trial', {'steps': [{'name': 's', 'agent_name': 'summariser'}]}, is_sandbox=True)
    assert [w['key'] for w in client.get('/api/workflows').json()['workflows']] == ['kept']
    assert [
        w['key'] for w in client.get('/api/workflows', params={'sandbox': 'only'}).json()['workflows']
    ] == ['trial']
    assert client.get('/api/workflows/trial').json()['is_sandbox'] is True, 'a key finds a sandbox'
    trial = finished(client, client.post('/api/workflows/trial/run', json={'input': 'x'}).json()['id'])
    kept = finished(client, client.post('/api/workflows/kept/run', json={'input': 'x'}).json()['id'])
    assert trial['status'] == 'completed' and trial['is_sandbox'] is True
    assert [r['id'] for r in client.get('/api/workflow-runs').json()['runs']] == [kept['id']]
    assert len(client.get('/api/workflow-runs', params={'sandbox': 'include'}).json()['runs']) == 2

    done = client.post('/api/registry/sandbox/cleanup')
    assert done.status_code == 200 and done.json()['deleted'] == {'agents': 0, 'presets': 0, 'workflows': 1}
    assert client.get('/api/workflows/trial').status_code == 404
    assert client.get(f'/api/workflow-runs/{trial["id"]}').status_code == 404, 'its runs went first'
    assert runs.steps(store, trial['id']) == [], 'and their steps'
    assert client.get(f'/api/workflow-runs/{kept["id"]}').json()['status'] == 'completed'
    assert client.post('/api/registry/sandbox/cleanup').json()['deleted']['workflows'] == 0


def test_unknown_keys_and_runs_are_404(client: TestClient) -> None:
    assert client.get('/api/workflows/nope').status_code == 404
    assert client.post('/api/workflows/nope/run', json={'input': None}).status_code == 404
    assert client.get('/api/workflow-runs/0190a0a0-0000-7000-8000-000000000000').status_code == 404
    assert client.get('/api/workflow-runs/not-an-id').status_code in (404, 422)


def test_a_step_may_run_a_configured_or_a_sandbox_agent(client: TestClient) -> None:
    assert client.post('/api/registry/presets', json={'key': 'plain', 'model': 'demo'}).status_code == 201
    made = client.post('/api/registry/agents', json={'key': 'helper', 'preset_key': 'plain'})
    assert made.status_code == 201, made.text
    trial = client.post(
        '/api/registry/agents', json={'key': 'draft', 'preset_key': 'plain', 'is_sandbox': True}
    )
    assert trial.status_code == 201, trial.text
    definition = {
        'steps': [
            {'name': 'configured', 'agent_name': 'helper', 'input_mapping': {'message': '$.input'}},
            {'name': 'sandboxed', 'agent_name': 'config:draft', 'input_mapping': {'message': '$.input'}},
        ]
    }
    create(client, 'registry', definition)
    run = finished(client, client.post('/api/workflows/registry/run', json={'input': 'Hello'}).json()['id'])
    assert run['status'] == 'completed', run['error']
    agents = [
        client.get(f'/api/conversations/{step["conversation_id"]}').json()['conversation']['agent_key']
        for step in run['steps']
    ]
    assert agents == ['config:helper', 'config:draft']
