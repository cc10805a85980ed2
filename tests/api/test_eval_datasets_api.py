"""`/api/evals/datasets` over HTTP: create, read, change as versions, add cases by hand and from a
turn that happened, import and export pydantic-evals files, delete, and the 4xx answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]
from fastapi.testclient import TestClient
from pydantic_evals import Dataset

from chat_helpers import decode
from synapse_agents.evals.evaluators import SYNAPSE_EVALUATORS

SUPPORT = 'synapse_agents.demo.agents.support-agent'
CASE = {
    'name': 'late order',
    'inputs': {'message': 'Where is order A-1001?'},
    'expected_output': 'It ships tomorrow.',
    'evaluators': [
        {'Contains': 'ships'},
        {'ToolCalled': {'tool': 'lookup_order', 'arguments': {'order_id': 'A-1001'}}},
    ],
}


def create(client: TestClient, key: str = 'support', **fields: Any) -> dict[str, Any]:
    body = {'key': key, 'name': 'Support', 'cases': [CASE], **fields}
    response = client.post('/api/evals/datasets', json=body)
    assert response.status_code == 201, response.text
    return dict(response.json())


def error(response: Any) -> tuple[int, str, list[str]]:
    body = response.json()['error']
    return response.status_code, body['message'], [f['location'] for f in body.get('fields', [])]


def test_a_dataset_is_created_changed_as_versions_and_read_at_each(client: TestClient) -> None:
    created = create(client, tags=['smoke', 'smoke', 'support'], evaluators=['EqualsExpected'])
    assert created['version'] == 1 and created['latest_version'] == 1 and created['change'] == 'created'
    assert created['tags'] == ['smoke', 'support'] and created['evaluators'] == ['EqualsExpected']
    assert created['cases'][0]['evaluators'][1] == {
        'ToolCalled': {'tool': 'lookup_order', 'arguments': {'order_id': 'A-1001'}}
    }

    renamed = client.patch('/api/evals/datasets/support', json={'name': 'Support desk', 'version': 1})
    assert renamed.status_code == 200 and renamed.json()['version'] == 2
    assert renamed.json()['cases'] == created['cases'], 'fields left out stay'
    stale = client.patch('/api/evals/datasets/support', json={'name': 'Other', 'version': 1})
    assert error(stale)[0] == 409 and 'version 2' in error(stale)[1]

    second = {
        'name': 'refund',
        'inputs': {'message': 'Can I get a refund?'},
        'evaluators': [{'MaxCost': '0.01'}],
    }
    added = client.post('/api/evals/datasets/support/cases', json={'case': second, 'version': 2})
    assert added.status_code == 200, added.text
    assert added.json()['version'] == 3 and [c['name'] for c in added.json()['cases']] == [
        'late order',
        'refund',
    ]

    assert client.get('/api/evals/datasets/support', params={'version': 1}).json()['name'] == 'Support'
    assert client.get('/api/evals/datasets/support').json()['name'] == 'Support desk'
    versions = client.get('/api/evals/datasets/support/versions').json()['versions']
    assert [(v['version'], v['case_count'], v['change']) for v in versions] == [
        (3, 2, 'case added'),
        (2, 1, 'edited'),
        (1, 1, 'created'),
    ]
    listed = client.get('/api/evals/datasets', params={'tag': 'smoke'}).json()['datasets']
    assert [(d['key'], d['version'], d['case_count']) for d in listed] == [('support', 3, 2)]
    assert client.get('/api/evals/datasets', params={'tag': 'other'}).json()['datasets'] == []

    assert client.delete('/api/evals/datasets/support').json() == {'deleted': 'support', 'versions': 3}
    assert client.get('/api/evals/datasets/support').status_code == 404


def test_export_is_a_pydantic_evals_file_and_import_reads_one(client: TestClient, tmp_path: Path) -> None:
    create(client, evaluators=['EqualsExpected'])
    exported = client.get('/api/evals/datasets/support/export', params={'format': 'yaml'})
    assert exported.status_code == 200 and 'support.v1.yaml' in exported.headers['content-disposition']
    path = tmp_path / 'support.yaml'
    path.write_text(exported.text)
    read_back = Dataset[Any, Any, Any].from_file(path, custom_evaluator_types=SYNAPSE_EVALUATORS)
    assert [c.name for c in read_back.cases] == ['late order']
    assert [type(e).__name__ for e in read_back.cases[0].evaluators] == ['Contains', 'ToolCalled']

    # A file written by pydantic-evals itself reads in (JSON, with its $schema line).
    read_back.cases[0].name = 'late order, again'
    written = tmp_path / 'again.json'
    read_back.to_file(written, custom_evaluator_types=SYNAPSE_EVALUATORS)
    imported = client.post(
        '/api/evals/datasets/import', json={'key': 'support', 'format': 'json', 'text': written.read_text()}
    )
    assert imported.status_code == 200, imported.text
    assert imported.json()['version'] == 2 and imported.json()['change'] == 'imported'
    assert imported.json()['cases'][0]['name'] == 'late order, again'

    fresh = client.post(
        '/api/evals/datasets/import',
        json={'key': 'fresh', 'format': 'yaml', 'text': yaml.safe_dump({'cases': [CASE]})},
    )
    assert fresh.status_code == 200 and fresh.json()['name'] == 'fresh' and fresh.json()['version'] == 1
    as_json = client.get('/api/evals/datasets/fresh/export', params={'format': 'json'})
    assert json.loads(as_json.text)['cases'][0]['inputs'] == CASE['inputs']


def test_a_turn_that_happened_becomes_a_case(client: TestClient) -> None:
    create(client, cases=[])
    for text in ('Where is order A-1001?', 'And order A-1002?'):
        conversation = client.get('/api/conversations').json()['conversations']
        form = {'message': text}
        if conversation:
            form['conversation_id'] = conversation[0]['id']
        chunks = decode(client.post(f'/api/agents/{SUPPORT}/chat', data=form).text)
        assert not [c for c in chunks if c.get('type') == 'error']
    (conversation,) = client.get('/api/conversations').json()['conversations']
    messages = client.get(f'/api/conversations/{conversation["id"]}').json()['messages']
    first_question, first_answer, second_question, second_answer = messages

    by_question = client.post(
        '/api/evals/datasets/support/cases/from-message',
        json={'message_id': second_question['id'], 'include_history': True},
    )
    assert by_question.status_code == 200, by_question.text
    (case,) = by_question.json()['cases']
    assert case['name'] == 'And order A-1002?' and case['inputs']['message'] == 'And order A-1002?'
    assert case['expected_output'] == second_answer['content']
    assert case['metadata']['source'] == {
        'conversation_id': conversation['id'],
        'message_id': second_question['id'],
        'agent_key': SUPPORT,
    }
    history = case['inputs']['history']
    assert history[0]['kind'] == 'request' and history[-1]['kind'] == 'response'
    assert 'Where is order A-1001?' in json.dumps(history) and 'A-1002' not in json.dumps(history)

    by_answer = client.post(
        '/api/evals/datasets/support/cases/from-message',
        json={
            'message_id': first_answer['id'],
            'expected': 'reference',
            'evaluators': [{'Contains': 'A-1001'}],
        },
    )
    assert by_answer.status_code == 200, by_answer.text
    saved = by_answer.json()['cases'][1]
    assert saved['name'] == 'Where is order A-1001?' and 'history' not in saved['inputs']
    assert 'expected_output' not in saved and saved['metadata']['reference'] == first_answer['content']
    again = client.post(
        '/api/evals/datasets/support/cases/from-message', json={'message_id': first_question['id']}
    )
    assert again.json()['cases'][2]['name'] == 'Where is order A-1001? (2)', 'names stay apart'
    versions = client.get('/api/evals/datasets/support/versions').json()['versions']
    assert versions[0]['change'] == 'case added from a message'


def test_bad_input_is_a_4xx_naming_the_field_and_changes_nothing(client: TestClient) -> None:
    create(client)
    cases: list[tuple[dict[str, Any], str]] = [
        ({'key': 'Bad Key', 'name': 'x'}, 'body.key'),
        ({'key': 'k', 'name': ''}, 'body.name'),
        ({'key': 'k', 'name': 'x', 'cases': [{'name': 'a', 'inputs': {}}]}, 'body.cases.0.inputs.message'),
        ({'key': 'k', 'name': 'x', 'cases': [CASE, CASE]}, 'body.cases.1.name'),
        (
            {'key': 'k', 'name': 'x', 'cases': [{**CASE, 'evaluators': [{'Python': 'True'}]}]},
            'body.cases.0.evaluators.0',
        ),
        (
            {
                'key': 'k',
                'name': 'x',
                'cases': [{**CASE, 'evaluators': [{'LLMJudge': {'rubric': 'polite'}}]}],
            },
            'body.cases.0.evaluators.0',
        ),
        (
            {'key': 'k', 'name': 'x', 'cases': [{**CASE, 'evaluators': ['NoSuchEvaluator']}]},
            'body.cases.0.evaluators',
        ),
        (
            {'key': 'k', 'name': 'x', 'cases': [{**CASE, 'evaluators': [{'MaxCost': 'lots'}]}]},
            'body.cases.0.evaluators',
        ),
        (
            {
                'key': 'k',
                'name': 'x',
                'cases': [{**CASE, 'inputs': {'message': 'hi', 'history': [{'kind': 'x'}]}}],
            },
            'body.cases.0.inputs.history',
        ),
        ({'key': 'k', 'name': 'x', 'cases': [{**CASE, 'extra': 1}]}, 'body.cases.0.extra'),
        (
            {'key': 'k', 'name': 'x', 'cases': [{**CASE, 'inputs': {'message': 'a\x00b'}}]},
            'body.cases.0.inputs.message',
        ),
    ]
    for body, location in cases:
        status, message, fields = error(client.post('/api/evals/datasets', json=body))
        assert status == 422 and location in fields, (body, message, fields)
    assert error(client.post('/api/evals/datasets', json={'key': 'support', 'name': 'again'}))[0] == 409
    assert [d['key'] for d in client.get('/api/evals/datasets').json()['datasets']] == ['support']

    assert error(client.get('/api/evals/datasets/nope'))[0] == 404
    assert error(client.get('/api/evals/datasets/support', params={'version': 9}))[0] == 404
    bad_case = client.post(
        '/api/evals/datasets/support/cases', json={'case': {'name': 'late order', 'inputs': {'message': 'x'}}}
    )
    assert error(bad_case)[:1] == (422,) and 'case.name' in error(bad_case)[2][0]
    not_json = client.post(
        '/api/evals/datasets/import', json={'key': 'support', 'format': 'json', 'text': '{nope'}
    )
    assert error(not_json)[0] == 422 and 'not JSON' in error(not_json)[1]
    not_a_dataset = client.post(
        '/api/evals/datasets/import', json={'key': 'support', 'format': 'yaml', 'text': '- 1'}
    )
    assert error(not_a_dataset)[0] == 422
    unknown_message = client.post(
        '/api/evals/datasets/support/cases/from-message',
        json={'message_id': '0193aaaa-0000-7000-8000-000000000009'},
    )
    assert error(unknown_message)[0] == 422 and error(unknown_message)[2] == ['body.message_id']
    after = client.get('/api/evals/datasets/support').json()
    assert after['version'] == 1 and after['cases'][0]['name'] == 'late order', 'nothing changed'
