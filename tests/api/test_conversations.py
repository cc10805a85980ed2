"""The history API on every selected database: list, filters, search, replay, rename, delete."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, update

from chat_helpers import LOCAL_PEER, LOCAL_URL, agent_catalog, decode
from chat_helpers import seed_conversation as seed
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.store import Store
from synapse_agents.store.ids import new_id


@contextmanager
def count_queries(store: Store) -> Iterator[list[str]]:
    statements: list[str] = []

    def before(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement)

    event.listen(store.engine, 'before_cursor_execute', before)
    try:
        yield statements
    finally:
        event.remove(store.engine, 'before_cursor_execute', before)


def ids(response: Any) -> list[str]:
    return [row['id'] for row in response.json()['conversations']]


def test_list_rows_totals_and_pagination(client: TestClient, store: Store) -> None:
    made = [
        seed(store, title=f'conversation {i}', tokens=(i, 1), cost=0.5 if i == 0 else None) for i in range(30)
    ]
    body = client.get('/api/conversations').json()
    assert body['total'] == 30 and body['pages'] == 2 and body['page_size'] == 25
    assert len(body['conversations']) == 25
    assert body['conversations'][0]['id'] == made[-1]  # newest first
    row = next(
        r
        for r in client.get('/api/conversations', params={'page': 2, 'sort': 'newest'}).json()[
            'conversations'
        ]
        if r['id'] == made[0]
    )
    assert row == {
        'id': made[0],
        'agent_key': 'app.support',
        'agent_name': 'support',
        'title': 'conversation 0',
        'status': 'success',
        'origin': 'playground',
        'tenant': None,
        'actor': None,
        'subject': None,
        'forked_from_id': None,
        'input_tokens': 0,
        'output_tokens': 1,
        'total_tokens': 1,
        'cost': 0.5,
        'message_count': 2,
        'tool_count': 0,
        'created_at': row['created_at'],
        'updated_at': row['updated_at'],
        'corrupt': None,
    }
    assert ids(client.get('/api/conversations', params={'sort': 'oldest'}))[0] == made[0]
    assert client.get('/api/conversations', params={'page': 0}).status_code == 422
    assert client.get('/api/conversations', params={'sort': 'sideways'}).status_code == 422


def test_filters(client: TestClient, store: Store) -> None:
    now = datetime.now(UTC)
    a = seed(store, agent='app.support', tools=('lookup_order',), updated=now - timedelta(days=3))
    b = seed(store, agent='app.support', error=True, tools=('create_ticket', 'lookup_order'))
    c = seed(store, agent='app.billing', tools=('refund',))
    d = seed(store, agent='app.billing', error=True, updated=now - timedelta(days=40))

    def get(**params: Any) -> set[str]:
        return set(ids(client.get('/api/conversations', params=params)))

    assert get(agents=['app.support']) == {a, b}
    assert get(**{'agents[]': ['app.billing', 'app.support']}) == {a, b, c, d}
    assert get(status='error') == {b, d} and get(status='success') == {a, c}
    assert get(tools=['lookup_order']) == {a, b}
    assert get(**{'tools[]': ['refund', 'create_ticket']}) == {b, c}
    day = (now - timedelta(days=3)).date().isoformat()
    assert get(**{'from': day, 'to': day}) == {a}
    assert get(**{'from': (now - timedelta(days=10)).isoformat()}) == {a, b, c}
    assert get(agents=['app.support'], status='error', tools=['lookup_order'], **{'from': day}) == {b}
    assert client.get('/api/conversations', params={'from': 'yesterday'}).status_code == 422


@pytest.mark.parametrize('term', ['invoice', 'INVOICE 42', 'ice 4', 'ic', '100%', 'under_score'])
def test_search_titles_and_message_text(client: TestClient, store: Store, term: str) -> None:
    by_title = seed(store, title='Question about invoice 42', answer='nothing special')
    by_answer = seed(store, title='Hi', answer='Your INVOICE 42 is paid. 100% under_score')
    seed(store, title='Other', answer='unrelated text')
    seed(store, title='100 percent', answer='underXscore')
    expected = {
        'invoice': {by_title, by_answer},
        'INVOICE 42': {by_title, by_answer},
        'ice 4': {by_title, by_answer},
        'ic': {by_title, by_answer},
        '100%': {by_answer},
        'under_score': {by_answer},
    }[term]
    assert set(ids(client.get('/api/conversations', params={'search': term}))) == expected


def test_search_follows_renames_and_deletes(client: TestClient, store: Store) -> None:
    conversation = seed(store, title='Alpha', answer='bravo')
    assert (
        client.patch(f'/api/conversations/{conversation}', json={'title': 'Charlie delta'}).status_code == 200
    )
    assert ids(client.get('/api/conversations', params={'search': 'charlie'})) == [conversation]
    client.patch(f'/api/conversations/{conversation}', json={'title': 'Echo'})
    assert ids(client.get('/api/conversations', params={'search': 'delta'})) == []
    assert ids(client.get('/api/conversations', params={'search': 'alpha'})) == [conversation]  # the message
    client.delete(f'/api/conversations/{conversation}')
    assert ids(client.get('/api/conversations', params={'search': 'bravo'})) == []


def test_query_counts_are_constant(client: TestClient, store: Store) -> None:
    for i in range(3):
        seed(store, tools=('t',) * i)
    params = {
        'search': 'answer',
        'agents': ['app.support'],
        'status': 'success',
        'tools': ['t'],
        'from': '2000-01-01',
    }
    with count_queries(store) as few:
        client.get('/api/conversations', params=params)
    for i in range(20):
        seed(store, tools=('t',) * i)
    with count_queries(store) as many:
        client.get('/api/conversations', params=params)
    assert len(few) == len(many) <= 4  # BEGIN (SQLite), message matches, title matches, page
    conversation = seed(store, tools=('a', 'b', 'c'))
    with count_queries(store) as thread:
        client.get(f'/api/conversations/{conversation}')
    assert len(thread) <= 4


def test_replay_is_the_whole_thread_in_order(client: TestClient, context: SynapseContext) -> None:
    context.catalog = agent_catalog()  # `chat_agents.archivist`: one tool call with a large result
    url = '/api/agents/chat_agents.archivist/chat'
    first = decode(client.post(url, data={'message': 'Where is A-1?'}).text)
    conversation_id = first[0]['messageMetadata']['conversation_id']
    client.post(url, data={'message': 'And now?', 'conversation_id': conversation_id})
    thread = client.get(f'/api/conversations/{conversation_id}').json()
    assert [m['role'] for m in thread['messages']] == ['user', 'assistant', 'user', 'assistant']
    assert thread['conversation']['agent_available'] is True and thread['conversation']['stateless'] is False
    assistant = thread['messages'][1]
    assert [p['type'] for p in assistant['parts']] == ['tool', 'text']
    tool = assistant['parts'][0]['tool']
    assert tool['name'] == 'lookup' and tool['status'] == 'success' and tool['truncated'] is True
    assert isinstance(tool['result'], str) and tool['result'].endswith('…')
    full = client.get(f'/api/tool-invocations/{tool["id"]}').json()
    assert full['truncated'] is False and len(full['result']['history']) == 40
    assert client.get('/api/tool-invocations/nope').status_code == 404
    assert 'model_messages' not in str(thread)
    assert assistant['meta']['model'] == 'scripted' and assistant['input_tokens'] > 0
    assert thread['totals']['tool_calls'] == 1 and thread['totals']['input_tokens'] > 0
    assert client.get('/api/conversations/nope').status_code == 404


def test_rename_delete_and_clear(client: TestClient, store: Store) -> None:
    conversation = seed(store, title='Old')
    assert client.patch(f'/api/conversations/{conversation}', json={'title': '  New   title '}).json()[
        'title'
    ] == ('New title')
    assert client.patch(f'/api/conversations/{conversation}', json={'title': ' '}).status_code == 422
    assert client.patch(f'/api/conversations/{conversation}', json={'title': 'x' * 201}).status_code == 422
    assert client.patch('/api/conversations/nope', json={'title': 'x'}).status_code == 404
    deleted = client.delete(f'/api/conversations/{conversation}').json()['deleted']
    assert deleted['conversations'] == 1 and deleted['messages'] == 2
    assert client.delete(f'/api/conversations/{conversation}').status_code == 404
    seed(store)
    seed(store, error=True)
    cleared = client.post('/api/conversations/clear').json()['deleted']
    assert cleared['conversations'] == 2 and cleared['messages'] == 5
    assert client.get('/api/conversations').json()['total'] == 0


def test_start_up_sweeps_turns_left_in_flight_and_serve_prunes(context: SynapseContext, store: Store) -> None:
    from synapse_agents.conversations.tables import Message
    from synapse_agents.web.app import create_app

    old = seed(store, updated=datetime.now(UTC) - timedelta(days=400))
    crashed = seed(store)
    with store.write() as session:
        # Left in flight by a process that is gone (no `store_instances` row).
        session.execute(
            update(Message)
            .where(Message.conversation_id == crashed)
            .values(status='streaming', owner=new_id())
        )
    with TestClient(
        create_app(context), base_url=LOCAL_URL, client=LOCAL_PEER
    ) as client:  # not `synapse serve`: no pruning
        statuses = [m['status'] for m in client.get(f'/api/conversations/{crashed}').json()['messages']]
        assert statuses == ['interrupted', 'interrupted']
        assert client.get(f'/api/conversations/{old}').status_code == 200
    context.maintenance = True
    context.settings.auto_prune = True
    with TestClient(create_app(context), base_url=LOCAL_URL, client=LOCAL_PEER) as client:
        for _ in range(50):
            if client.get(f'/api/conversations/{old}').status_code == 404:
                break
            import time

            time.sleep(0.02)
        assert client.get(f'/api/conversations/{old}').status_code == 404
        assert client.get(f'/api/conversations/{crashed}').status_code == 200


def test_a_common_search_term_pages_exactly_and_counts_a_lower_bound(
    client: TestClient, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from synapse_agents.conversations import search

    start = datetime.now(UTC) - timedelta(hours=1)
    made = [
        seed(
            store,
            title=f'chat {i}',
            answer='the common word appears here',
            updated=start + timedelta(minutes=i),
        )
        for i in range(30)
    ]
    monkeypatch.setattr(search, 'SEARCH_CAP', 3)  # "common": more than 3 matching messages
    first = client.get('/api/conversations', params={'search': 'common word'}).json()
    assert [row['id'] for row in first['conversations']] == made[::-1][:25]  # the newest 25, exactly
    assert first['total_exact'] is False and 26 <= first['total'] <= 30
    last = client.get('/api/conversations', params={'search': 'common word', 'page': 2}).json()
    assert [row['id'] for row in last['conversations']] == made[::-1][25:]
    assert last['total'] == 30 and last['total_exact'] is True  # the last page knows the end
    oldest = client.get('/api/conversations', params={'search': 'common word', 'sort': 'oldest'}).json()
    assert [row['id'] for row in oldest['conversations']] == made[:25]
    assert client.get('/api/conversations', params={'search': 'chat 1'}).json()['total_exact'] is True


@pytest.mark.parametrize('common', [False, True], ids=['selective', 'common'])
def test_a_search_with_filters_finds_matches_beyond_the_newest(
    client: TestClient, store: Store, monkeypatch: pytest.MonkeyPatch, common: bool
) -> None:
    """The newest matches all belong to agent A; B's older matches must still be found when the
    search is combined with a filter on B (or on status, tools, dates), whatever the term's count."""
    from synapse_agents.conversations import search

    now = datetime.now(UTC)
    old = now - timedelta(days=30)
    b_ok = seed(store, agent='app.billing', title='refund please', tools=('refund',), updated=old)
    b_error = seed(store, agent='app.billing', answer='your refund failed', error=True, updated=old)
    newest = [
        seed(store, agent='app.support', answer=f'refund {i} done', updated=now - timedelta(minutes=i))
        for i in range(6)
    ]
    if common:
        monkeypatch.setattr(search, 'SEARCH_CAP', 3)  # the newest 3 matches are all agent A's

    def get(**params: Any) -> Any:
        return client.get('/api/conversations', params={'search': 'refund', **params}).json()

    assert [row['id'] for row in get(agents=['app.billing'])['conversations']] == [b_error, b_ok]
    assert [row['id'] for row in get(status='error')['conversations']] == [b_error]
    assert [row['id'] for row in get(tools=['refund'])['conversations']] == [b_ok]
    before = (now - timedelta(days=2)).date().isoformat()
    assert {row['id'] for row in get(to=before)['conversations']} == {b_ok, b_error}
    everything = get()
    assert [row['id'] for row in everything['conversations']] == [*newest, b_error, b_ok]
    for body in (get(agents=['app.billing']), get(status='error'), everything):
        assert body['total_exact'] is True  # every one of these pages is the last one
    assert get(agents=['app.billing'])['total'] == 2 and everything['total'] == 8


def test_a_tools_filter_counts_a_little_past_its_page(
    client: TestClient, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from synapse_agents.conversations import history

    start = datetime.now(UTC) - timedelta(hours=1)
    made = [
        seed(store, tools=('lookup',) if i % 2 else ('other',), updated=start + timedelta(minutes=i))
        for i in range(70)
    ]
    with_lookup = [c for i, c in enumerate(made) if i % 2][::-1]  # 35, newest first
    monkeypatch.setattr(history, 'COUNT_CAP', 3)
    first = client.get('/api/conversations', params={'tools': ['lookup']}).json()
    assert [row['id'] for row in first['conversations']] == with_lookup[:25]
    assert first['total'] == 28 and first['total_exact'] is False  # counted 3 past the page
    last = client.get('/api/conversations', params={'tools': ['lookup'], 'page': 2}).json()
    assert [row['id'] for row in last['conversations']] == with_lookup[25:]
    assert last['total'] == 35 and last['total_exact'] is True
    beyond = client.get('/api/conversations', params={'tools': ['lookup'], 'page': 3}).json()
    assert beyond['conversations'] == [] and beyond['total'] == 35 and beyond['total_exact'] is True
    monkeypatch.setattr(history, 'COUNT_CAP', 1000)
    exact = client.get('/api/conversations', params={'tools': ['lookup']}).json()
    assert exact['total'] == 35 and exact['total_exact'] is True
