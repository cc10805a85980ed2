"""`POST /api/conversations/{id}/fork` on every selected database: the copy a fork holds, what its
thread and the source's say of each other, a turn in the fork, deletes, and every refusal."""

from __future__ import annotations

import os
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from chat_helpers import DEMO, agent_catalog, decode
from store_faults import small_filesystem
from synapse_agents.conversations.tables import Message
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.store import Store
from synapse_agents.store.ids import new_id

NOTES = ('attachments', ('notes.txt', b'abc', 'text/plain'))


@pytest.fixture
def chat(client: TestClient, context: SynapseContext) -> TestClient:
    """The app serving the test agents (`chat_agents`) and the demo agents."""
    context.catalog = agent_catalog()
    return client


def send(chat: TestClient, slug: str, message: str, conversation_id: str | None = None, **kwargs: Any) -> str:
    """One turn through the chat route; its conversation id."""
    data = {'message': message, **({'conversation_id': conversation_id} if conversation_id else {})}
    response = chat.post(f'/api/agents/{slug}/chat', data=data, **kwargs)
    assert response.status_code == 200, response.text
    return str(decode(response.text)[0]['messageMetadata']['conversation_id'])


def thread(chat: TestClient, conversation_id: str) -> dict[str, Any]:
    response = chat.get(f'/api/conversations/{conversation_id}')
    assert response.status_code == 200, response.text
    return dict(response.json())


def user_ids(shown: dict[str, Any]) -> list[str]:
    return [m['id'] for m in shown['messages'] if m['role'] == 'user']


def fork(chat: TestClient, conversation_id: str, message_id: str, **body: Any) -> Any:
    return chat.post(f'/api/conversations/{conversation_id}/fork', json={'message_id': message_id, **body})


def without_ids(message: dict[str, Any]) -> dict[str, Any]:
    """A thread message with what differs between a row and its copy left out (ids, file URLs)."""
    shown = {k: v for k, v in message.items() if k not in ('id', 'copied_from_id')}
    if 'attachments' in shown:
        shown['attachments'] = [{k: v for k, v in a.items() if k != 'url'} for a in shown['attachments']]
    if 'parts' in shown:
        shown['parts'] = [
            {**p, 'tool': {k: v for k, v in p['tool'].items() if k != 'id'}} if 'tool' in p else p
            for p in shown['parts']
        ]
    return shown


def test_a_fork_holds_the_turns_before_the_message_and_the_source_is_unchanged(chat: TestClient) -> None:
    source = send(chat, 'chat_agents.echo', 'first', files=[NOTES])
    send(chat, 'chat_agents.echo', 'second', source)
    send(chat, 'chat_agents.echo', 'third', source)
    before = thread(chat, source)
    at = user_ids(before)[2]
    response = fork(chat, source, at)
    assert response.status_code == 201, response.text
    row = response.json()
    assert before['conversation']['title'] == 'first'
    assert row['forked_from_id'] == source and row['title'] == 'fork of first'
    assert (row['agent_key'], row['origin'], row['message_count']) == ('chat_agents.echo', 'playground', 4)
    assert (row['input_tokens'], row['output_tokens'], row['cost']) == (0, 0, None)  # no ledger copied
    assert [row[axis] for axis in ('tenant', 'actor', 'subject')] == [None, None, None]
    shown = thread(chat, row['id'])
    assert shown['conversation']['forked_from'] == {'id': source, 'title': 'first', 'message_id': at}
    assert shown['conversation']['forks'] == []
    copied = before['messages'][:4]
    assert [m['copied_from_id'] for m in shown['messages']] == [m['id'] for m in copied]
    assert [without_ids(m) for m in shown['messages']] == [without_ids(m) for m in copied]
    assert all(m['copied_from_id'] is None for m in before['messages'])
    # The copied file is the fork's own, served from the fork's message.
    (original,), (copy,) = copied[0]['attachments'], shown['messages'][0]['attachments']
    assert copy['url'] != original['url'] and copy['url'].startswith(
        f'/api/attachments/{shown["messages"][0]["id"]}/'
    )
    assert chat.get(copy['url']).content == chat.get(original['url']).content == b'abc'
    # The source: the same thread, now listing its fork.
    after = thread(chat, source)
    assert after['messages'] == before['messages']
    forks = after['conversation'].pop('forks')
    before['conversation'].pop('forks')
    assert after['conversation'] == before['conversation']
    assert forks == [
        {
            'id': row['id'],
            'title': 'fork of first',
            'created_at': row['created_at'],
            'forked_at_message_id': at,
        }
    ]


def test_a_fork_is_titled_fork_of_its_source_without_stacking(chat: TestClient) -> None:
    source = send(chat, 'chat_agents.echo', '  Where   is my order? ')
    send(chat, 'chat_agents.echo', 'and the refund?', source)
    at = user_ids(thread(chat, source))[1]
    first = fork(chat, source, at).json()
    assert first['title'] == 'fork of Where is my order?'
    # A second fork of the same source, and a fork of the fork: `fork of` once, not twice.
    assert fork(chat, source, at).json()['title'] == 'fork of Where is my order?'
    send(chat, 'chat_agents.echo', 'and the refund, again?', first['id'])
    again = user_ids(thread(chat, first['id']))[-1]
    assert fork(chat, first['id'], again).json()['title'] == 'fork of Where is my order?'
    # A fork renamed by its user is the source of `fork of <its new name>`.
    renamed = chat.patch(f'/api/conversations/{first["id"]}', json={'title': 'Refund path'})
    assert renamed.status_code == 200, renamed.text
    assert fork(chat, first['id'], again).json()['title'] == 'fork of Refund path'
    # A title the user gives is taken as it is.
    assert fork(chat, first['id'], again, title='fork of fork').json()['title'] == 'fork of fork'
    # A source whose title fills the column: the fork's is cut at a word, with an ellipsis.
    long = ' '.join(['refund'] * 28)  # 195 characters
    assert chat.patch(f'/api/conversations/{source}', json={'title': long}).status_code == 200
    cut = fork(chat, source, at).json()['title']
    assert len(cut) <= 200 and cut.endswith('…'), cut
    words = cut[: -len('…')].split(' ')
    assert words[:2] == ['fork', 'of'] and set(words[2:]) == {'refund'}, cut  # whole words only


def test_a_turn_in_the_fork_sees_the_copied_history_with_its_files(chat: TestClient) -> None:
    source = send(chat, 'chat_agents.echo', 'first', files=[NOTES])
    send(chat, 'chat_agents.echo', 'second', source)
    send(chat, 'chat_agents.echo', 'third', source)
    before = thread(chat, source)
    forked = fork(chat, source, user_ids(before)[2], title='  Try   again ').json()
    assert forked['title'] == 'Try again'
    send(chat, 'chat_agents.echo', 'third, again', forked['id'])
    shown = thread(chat, forked['id'])
    # The echo model answers with the prompts and file sizes it was given: the same as the source's
    # third turn got, the copied file's bytes included.
    assert before['messages'][-1]['content'] == 'prompts=3 files=[3]'
    assert shown['messages'][-1]['content'] == 'prompts=3 files=[3]'
    assert shown['messages'][-1]['copied_from_id'] is None
    listed = {r['id']: r for r in chat.get('/api/conversations').json()['conversations']}
    assert listed[forked['id']]['message_count'] == 6 and listed[forked['id']]['output_tokens'] > 0
    assert listed[source]['output_tokens'] == before['conversation']['output_tokens']  # counted once


def test_tool_calls_are_copied_with_their_answers(chat: TestClient) -> None:
    source = send(chat, 'chat_agents.shop', 'Where is A-1?')
    send(chat, 'chat_agents.shop', 'And now?', source)
    before = thread(chat, source)
    forked = fork(chat, source, user_ids(before)[1]).json()
    assert forked['tool_count'] == before['conversation']['tool_count'] == 1
    shown = thread(chat, forked['id'])
    (original,) = [p['tool'] for p in before['messages'][1]['parts'] if 'tool' in p]
    (copy,) = [p['tool'] for p in shown['messages'][1]['parts'] if 'tool' in p]
    assert copy['id'] != original['id']
    full = chat.get(f'/api/tool-invocations/{copy["id"]}').json()
    source_full = chat.get(f'/api/tool-invocations/{original["id"]}').json()
    assert {k: v for k, v in full.items() if k != 'id'} == {k: v for k, v in source_full.items() if k != 'id'}


def test_a_fork_at_the_first_message_and_a_fork_of_a_fork(chat: TestClient) -> None:
    source = send(chat, DEMO + 'fallback-agent', 'Hello')
    send(chat, DEMO + 'fallback-agent', 'Again', source)
    before = thread(chat, source)
    assert [m['role'] for m in before['messages']] == ['user', 'assistant', 'notice'] * 2
    empty = fork(chat, source, user_ids(before)[0]).json()
    assert empty['message_count'] == 0 and thread(chat, empty['id'])['messages'] == []
    first = fork(chat, source, user_ids(before)[1]).json()
    first_thread = thread(chat, first['id'])
    assert [m['role'] for m in first_thread['messages']] == ['user', 'assistant', 'notice']
    second = fork(chat, first['id'], first_thread['messages'][0]['id'])
    assert second.status_code == 201
    assert thread(chat, second.json()['id'])['conversation']['forked_from']['id'] == first['id']
    assert [f['id'] for f in thread(chat, first['id'])['conversation']['forks']] == [second.json()['id']]
    assert [f['id'] for f in thread(chat, source)['conversation']['forks']] == [empty['id'], first['id']]
    listed = chat.get('/api/conversations', params={'forked_from': source}).json()['conversations']
    assert {r['id'] for r in listed} == {empty['id'], first['id']}


def test_deleting_the_source_or_a_fork_leaves_the_other(chat: TestClient) -> None:
    source = send(chat, 'chat_agents.echo', 'first', files=[NOTES])
    send(chat, 'chat_agents.echo', 'second', source)
    at = user_ids(thread(chat, source))[1]
    doomed = fork(chat, source, at).json()
    kept = fork(chat, source, at).json()
    assert chat.delete(f'/api/conversations/{doomed["id"]}').status_code == 200
    assert [f['id'] for f in thread(chat, source)['conversation']['forks']] == [kept['id']]
    assert len(thread(chat, source)['messages']) == 4
    assert chat.delete(f'/api/conversations/{source}').status_code == 200
    shown = thread(chat, kept['id'])
    assert shown['conversation']['forked_from'] == {'id': source, 'title': None, 'message_id': at}
    assert shown['conversation']['forked_from_id'] == source
    assert chat.get(shown['messages'][0]['attachments'][0]['url']).content == b'abc'
    send(chat, 'chat_agents.echo', 'second, again', kept['id'])
    assert thread(chat, kept['id'])['messages'][-1]['content'] == 'prompts=2 files=[3]'


def test_refusals(chat: TestClient, store: Store) -> None:
    source = send(chat, 'chat_agents.echo', 'first')
    send(chat, 'chat_agents.echo', 'second', source)
    other = send(chat, 'chat_agents.echo', 'elsewhere')
    messages = thread(chat, source)['messages']
    user, answer = messages[2]['id'], messages[1]['id']

    def refused(status: int, conversation_id: str, body: Any) -> dict[str, Any]:
        response = chat.post(f'/api/conversations/{conversation_id}/fork', json=body)
        assert response.status_code == status, response.text
        return dict(response.json()['error'])

    assert 'No conversation' in refused(404, new_id(), {'message_id': user})['message']
    assert 'No conversation' in refused(404, 'not-an-id', {'message_id': user})['message']
    error = refused(422, source, {'message_id': 'nope'})
    assert error['fields'] == [{'location': 'body.message_id', 'message': 'not a message id'}]
    assert refused(422, source, {})['fields'][0]['location'] == 'body.message_id'
    assert refused(422, source, {'message_id': user, 'extra': 1})['fields'][0]['location'] == 'body.extra'
    for title in ('', '   ', 'x' * 201, 'a\x00b'):
        assert (
            refused(422, source, {'message_id': user, 'title': title})['fields'][0]['location']
            == 'body.title'
        )
    assert 'user message' in refused(404, source, {'message_id': answer})['message']
    assert 'user message' in refused(404, source, {'message_id': user_ids(thread(chat, other))[0]})['message']
    assert 'user message' in refused(404, source, {'message_id': new_id()})['message']
    # A turn before the message still in flight.
    with store.write() as session:
        session.execute(update(Message).where(Message.id == answer).values(status='streaming'))
    error = refused(409, source, {'message_id': user})
    assert error['code'] == 'conflict' and 'still running' in error['message']
    assert len(chat.get('/api/conversations').json()['conversations']) == 2  # nothing was made


def test_a_disk_that_refuses_the_copies_stores_nothing(chat: TestClient, store: Store) -> None:
    """A full disk is a 507, a folder that cannot be written a 503; either way no row is stored
    and no folder is left."""
    with small_filesystem(store.attachments_dir, free=64 * 1024) as disk:
        source = send(chat, 'chat_agents.echo', 'first', files=[NOTES])
        send(chat, 'chat_agents.echo', 'second', source)
        at = user_ids(thread(chat, source))[1]
        if disk.full:  # what is left of the tmpfs goes too
            stats = os.statvfs(disk.path)
            (disk.path / 'more').write_bytes(b'\0' * (stats.f_bavail * stats.f_frsize))
        else:
            disk.path.chmod(0o555)
        folders = sorted(p.name for p in disk.path.iterdir())
        assert chat.get('/api/traces').status_code == 200  # waits for the turns' trace rows
        counted = store.counts()
        response = fork(chat, source, at)
        assert response.status_code == (507 if disk.full else 503), response.text
        assert response.json()['error']['code'] == ('store_full' if disk.full else 'store_unavailable')
        assert 'could not be copied' in response.json()['error']['message']
        assert store.counts() == counted
        assert sorted(p.name for p in disk.path.iterdir()) == folders


def test_a_forks_totals_are_its_own_turns(chat: TestClient) -> None:
    source = send(chat, DEMO + 'fallback-agent', 'Hello')
    send(chat, DEMO + 'fallback-agent', 'Again', source)
    before = thread(chat, source)
    made = fork(chat, source, user_ids(before)[1]).json()
    copied = thread(chat, made['id'])
    # Nothing of its own yet: no tokens, no cost, no time spent; the copied answer keeps its own figures.
    assert {k: copied['totals'][k] for k in ('input_tokens', 'output_tokens', 'duration_ms')} == {
        'input_tokens': 0,
        'output_tokens': 0,
        'duration_ms': 0,
    }
    answer = next(m for m in copied['messages'] if m['role'] == 'assistant')
    assert answer['duration_ms'] is not None and answer['input_tokens'] > 0
    send(chat, DEMO + 'fallback-agent', 'Once more', made['id'])
    after = thread(chat, made['id'])
    own = [m for m in after['messages'] if m['role'] == 'assistant' and m['copied_from_id'] is None]
    assert after['totals']['duration_ms'] == sum(m['duration_ms'] for m in own)
    assert after['totals']['input_tokens'] == sum(m['input_tokens'] for m in own)
