"""The history list's scope filters on every selected database: `origin`, `tenant`, `actor`,
`subject` and `forked_from`, alone, with each other and with every other filter; what is refused."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, update

from chat_helpers import seed_conversation
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.conversations.tables import Conversation
from synapse_agents.scope import Scope
from synapse_agents.store import Store

LIST = '/api/conversations'


def seed(store: Store, *, origin: str = 'playground', scope: Scope | None = None, **kwargs: Any) -> str:
    """A one-turn conversation with this origin and scope, as the turn engine stores them."""
    conversation_id = seed_conversation(store, **kwargs)
    values: dict[str, Any] = {'origin': origin, **(scope or Scope()).columns()}
    with store.write() as session:
        session.execute(update(Conversation).where(Conversation.id == conversation_id).values(**values))
    return conversation_id


def listed(client: TestClient, **params: Any) -> set[str]:
    response = client.get(LIST, params=params)
    assert response.status_code == 200, response.text
    return {row['id'] for row in response.json()['conversations']}


@pytest.fixture
def made(store: Store) -> dict[str, str]:
    """Conversations across origins, tenants, actors and subjects, agents, outcomes and dates."""
    old = datetime.now(UTC) - timedelta(days=30)
    acme, globex = ('org', 'acme'), ('org', 'globex')
    return {
        'playground': seed(store, title='Playground invoice'),
        'acme_ann': seed(
            store, origin='app', scope=Scope(tenant=acme, actor=('user', 'ann')), title='Acme invoice'
        ),
        'acme_bob': seed(
            store,
            origin='app',
            scope=Scope(tenant=acme, actor=('user', 'bob'), subject=('ticket', 'T-1')),
            error=True,
            title='Acme refund',
        ),
        'acme_task': seed(
            store,
            origin='task',
            scope=Scope(tenant=acme, actor=('service', 'nightly')),
            agent='app.billing',
            updated=old,
            title='Nightly invoice run',
        ),
        'globex': seed(
            store,
            origin='workflow',
            scope=Scope(tenant=globex, actor=('user', 'ann'), subject=('url', 'https://x.test/a:b')),
            agent='app.billing',
            title='Globex invoice',
        ),
    }


def test_each_filter_alone(client: TestClient, made: dict[str, str]) -> None:
    m = made
    assert listed(client, origin='app') == {m['acme_ann'], m['acme_bob']}
    assert listed(client, origin=['app', 'task']) == {m['acme_ann'], m['acme_bob'], m['acme_task']}
    assert listed(client, **{'origin[]': ['workflow', 'playground']}) == {m['globex'], m['playground']}
    assert listed(client, origin='app', **{'origin[]': 'task'}) == {
        m['acme_ann'],
        m['acme_bob'],
        m['acme_task'],
    }
    assert listed(client, tenant='org:acme') == {m['acme_ann'], m['acme_bob'], m['acme_task']}
    assert listed(client, tenant='org:globex') == {m['globex']}
    assert listed(client, tenant='org:initech') == set()
    assert listed(client, actor='user:ann') == {m['acme_ann'], m['globex']}
    assert listed(client, actor='service:nightly') == {m['acme_task']}
    assert listed(client, subject='ticket:T-1') == {m['acme_bob']}
    # Split at the first colon: the id keeps its own colons.
    assert listed(client, subject='url:https://x.test/a:b') == {m['globex']}
    assert listed(client, subject='url:https') == set()


def test_a_type_alone_matches_every_id_of_it(client: TestClient, made: dict[str, str]) -> None:
    m = made
    assert (
        listed(client, tenant='org') == listed(client, tenant='org:') == set(m.values()) - {m['playground']}
    )
    assert listed(client, actor='user') == {m['acme_ann'], m['acme_bob'], m['globex']}
    assert listed(client, actor='service:') == {m['acme_task']}
    assert listed(client, subject='ticket') == {m['acme_bob']}
    assert listed(client, tenant='user') == set()  # a type is matched as a type, not as an id


def test_scope_filters_combine_with_each_other_and_every_other_filter(
    client: TestClient, made: dict[str, str]
) -> None:
    m = made
    acme = {'tenant': 'org:acme'}
    assert listed(client, **acme, actor='user') == {m['acme_ann'], m['acme_bob']}
    assert listed(client, **acme, actor='user:ann', origin='app') == {m['acme_ann']}
    assert listed(client, actor='user:ann', subject='url') == {m['globex']}
    assert listed(client, **acme, search='invoice') == {m['acme_ann'], m['acme_task']}
    assert listed(client, **acme, search='refund') == {m['acme_bob']}
    assert listed(client, actor='user:ann', search='invoice', origin='workflow') == {m['globex']}
    assert listed(client, **acme, agents='app.billing') == {m['acme_task']}
    assert listed(client, **{'agents[]': ['app.billing']}, tenant='org') == {m['acme_task'], m['globex']}
    assert listed(client, **acme, status='error') == {m['acme_bob']}
    assert listed(client, **acme, status='success', origin='app') == {m['acme_ann']}
    week_ago = (datetime.now(UTC) - timedelta(days=7)).date().isoformat()
    assert listed(client, **acme, **{'from': week_ago}) == {m['acme_ann'], m['acme_bob']}
    assert listed(client, **acme, **{'to': week_ago}) == {m['acme_task']}
    assert listed(client, origin='task', **{'from': week_ago}) == set()
    everything = {'tenant': 'org:acme', 'actor': 'user', 'origin': 'app', 'status': 'success'}
    assert listed(client, **everything, search='invoice', agents='app.support', **{'from': week_ago}) == {
        m['acme_ann']
    }


def test_scope_filters_with_tools_sort_and_pages(client: TestClient, store: Store) -> None:
    acme = Scope(tenant=('org', 'acme'))
    mine = [seed(store, origin='app', scope=acme, tools=('lookup',)) for _ in range(27)]
    seed(store, origin='app', scope=Scope(tenant=('org', 'other')), tools=('lookup',))
    seed(store, origin='app', scope=acme)  # no tool call
    params = {'tenant': 'org:acme', 'tools': 'lookup', 'origin': 'app'}
    first = client.get(LIST, params={**params, 'sort': 'oldest'}).json()
    second = client.get(LIST, params={**params, 'sort': 'oldest', 'page': 2}).json()
    assert (first['total'], first['total_exact'], first['pages']) == (27, True, 2)
    shown = [r['id'] for r in first['conversations'] + second['conversations']]
    assert shown == mine  # oldest first, across both pages
    assert all(
        r['tenant'] == {'type': 'org', 'id': 'acme'} and r['origin'] == 'app' for r in first['conversations']
    )
    assert client.get(LIST, params={**params, 'agents': ['app.support', 'app.billing']}).json()['total'] == 27


def test_rows_say_where_they_came_from(client: TestClient, made: dict[str, str]) -> None:
    rows = {r['id']: r for r in client.get(LIST).json()['conversations']}
    bob = rows[made['acme_bob']]
    assert (bob['origin'], bob['forked_from_id']) == ('app', None)
    assert bob['tenant'] == {'type': 'org', 'id': 'acme'}
    assert bob['actor'] == {'type': 'user', 'id': 'bob'} and bob['subject'] == {'type': 'ticket', 'id': 'T-1'}
    assert rows[made['playground']]['tenant'] is None and rows[made['acme_ann']]['subject'] is None
    shown = client.get(f'/api/conversations/{made["globex"]}').json()['conversation']
    assert shown['subject'] == {'type': 'url', 'id': 'https://x.test/a:b'}


def first_user(store: Store, conversation_id: str) -> str:
    return next(m.id for m in ConversationRepository(store).messages(conversation_id) if m.role == 'user')


def test_forked_from_lists_the_forks_of_one_conversation(client: TestClient, store: Store) -> None:
    source = seed(store, title='Source')
    user = first_user(store, source)
    forks = [ConversationRepository(store).fork(source, user).id for _ in range(2)]
    unrelated = seed(store, title='Unrelated')
    ConversationRepository(store).fork(unrelated, first_user(store, unrelated))
    assert listed(client, forked_from=source) == set(forks)
    assert listed(client, forked_from=source, search='Source') == set(forks)
    assert listed(client, forked_from=forks[0]) == set()
    rows = {r['id']: r for r in client.get(LIST).json()['conversations']}
    assert rows[forks[0]]['forked_from_id'] == source and rows[source]['forked_from_id'] is None


@pytest.mark.parametrize(
    ('params', 'location', 'said'),
    [
        (
            {'origin': 'elsewhere'},
            'query.origin.0',
            "'playground', 'app', 'task', 'workflow', 'eval' or 'mcp'",
        ),
        ({'origin[]': 'App'}, 'query.origin[].0', "'playground', 'app', 'task', 'workflow', 'eval' or 'mcp'"),
        ({'tenant': ''}, 'query.tenant', 'the type (before the first colon) is empty'),
        ({'actor': ':42'}, 'query.actor', 'the type (before the first colon) is empty'),
        ({'subject': ':'}, 'query.subject', 'the type (before the first colon) is empty'),
        ({'tenant': 't' * 256}, 'query.tenant', 'at most 255 characters'),
        ({'actor': 'user:' + 'i' * 256}, 'query.actor', 'at most 255 characters'),
        ({'forked_from': 'not-an-id'}, 'query.forked_from', 'not a conversation id'),
    ],
)
def test_what_is_refused(client: TestClient, params: dict[str, str], location: str, said: str) -> None:
    response = client.get(LIST, params=params)
    assert response.status_code == 422, response.text
    error = response.json()['error']
    assert error['fields'][0]['location'] == location
    assert said in error['fields'][0]['message'] or said in error['message']


def test_the_longest_parts_are_accepted_and_a_nul_is_refused(client: TestClient, store: Store) -> None:
    kind, ident = 't' * 255, 'i' * 255
    wanted = seed(store, scope=Scope(actor=(kind, ident)))
    assert listed(client, actor=f'{kind}:{ident}') == {wanted}
    assert client.get(LIST, params={'tenant': 'org:a\x00b'}).status_code in (400, 422)


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


def test_the_query_count_stays_constant(client: TestClient, store: Store) -> None:
    acme = Scope(tenant=('org', 'acme'), actor=('user', 'ann'))
    params = {'tenant': 'org:acme', 'actor': 'user', 'origin': ['app', 'task'], 'status': 'success'}
    seed(store, origin='app', scope=acme)
    with count_queries(store) as few:
        client.get(LIST, params=params)
    with count_queries(store) as few_searched:
        client.get(LIST, params={**params, 'search': 'answer'})
    for _ in range(30):
        seed(store, origin='app', scope=acme)
    with count_queries(store) as many:
        client.get(LIST, params=params)
    with count_queries(store) as many_searched:
        client.get(LIST, params={**params, 'search': 'answer'})
    assert len(few) == len(many) <= 3  # BEGIN (SQLite), the total, the page
    assert len(few_searched) == len(many_searched) <= 4
