"""`/api/memories` over HTTP: add, browse in pages, search with scores and axes, change, forget, a
person's memories and choice, the status, and the 4xx answers to bad input."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

pytestmark = pytest.mark.vectors


def add(client: TestClient, content: str, **axes: str | None) -> dict[str, object]:
    response = client.post('/api/memories', json={'tenant': 'firm:7', 'content': content, **axes})
    assert response.status_code == 201, response.text
    return dict(response.json())


def test_add_browse_search_change_and_forget(client: TestClient) -> None:
    status = client.get('/api/memories/status').json()
    assert status['distiller_model'] is None and status['embedder'] == 'local:all-MiniLM-L6-v2-int8'
    billing = add(client, 'Invoices go out every two weeks.')
    assert billing['source'] == 'manual' and billing['embedded'] is True
    add(client, 'María wants bullet points.', applies_to='user:maria')
    add(client, 'The Lisbon office closes at five.', subject='case:1')
    add(client, 'Invoices go out monthly.', tenant='firm:8')
    duplicate = client.post(
        '/api/memories', json={'tenant': 'firm:7', 'content': 'invoices go out every two weeks'}
    )
    assert duplicate.status_code == 409 and 'already stored' in duplicate.text
    unnamed = client.post('/api/memories/distill', json={'conversation_id': billing['id']})
    assert unnamed.status_code == 409 and 'memory_model' in unnamed.json()['error']['message']

    page = client.get('/api/memories', params={'tenant': 'firm:7', 'limit': 2}).json()
    assert len(page['memories']) == 2 and page['next_cursor']
    rest = client.get('/api/memories', params={'tenant': 'firm:7', 'cursor': page['next_cursor']}).json()
    assert [m['content'] for m in rest['memories']] == ['Invoices go out every two weeks.']
    assert rest['next_cursor'] is None
    tenant_wide = client.get('/api/memories', params={'tenant': 'firm:7', 'subject': ''}).json()
    assert len(tenant_wide['memories']) == 2

    found = client.get(
        '/api/memories/search',
        params={'tenant': 'firm:7', 'actor': 'user:maria', 'q': 'billing schedule', 'k': 5},
    ).json()
    assert found['ranked_by'] == 'similarity'
    first = found['results'][0]
    assert first['memory']['content'] == 'Invoices go out every two weeks.' and first['applies_to_everyone']
    assert first['score'] > 0
    assert {r['memory']['tenant'] for r in found['results']} == {'firm:7'}
    assert 'The Lisbon office closes at five.' not in [r['memory']['content'] for r in found['results']]

    changed = client.patch(f'/api/memories/{billing["id"]}', json={'content': 'Invoices go out weekly.'})
    assert changed.status_code == 200 and changed.json()['content'] == 'Invoices go out weekly.'
    assert client.delete(f'/api/memories/{billing["id"]}').json() == {'deleted': billing['id']}
    assert client.get(f'/api/memories/{billing["id"]}').status_code == 404


def test_a_persons_memories_and_their_choice(client: TestClient) -> None:
    maria = quote('user:maria', safe='')
    add(client, 'María wants bullet points.', applies_to='user:maria')
    add(client, 'María works on the Ortega case.', applies_to='user:maria', tenant='firm:8')
    add(client, 'Shared fact.')
    assert len(client.get(f'/api/memories/people/{maria}').json()['memories']) == 2
    assert (
        len(client.get(f'/api/memories/people/{maria}', params={'tenant': 'firm:8'}).json()['memories']) == 1
    )
    sharing = client.get(f'/api/memories/people/{maria}/sharing').json()
    assert sharing == {'actor': 'user:maria', 'share_memories': None, 'effective': True}
    put = client.put(f'/api/memories/people/{maria}/sharing', json={'share_memories': False}).json()
    assert put == {'actor': 'user:maria', 'share_memories': False, 'effective': False}
    back = client.put(f'/api/memories/people/{maria}/sharing', json={'share_memories': None}).json()
    assert back['share_memories'] is None and back['effective'] is True
    assert client.delete(f'/api/memories/people/{maria}').json() == {'deleted': 2}
    assert [m['content'] for m in client.get('/api/memories').json()['memories']] == ['Shared fact.']


@pytest.mark.parametrize(
    ('method', 'path', 'body', 'field'),
    [
        ('post', '/api/memories', {'tenant': 'acme', 'content': 'x'}, 'tenant'),
        ('post', '/api/memories', {'tenant': 'org:a', 'content': '   '}, 'content'),
        ('post', '/api/memories', {'tenant': 'org:a', 'content': 'x' * 4001}, 'content'),
        ('post', '/api/memories', {'tenant': 'org:a', 'content': 'x', 'colour': 'red'}, 'colour'),
        ('get', '/api/memories/search?tenant=org:a&q=x&k=0', None, 'k'),
        ('get', '/api/memories/search?tenant=nocolon&q=x', None, 'tenant'),
        ('get', '/api/memories?cursor=not-a-cursor', None, 'cursor'),
        ('put', '/api/memories/people/nocolon/sharing', {'share_memories': True}, 'actor'),
        ('post', '/api/memories/distill', {'conversation_id': 'x' * 37}, 'conversation_id'),
        ('put', '/api/memories/people/user:1/sharing', {'share_memories': 1}, 'share_memories'),
    ],
)
def test_bad_input_is_a_4xx_naming_the_field(
    client: TestClient, method: str, path: str, body: dict[str, object] | None, field: str
) -> None:
    response = client.request(method.upper(), path, json=body)
    assert 400 <= response.status_code < 500, response.text
    error = response.json()['error']
    assert field in str(error)
    assert client.get('/api/memories').json()['memories'] == []  # nothing written
    assert client.get('/api/memories/00000000-0000-7000-8000-000000000000').status_code == 404
