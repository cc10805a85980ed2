"""`/api/vector-memories` and `/api/people/{person}/data` over HTTP, on every database: write, browse,
recall, forget, conversations' deletes, the privacy view and deleting a person's data, and the 4xx
answers to bad input."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.runtime.root import SynapseRuntime
from synapse_agents.store import Store
from vector_memory_helpers import vector_memory_app

pytestmark = pytest.mark.vectors

FIRM, MARIA, JUAN = 'firm:7', 'user:maria', 'user:juan'


@pytest.fixture
def api(context: SynapseRuntime) -> Iterator[TestClient]:
    with vector_memory_app(context) as client:
        yield client


def add(api: TestClient, content: str, **fields: Any) -> dict[str, Any]:
    body = {'tenant': FIRM, 'content': content, **fields}
    response = api.post('/api/vector-memories', json=body)
    assert response.status_code == 201, response.text
    return dict(response.json())


def conversation(store: Store, tenant: str = FIRM) -> str:
    kind, ident = tenant.split(':', 1)
    return ConversationRepository(store).create(agent_key='a', tenant_type=kind, tenant_id=ident).id


def listed(api: TestClient, **params: Any) -> list[str]:
    response = api.get('/api/vector-memories', params={'tenant': FIRM, **params})
    assert response.status_code == 200, response.text
    return [m['content'] for m in response.json()['vector_memories']]


def test_write_browse_recall_and_forget(api: TestClient, store: Store) -> None:
    chat = conversation(store)
    tea = add(
        api, 'María drinks green tea every morning.', person=MARIA, source_type='fact', meta={'from': 'crm'}
    )
    assert tea['scope'] == 'user' and tea['conversation_id'] is None and tea['meta'] == {'from': 'crm'}
    assert tea['embedder'] == 'local:all-MiniLM-L6-v2-int8' and tea['dimensions'] == 384
    assert 'embedding' not in tea
    add(api, 'María pays by bank transfer.', person=MARIA)
    add(api, 'Juan drinks coffee.', person=JUAN)
    add(api, 'We are talking about her tea order.', scope='conversation', conversation_id=chat)
    add(api, 'Another firm: María drinks milk.', person=MARIA, tenant='firm:8')

    assert len(listed(api)) == 4
    assert listed(api, person=MARIA) == [
        'María pays by bank transfer.',
        'María drinks green tea every morning.',
    ]
    assert listed(api, scope='conversation') == ['We are talking about her tea order.']
    assert listed(api, conversation_id=chat) == ['We are talking about her tea order.']
    assert listed(api, source_type='fact') == ['María drinks green tea every morning.']
    page = api.get('/api/vector-memories', params={'tenant': FIRM, 'limit': 3}).json()
    assert len(page['vector_memories']) == 3 and page['next_cursor']
    rest = api.get('/api/vector-memories', params={'tenant': FIRM, 'cursor': page['next_cursor']}).json()
    assert [m['content'] for m in rest['vector_memories']] == ['María drinks green tea every morning.']

    recalled = api.get(
        '/api/vector-memories/recall',
        params={'tenant': FIRM, 'person': MARIA, 'conversation_id': chat, 'q': 'What does she drink?'},
    ).json()
    assert recalled['ranked_by'] == 'similarity'
    contents = [r['memory']['content'] for r in recalled['results']]
    assert sorted(contents) == [
        'María drinks green tea every morning.',
        'María pays by bank transfer.',
        'We are talking about her tea order.',
    ]
    assert contents[-1] == 'María pays by bank transfer.'
    facts = api.get(
        '/api/vector-memories/recall',
        params=[('tenant', FIRM), ('person', MARIA), ('q', 'tea'), ('source_type', 'fact')],
    ).json()
    assert [r['memory']['id'] for r in facts['results']] == [tea['id']]

    wrong_tenant = api.delete(f'/api/vector-memories/{tea["id"]}', params={'tenant': 'firm:8'})
    assert wrong_tenant.status_code == 404 and wrong_tenant.json()['error']['code']
    assert api.delete(f'/api/vector-memories/{tea["id"]}').json() == {'deleted': tea['id']}
    again = api.delete(f'/api/vector-memories/{tea["id"]}')
    assert again.status_code == 404 and 'No vector memory' in again.json()['error']['message']
    assert 'María drinks green tea every morning.' not in listed(api)


@pytest.mark.parametrize(
    ('body', 'location'),
    [
        ({'tenant': FIRM, 'content': 'x'}, 'body.person'),
        ({'tenant': FIRM, 'content': 'x', 'person': 'maria'}, 'body.person'),
        ({'tenant': 'firm', 'content': 'x', 'person': MARIA}, 'body.tenant'),
        ({'tenant': FIRM, 'content': '   ', 'person': MARIA}, 'body.content'),
        ({'tenant': FIRM, 'content': 'x', 'person': MARIA, 'scope': 'forever'}, 'body.scope'),
        ({'tenant': FIRM, 'content': 'x', 'person': MARIA, 'source_type': 'rumour'}, 'body.source_type'),
        ({'tenant': FIRM, 'content': 'x', 'person': MARIA, 'meta': [1]}, 'body.meta'),
        ({'tenant': FIRM, 'content': 'x', 'person': MARIA, 'colour': 'red'}, 'body.colour'),
        ({'tenant': FIRM, 'content': 'x', 'scope': 'conversation'}, 'body.conversation_id'),
        (
            {
                'tenant': FIRM,
                'content': 'x',
                'scope': 'conversation',
                'conversation_id': '01a23000-0000-7000-8000-000000000000',
            },
            'body.conversation_id',
        ),
    ],
)
def test_bad_input_is_a_422_naming_the_field(api: TestClient, body: dict[str, Any], location: str) -> None:
    response = api.post('/api/vector-memories', json=body)
    assert response.status_code == 422, response.text
    assert location in [f['location'] for f in response.json()['error']['fields']]
    assert listed(api) == []


def test_a_conversation_of_another_tenant_is_refused(api: TestClient, store: Store) -> None:
    theirs = conversation(store, 'firm:8')
    response = api.post(
        '/api/vector-memories',
        json={'tenant': FIRM, 'content': 'x', 'scope': 'conversation', 'conversation_id': theirs},
    )
    assert response.status_code == 422 and 'not one of tenant firm:7' in response.json()['error']['message']


@pytest.mark.parametrize(
    ('path', 'params'),
    [
        ('/api/vector-memories', {}),
        ('/api/vector-memories', {'tenant': 'firm'}),
        ('/api/vector-memories', {'tenant': FIRM, 'scope': 'forever'}),
        ('/api/vector-memories/recall', {'q': 'tea', 'person': MARIA}),
        ('/api/vector-memories/recall', {'tenant': FIRM, 'q': 'tea'}),
        ('/api/vector-memories/recall', {'tenant': FIRM, 'q': 'tea', 'person': MARIA, 'k': 0}),
        (f'/api/people/{MARIA}/data', {}),
        (f'/api/people/{MARIA}/data', {'tenant': 'firm'}),
        ('/api/people/maria/data', {'tenant': FIRM}),
    ],
)
def test_bad_queries_are_a_422(api: TestClient, path: str, params: dict[str, Any]) -> None:
    response = api.get(path, params=params)
    assert response.status_code == 422, response.text
    assert response.json()['error']['message']
    if path.startswith('/api/people/'):
        deleted = api.delete(path, params=params)
        assert deleted.status_code == 422, deleted.text


def test_deleting_a_conversation_removes_its_memories(api: TestClient, store: Store) -> None:
    chat = conversation(store)
    add(api, 'Ephemeral.', scope='conversation', conversation_id=chat, person=MARIA)
    add(api, 'Permanent.', person=MARIA)
    deleted = api.delete(f'/api/conversations/{chat}')
    assert deleted.status_code == 200, deleted.text
    assert deleted.json()['deleted']['conversations'] == 1
    assert listed(api) == ['Permanent.']


def test_the_privacy_view_lists_and_deletes_a_persons_data_but_not_the_ledger(
    api: TestClient, store: Store
) -> None:
    chat = conversation(store)
    add(api, 'María drinks tea.', person=MARIA)
    add(api, 'She asked about order 41.', scope='conversation', conversation_id=chat, person=MARIA)
    add(api, 'Juan drinks coffee.', person=JUAN)
    add(api, 'Other firm: María drinks milk.', person=MARIA, tenant='firm:8')
    for memory in (
        {'content': 'María wants bullet points.', 'applies_to': MARIA},
        {'content': 'María was born in Porto.', 'subject': MARIA},
        {'content': 'Juan wants long answers.', 'applies_to': JUAN},
    ):
        assert api.post('/api/memories', json={'tenant': FIRM, **memory}).status_code == 201

    view = api.get(f'/api/people/{MARIA}/data', params={'tenant': FIRM})
    assert view.status_code == 200, view.text
    data = view.json()
    assert (data['person'], data['tenant']) == (MARIA, FIRM)
    assert [m['content'] for m in data['vector_memories']] == [
        'She asked about order 41.',
        'María drinks tea.',
    ]
    assert [m['content'] for m in data['memories']] == [
        'María was born in Porto.',
        'María wants bullet points.',
    ]
    assert data['ledger_rows'] == 2 and 'never deleted' in data['ledger']

    gone = api.delete(f'/api/people/{MARIA}/data', params={'tenant': FIRM})
    assert gone.status_code == 200, gone.text
    assert gone.json()['deleted'] == {'vector_memories': 2, 'memories': 2}
    assert gone.json()['ledger_rows_kept'] == 2 and 'never deleted' in gone.json()['ledger']
    after = api.get(f'/api/people/{MARIA}/data', params={'tenant': FIRM}).json()
    assert after['vector_memories'] == [] and after['memories'] == [] and after['ledger_rows'] == 2
    assert listed(api) == ['Juan drinks coffee.']
    other = api.get(f'/api/people/{MARIA}/data', params={'tenant': 'firm:8'}).json()
    assert [m['content'] for m in other['vector_memories']] == ['Other firm: María drinks milk.']
    juan = api.get(f'/api/people/{JUAN}/data', params={'tenant': FIRM}).json()
    assert len(juan['vector_memories']) == 1 and len(juan['memories']) == 1
