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
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.store import Store


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


# -- lone surrogates and JSON too deep ------------------------------------------------------------
# A JSON text may spell a lone UTF-16 surrogate (`"\ud800"`): Python reads it into a string that
# cannot be encoded as UTF-8, which PostgreSQL refuses and no answer can carry. These are sent as
# raw JSON text, since no JSON encoder writes one.

LONE = '"\\ud800"'


@pytest.mark.parametrize(
    ('method', 'url', 'body', 'location', 'listing'),
    [
        (
            'POST',
            '/api/registry/providers',
            f'{{"key": "p1", "kind": "openai", "options": {{"extra": {{"x": [1, {LONE}]}}}}}}',
            'body.options.extra.x.1',
            '/api/registry/providers',
        ),
        (
            'POST',
            '/api/registry/models',
            f'{{"provider_key": "openai", "name": "gpt-x", "meta": {{{LONE}: 1}}}}',
            'body.meta.\ud800',
            '/api/registry/models',
        ),
        (
            'POST',
            '/api/registry/presets',
            f'{{"key": "p", "model": "demo", "provider_options": {{"a": {LONE}}}}}',
            'body.provider_options.a',
            '/api/registry/presets',
        ),
        (
            'POST',
            '/api/registry/agents',
            f'{{"key": "a", "spec": {{"metadata": {{"note": {LONE}}}}}}}',
            'body.spec.metadata.note',
            '/api/registry/agents',
        ),
        (
            'POST',
            '/api/registry/tones',
            f'{{"key": "t", "name": {LONE}}}',
            'body.name',
            '/api/registry/tones',
        ),
        (
            'POST',
            '/api/events',
            '{"event": "ticket.opened", "context": {"text": "a\\udc00b"}}',
            'body.context.text',
            '/api/tasks',
        ),
    ],
)
def test_a_lone_surrogate_in_a_json_body_is_a_422_and_stores_nothing(
    chat: TestClient, method: str, url: str, body: str, location: str, listing: str
) -> None:
    response = chat.request(method, url, content=body, headers={'content-type': 'application/json'})
    assert response.status_code == 422, response.text
    error = response.json()['error']
    message = 'lone UTF-16 surrogates (\\ud800 to \\udfff) are not accepted'
    if location.endswith('\ud800'):  # a key: the location shows it escaped
        location, message = location.removesuffix('\ud800') + '\\ud800', f'a key: {message}'
    assert error['fields'] == [{'location': location, 'message': message}]
    listed = chat.get(listing)
    assert listed.status_code == 200, listed.text
    assert '\\ud800' not in listed.text and '\\udc00' not in listed.text


def test_a_surrogate_pair_is_a_character_and_is_stored(chat: TestClient) -> None:
    body = '{"key": "t", "name": "smile \\ud83d\\ude00"}'
    response = chat.post('/api/registry/tones', content=body, headers={'content-type': 'application/json'})
    assert response.status_code == 201, response.text
    assert chat.get('/api/registry/tones').json()['tones'][0]['name'] == 'smile \U0001f600'


def test_a_lone_surrogate_in_a_title_is_a_422(chat: TestClient, store: Store) -> None:
    conversation = seed_conversation(store, title='Old')
    response = chat.patch(
        f'/api/conversations/{conversation}',
        content=f'{{"title": {LONE}}}',
        headers={'content-type': 'application/json'},
    )
    assert response.status_code == 422, response.text
    assert response.json()['error']['fields'][0]['location'] == 'body.title'
    assert chat.get('/api/conversations').json()['conversations'][0]['title'] == 'Old'


def test_a_lone_surrogate_in_a_chat_form_is_a_422_and_stores_nothing(chat: TestClient, store: Store) -> None:
    url = '/api/agents/chat_agents.greeter/chat'
    # A form part declared in UTF-7 decodes `+2AA-` to a lone surrogate.
    boundary = 'b0undary'
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="message"\r\n\r\n'
        f'hi +2AA-\r\n--{boundary}--\r\n'
    ).encode()
    response = chat.post(
        url,
        content=body,
        headers={'content-type': f'multipart/form-data; boundary={boundary}; charset=utf-7'},
    )
    assert response.status_code == 422, response.text
    assert response.json()['error']['fields'][0]['location'] == 'body.message'
    for field in ('deps', 'decisions'):
        response = chat.post(url, data={field: f'{{"a": {LONE}}}'})
        assert response.status_code == 422, response.text
        assert response.json()['error']['fields'][0]['location'] == f'body.{field}.a'
    assert store.counts()['messages'] == 0
    assert chat.get('/api/conversations').status_code == 200


@pytest.mark.parametrize('field', ['deps', 'decisions'])
@pytest.mark.parametrize('depth', [40, 5_000, 30_000])
def test_json_nested_deep_in_a_chat_form_field_is_a_422(chat: TestClient, field: str, depth: int) -> None:
    deep = '[' * depth + ']' * depth
    response = chat.post('/api/agents/chat_agents.greeter/chat', data={field: deep})
    assert response.status_code == 422, response.text
    error = response.json()['error']
    assert error['message'] == f'{field}: nested deeper than 32 levels.', error
    assert error['fields'][0]['location'].startswith(f'body.{field}')


def test_json_nested_deep_in_a_body_is_a_400(chat: TestClient) -> None:
    deep = '{"metadata": ' * 30_000 + '1' + '}' * 30_000
    response = chat.post('/api/registry/tones', content=deep, headers={'content-type': 'application/json'})
    assert response.status_code == 400, response.text
    assert response.json()['error']['code'] == 'bad_request'
