"""`GET /api/messages/{id}/context`: what filled each prompt of a playground turn, over HTTP."""

from __future__ import annotations

from fastapi.testclient import TestClient

from chat_helpers import decode

SUPPORT = 'synapse_agents.demo.agents.support-agent'


def test_a_playground_turn_says_what_filled_its_prompts(client: TestClient) -> None:
    response = client.post(f'/api/agents/{SUPPORT}/chat', data={'message': 'Where is my order 42?'})
    assert response.status_code == 200
    start = next(c for c in decode(response.text) if c['type'] == 'start')
    message_id = start['messageMetadata']['message_id']
    context = client.get(f'/api/messages/{message_id}/context')
    assert context.status_code == 200
    requests = context.json()['requests']
    assert requests and [r['position'] for r in requests] == list(range(len(requests)))
    first = requests[0]
    kinds = [b['kind'] for b in first['blocks']]
    assert 'message' in kinds and first['estimated'] is True
    message = next(b for b in first['blocks'] if b['kind'] == 'message')
    assert message['text'] == 'Where is my order 42?'  # the playground keeps bodies: texts are there
    assert first['estimated_tokens'] == sum(b['tokens'] for b in first['blocks'])


def test_unknown_and_malformed_ids(client: TestClient) -> None:
    assert client.get('/api/messages/01a240d1-9a3d-72d6-882d-707a30e36d51/context').json() == {'requests': []}
    bad = client.get('/api/messages/not-an-id/context')
    assert bad.status_code == 404 and 'No message with id' in bad.json()['error']['message']


def test_a_traced_model_call_says_what_filled_its_prompt(client: TestClient) -> None:
    response = client.post(f'/api/agents/{SUPPORT}/chat', data={'message': 'Where is my order 42?'})
    message_id = next(c for c in decode(response.text) if c['type'] == 'start')['messageMetadata'][
        'message_id'
    ]
    turn = client.get(f'/api/messages/{message_id}/context').json()['requests']
    root = client.get('/api/traces', params={'message_id': message_id}).json()['roots'][0]
    tree = client.get(f'/api/traces/{root["agent_run_id"]}').json()
    calls = [node for node in tree['root']['children'] if node['kind'] == 'model']
    assert calls and len(calls) == len(turn)
    for position, call in enumerate(calls):
        found = client.get(f'/api/traces/calls/{call["id"]}/context').json()['context']
        assert found == turn[position]
    assert client.get('/api/traces/calls/01a240d1-9a3d-72d6-882d-707a30e36d51/context').status_code == 404
