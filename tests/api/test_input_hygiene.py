"""Input no database can take is a 4xx JSON answer, never a 500 or a broken stream (every database).

These are the cases the fuzzer (tests/api/test_fuzz.py) found or leaves out: a NUL character in a
URL (PostgreSQL cannot compare text holding one; SQLite's full-text search misreads it), in a chat
message or a title (PostgreSQL cannot store it), dates at the ends of the calendar, and search terms
full of full-text-query syntax.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from chat_helpers import agent_catalog, decode, seed_conversation
from synapse_agents.store import Store
from synapse_agents.web import SynapseContext


@pytest.fixture
def chat(client: TestClient, context: SynapseContext) -> TestClient:
    context.catalog = agent_catalog()
    return client


@pytest.mark.parametrize(
    ('method', 'url'),
    [
        ('GET', '/api/agents/chat_agents.greeter%00'),
        ('GET', '/api/agents/%00/models'),
        ('POST', '/api/agents/chat_agents.greeter%00/chat'),
        ('GET', '/api/conversations?search=invoice%00'),
        ('GET', '/api/conversations?agents=%00&tools[]=x'),
        ('GET', '/api/conversations/%00'),
        ('PATCH', '/api/conversations/a%00b'),
        ('DELETE', '/api/conversations/%00'),
        ('GET', '/api/tool-invocations/%00'),
        ('GET', '/api/attachments/%00/0'),
        ('GET', '/history%00'),
    ],
)
def test_a_nul_in_a_url_is_a_400(chat: TestClient, method: str, url: str) -> None:
    response = chat.request(method, url, data={'message': 'hi'} if method == 'POST' else None)
    assert response.status_code == 400
    assert response.json()['error'] == {
        'code': 'bad_request',
        'message': 'NUL characters are not accepted in URLs.',
    }


def test_a_nul_in_a_chat_field_is_a_422_and_stores_nothing(chat: TestClient, store: Store) -> None:
    url = '/api/agents/chat_agents.greeter/chat'
    response = chat.post(url, data={'message': 'a\x00b'})
    assert response.status_code == 422
    assert response.json()['error']['fields'] == [{'location': 'body.message', 'message': 'NUL character'}]
    response = chat.post(url, data={'message': 'hi', 'conversation_id': 'x\x00'})
    assert response.status_code == 422
    assert store.counts()['messages'] == 0
    assert 'error' not in [c['type'] for c in decode(chat.post(url, data={'message': 'a\tb'}).text)]


def test_titles_with_nul_or_only_whitespace_are_refused(chat: TestClient, store: Store) -> None:
    conversation = seed_conversation(store, title='Old')
    for title in ('a\x00b', ' \x1c\u2028 ', ''):
        response = chat.patch(f'/api/conversations/{conversation}', json={'title': title})
        assert response.status_code == 422, title
    assert (
        chat.patch(f'/api/conversations/{conversation}', json={'title': ' New\u2003title '}).json()['title']
        == 'New title'
    )


@pytest.mark.parametrize(
    'params',
    [
        {'to': '9999-12-31'},
        {'from': '9999-12-31'},
        {'from': '0001-01-01'},
        {'from': '0001-01-01T00:00:00+05:00'},
        {'to': '9999-12-31T23:59:59-05:00'},
        {'from': '2026-01-01t10:00:00z'},
        {'from': '', 'to': '', 'status': '', 'search': ''},
    ],
)
def test_dates_at_the_ends_of_the_calendar(chat: TestClient, store: Store, params: dict[str, str]) -> None:
    seed_conversation(store)
    response = chat.get('/api/conversations', params=params)
    assert response.status_code == 200, response.text
    assert response.json()['total'] in (0, 1)


@pytest.mark.parametrize(
    'term', ['"', 'a"b', '""', '*', 'NEAR(a b)', 'a OR b', '^start', 'col:x', '(', "'; DROP TABLE x; --"]
)
def test_search_terms_are_text_not_query_syntax(chat: TestClient, store: Store, term: str) -> None:
    wanted = seed_conversation(store, title=f'about {term} here')
    seed_conversation(store, title='unrelated')
    response = chat.get('/api/conversations', params={'search': term})
    assert response.status_code == 200, response.text
    assert [c['id'] for c in response.json()['conversations']] == [wanted]
