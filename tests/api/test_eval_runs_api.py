"""`/api/evals/runs` over HTTP: a dataset run against a demo agent on the task queue, each case a
stored conversation with origin `eval` and its ledger rows; per-case verdicts and totals; two runs
compared case by case; stop; and the 4xx answers."""

from __future__ import annotations

import base64
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from chat_helpers import LOCAL_PEER, LOCAL_URL
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.evals import book, runs
from synapse_agents.registry import presets_store
from synapse_agents.registry.tables import AgentConfig, Preset
from synapse_agents.runtime.root import SynapseRuntime
from synapse_agents.store import Store
from synapse_agents.web.app import create_app

SUPPORT = 'synapse_agents.demo.agents.support-agent'
CASES = [
    {
        'name': 'order',
        'inputs': {'message': 'Where is order A-1001?'},
        'evaluators': [
            {'Contains': 'A-1001'},
            {'ToolCalled': {'tool': 'lookup_order', 'arguments': {'order_id': 'A-1001'}}},
        ],
    },
    {'name': 'impossible', 'inputs': {'message': 'Hello'}, 'evaluators': [{'Contains': 'words nobody says'}]},
]


@pytest.fixture
def client(context: SynapseRuntime) -> Iterator[TestClient]:
    """The app as `synapse serve` opens it: its in-process worker runs the queued eval tasks."""
    context.maintenance = True
    with TestClient(create_app(context), base_url=LOCAL_URL, client=LOCAL_PEER) as client:
        yield client


def finished(client: TestClient, run_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run = client.get(f'/api/evals/runs/{run_id}').json()
        if run['status'] in ('succeeded', 'failed', 'cancelled'):
            return dict(run)
        time.sleep(0.1)
    raise AssertionError(f'run {run_id} did not end: {run}')


def test_a_run_judges_each_case_in_a_stored_conversation(client: TestClient, store: Store) -> None:
    book.create(store, 'support', 'Support', cases=CASES)
    started = client.post('/api/evals/runs', json={'dataset': 'support', 'agent': SUPPORT, 'concurrency': 2})
    assert started.status_code == 202, started.text
    assert started.json()['status'] in ('queued', 'running') and started.json()['task_id']
    run = finished(client, started.json()['id'])
    assert run['status'] == 'succeeded' and run['dataset_version'] == 1
    assert (run['case_count'], run['passed'], run['failed'], run['errored']) == (2, 1, 1, 0)
    assert run['pass_rate'] == 0.5 and run['input_tokens'] > 0 and run['output_tokens'] > 0
    failing, passing = run['cases']
    assert failing['case'] == 'impossible' and failing['passed'] is False, 'failing cases come first'
    assert 'words nobody says' in failing['assertions']['Contains']['reason']
    assert passing['case'] == 'order' and passing['passed'] is True
    assert passing['assertions']['ToolCalled']['value'] is True and 'A-1001' in passing['output']

    conversations = client.get('/api/conversations', params={'origin': 'eval'}).json()['conversations']
    assert {c['id'] for c in conversations} == {failing['conversation_id'], passing['conversation_id']}
    thread = client.get(f'/api/conversations/{passing["conversation_id"]}').json()
    assert [m['role'] for m in thread['messages']] == ['user', 'assistant']
    with store.read() as session:
        rows = session.scalar(
            select(func.count())
            .select_from(LlmCall)
            .where(LlmCall.conversation_id == passing['conversation_id'])
        )
    assert rows and rows >= 2, 'every model call of a case is a ledger row'
    listed = client.get('/api/evals/runs', params={'dataset': 'support'}).json()['runs']
    assert [r['id'] for r in listed] == [run['id']]
    stop = client.post(f'/api/evals/runs/{run["id"]}/stop')
    assert stop.status_code == 409 and 'already ended' in stop.json()['error']['message']


def test_two_runs_compared_case_by_case(client: TestClient, store: Store) -> None:
    book.create(store, 'support', 'Support', cases=CASES)
    before = finished(
        client, client.post('/api/evals/runs', json={'dataset': 'support', 'agent': SUPPORT}).json()['id']
    )
    # pydantic-ai's TestModel calls the tools with made-up arguments: the order case no longer passes.
    after_id = client.post(
        '/api/evals/runs',
        json={'dataset': 'support', 'agent': SUPPORT, 'model': 'test', 'label': 'test model'},
    ).json()['id']
    after = finished(client, after_id)
    assert after['model'] == 'test' and after['label'] == 'test model' and after['passed'] == 0
    compared = client.get(
        '/api/evals/runs/compare', params={'before': before['id'], 'after': after['id']}
    ).json()
    assert [(c['case'], c['change']) for c in compared['cases']] == [
        ('order', 'regressed'),
        ('impossible', 'still failing'),
    ]
    assert (
        compared['cases'][0]['before']['passed'] is True and compared['cases'][0]['after']['passed'] is False
    )


def test_one_request_runs_several_models_side_by_side(client: TestClient, store: Store) -> None:
    book.create(store, 'support', 'Support', cases=CASES)
    started = client.post(
        '/api/evals/runs/side-by-side',
        json={'dataset': 'support', 'agent': SUPPORT, 'models': [None, 'test']},
    )
    assert started.status_code == 202, started.text
    own, test = (finished(client, run['id']) for run in started.json()['runs'])
    assert (own['model'], own['label'], own['passed']) == (None, "agent's own model", 1)
    assert (test['model'], test['label'], test['passed']) == ('test', 'test', 0)
    assert own['task_id'] != test['task_id'] and own['dataset_version'] == test['dataset_version'] == 1
    for body, field in (
        ({'models': []}, 'models'),
        ({'models': ['test', 'test']}, 'models'),
        ({'models': ['a', 'b', 'c', 'd', 'e', 'f', 'g']}, 'models'),
        ({'models': ['test'], 'model': 'test'}, 'model'),
    ):
        refused = client.post(
            '/api/evals/runs/side-by-side', json={'dataset': 'support', 'agent': SUPPORT, **body}
        )
        assert refused.status_code == 422 and field in refused.text, refused.text
    missing = client.post(
        '/api/evals/runs/side-by-side', json={'dataset': 'nope', 'agent': SUPPORT, 'models': [None]}
    )
    assert missing.status_code == 404
    assert len(runs.listed(store, 'support')) == 2, 'a refused request stores no run'


def test_stop_and_bad_input(client: TestClient, store: Store) -> None:
    book.create(store, 'support', 'Support', cases=CASES)
    queued = runs.create_run(store, 'support', SUPPORT)  # not on the queue: nothing starts it
    stopped = client.post(f'/api/evals/runs/{queued.id}/stop')
    assert stopped.status_code == 200 and stopped.json()['status'] == 'cancelled'
    assert runs.start(store, queued.id) is False, 'a stopped run never starts'

    assert client.post('/api/evals/runs', json={'dataset': 'nope', 'agent': SUPPORT}).status_code == 404
    too_many = client.post(
        '/api/evals/runs', json={'dataset': 'support', 'agent': SUPPORT, 'concurrency': 99}
    )
    assert too_many.status_code == 422
    assert client.get('/api/evals/runs/01a243f6-3a54-7635-a341-50f3dd83fdb2').status_code == 404
    unknown_agent = finished(
        client,
        client.post('/api/evals/runs', json={'dataset': 'support', 'agent': 'no.such-agent'}).json()['id'],
    )
    assert unknown_agent['status'] == 'failed' and 'no.such-agent' in unknown_agent['error']
    assert unknown_agent['cases'] == []


def test_a_judges_model_calls_are_ledger_rows_in_the_cases_conversation(
    client: TestClient, store: Store
) -> None:
    judged = {
        'name': 'judged',
        'inputs': {'message': 'Where is order A-1001?'},
        'evaluators': [{'LLMJudge': {'rubric': 'Says where the order is.', 'model': 'test'}}],
    }
    book.create(store, 'judged', 'Judged', cases=[judged])
    run = finished(
        client, client.post('/api/evals/runs', json={'dataset': 'judged', 'agent': SUPPORT}).json()['id']
    )
    (case,) = run['cases']
    assert case['error'] is None and 'LLMJudge' in case['assertions']
    with store.read() as session:
        rows = session.execute(
            select(LlmCall.module, LlmCall.parent_run_id, LlmCall.run_id).where(
                LlmCall.conversation_id == case['conversation_id']
            )
        ).all()
    judges = [row for row in rows if row.module == 'eval']
    turns = {row.run_id for row in rows if row.module != 'eval'}
    assert len(judges) == 1, rows
    assert judges[0].parent_run_id in turns, "the judge's row sits under the case's run"


def test_a_run_with_a_preset(client: TestClient, store: Store) -> None:
    book.create(store, 'support', 'Support', cases=CASES)
    presets_store.create(store, {'key': 'quick', 'model': 'test', 'temperature': 0.2})
    started = client.post('/api/evals/runs', json={'dataset': 'support', 'agent': SUPPORT, 'preset': 'quick'})
    assert started.status_code == 202, started.text
    assert (started.json()['preset'], started.json()['model']) == ('quick', None)
    run = finished(client, started.json()['id'])
    assert run['status'] == 'succeeded' and run['preset'] == 'quick'
    with store.read() as session:
        named = set(
            session.scalars(
                select(LlmCall.preset).where(
                    LlmCall.conversation_id.in_([c['conversation_id'] for c in run['cases']])
                )
            )
        )
    assert named == {'quick'}, 'every ledger row of the run names the preset'

    both = client.post(
        '/api/evals/runs', json={'dataset': 'support', 'agent': SUPPORT, 'preset': 'quick', 'model': 'test'}
    )
    assert both.status_code == 422 and 'body.preset' in both.text
    unknown = client.post('/api/evals/runs', json={'dataset': 'support', 'agent': SUPPORT, 'preset': 'nope'})
    assert unknown.status_code == 404 and "'nope'" in unknown.json()['error']['message']
    side = client.post(
        '/api/evals/runs/side-by-side',
        json={'dataset': 'support', 'agent': SUPPORT, 'models': ['test'], 'presets': ['quick']},
    )
    assert side.status_code == 202, side.text
    assert [(r['model'], r['preset']) for r in side.json()['runs']] == [('test', None), (None, 'quick')]
    for run in side.json()['runs']:
        finished(client, run['id'])
    assert len(runs.listed(store, 'support')) == 3, 'the refused requests stored no run'


def test_a_saved_turn_keeps_its_files_and_the_run_sends_them_again(client: TestClient, store: Store) -> None:
    book.create(store, 'files', 'Files', cases=[])
    notes = b'Order A-1001 was sent on Monday.'
    chat = client.post(
        f'/api/agents/{SUPPORT}/chat',
        data={'message': 'What do these notes say?'},
        files=[('attachments', ('notes.txt', notes, 'text/plain'))],
    )
    assert chat.status_code == 200, chat.text
    (conversation,) = client.get('/api/conversations').json()['conversations']
    question = client.get(f'/api/conversations/{conversation["id"]}').json()['messages'][0]
    saved = client.post(
        '/api/evals/datasets/files/cases/from-message',
        json={'message_id': question['id'], 'expected': 'none'},
    )
    assert saved.status_code == 200, saved.text
    (case,) = saved.json()['cases']
    assert case['inputs']['attachments'] == [
        {'name': 'notes.txt', 'media_type': 'text/plain', 'data': base64.b64encode(notes).decode()}
    ]

    run = finished(
        client, client.post('/api/evals/runs', json={'dataset': 'files', 'agent': SUPPORT}).json()['id']
    )
    assert run['status'] == 'succeeded' and run['errored'] == 0, run
    sent = client.get(f'/api/conversations/{run["cases"][0]["conversation_id"]}').json()['messages'][0]
    assert sent['content'] == 'What do these notes say?'
    assert [(a['name'], a['size']) for a in sent['attachments']] == [('notes.txt', len(notes))]
    stored = client.get(f'/api/attachments/{sent["id"]}/0')
    assert stored.status_code == 200 and stored.content == notes

    # A file gone from the conversation's folder: the turn cannot be saved whole, and nothing is.
    gone = [path for path in (store.attachments_dir / conversation['id']).rglob('*') if path.is_file()]
    assert len(gone) == 1
    gone[0].unlink()
    refused = client.post('/api/evals/datasets/files/cases/from-message', json={'message_id': question['id']})
    assert refused.status_code == 422 and "'notes.txt'" in refused.text, refused.text
    assert len(book.read(store, 'files').cases) == 1
    bad = {
        'name': 'x',
        'inputs': {'message': 'hi', 'attachments': [{'name': 'a', 'media_type': 'text/plain', 'data': '%%'}]},
    }
    written = client.post('/api/evals/datasets', json={'key': 'bad', 'name': 'Bad', 'cases': [bad]})
    assert written.status_code == 422 and 'body.cases.0.inputs.attachments.0.data' in written.text


def test_a_judge_names_its_model_as_the_model_selector_does(client: TestClient, store: Store) -> None:
    # `demo` is Synapse's own offline model, unknown to pydantic-ai: the judge resolves it through
    # the registry's resolver, as a playground turn or a preset would.
    judged = {
        'name': 'judged',
        'inputs': {'message': 'Where is order A-1001?'},
        'evaluators': [{'LLMJudge': {'rubric': 'Says where the order is.', 'model': 'demo'}}],
    }
    book.create(store, 'judged-demo', 'Judged', cases=[judged])
    run = finished(
        client, client.post('/api/evals/runs', json={'dataset': 'judged-demo', 'agent': SUPPORT}).json()['id']
    )
    (case,) = run['cases']
    assert case['error'] is None, case['error']
    assert set(case['assertions']) == {'LLMJudge'} and case['assertions']['LLMJudge']['reason']
    with store.read() as session:
        judges = session.execute(
            select(LlmCall.model).where(
                LlmCall.conversation_id == case['conversation_id'], LlmCall.module == 'eval'
            )
        ).all()
    assert [row.model for row in judges] == ['synapse-demo']


def test_a_run_of_a_configured_agent_says_which_version_answered(client: TestClient, store: Store) -> None:
    with store.write() as session:
        session.add_all(
            [
                Preset(key='plain', model='demo'),
                AgentConfig(key='helper', instructions='You help people.', preset_key='plain', version=3),
            ]
        )
    book.create(store, 'help', 'Help', cases=[{'name': 'hi', 'inputs': {'message': 'Hello'}}])
    configured = finished(
        client,
        client.post('/api/evals/runs', json={'dataset': 'help', 'agent': 'config:helper'}).json()['id'],
    )
    assert configured['status'] == 'succeeded' and configured['agent_version'] == 3, configured
    code = finished(
        client, client.post('/api/evals/runs', json={'dataset': 'help', 'agent': SUPPORT}).json()['id']
    )
    assert code['agent_version'] is None
    compared = client.get('/api/evals/runs/compare', params={'before': configured['id'], 'after': code['id']})
    assert compared.json()['before']['agent_version'] == 3
