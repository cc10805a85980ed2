"""The replay from the store's typed rows to the API's JSON: the store hands over whole values and no
URLs, the response models add the API's form (previews, URLs, timestamps), and rows written by hand
that break the stored shapes still give an answer that keeps to the schema."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi.testclient import TestClient

from synapse_agents.conversations.rows import AssistantEntry, AttachmentRef, ToolSegment, UserEntry
from synapse_agents.conversations.tables import Conversation, Message, ToolInvocation
from synapse_agents.conversations.thread import conversation_thread
from synapse_agents.store import Store
from synapse_agents.store.ids import new_id

MOMENT = datetime(2026, 11, 30, 6, 11, 50, 884_321, tzinfo=UTC)
BIG = {'blob': 'x' * 5000}


def write_thread(store: Store, *, parts: Any, attachments: Any, meta: Any = None) -> dict[str, str]:
    """A conversation with a user message, an answer holding three tool calls, a notice and an error."""
    ids = {name: new_id() for name in ('conversation', 'user', 'answer', 'native', 'big', 'unplaced')}
    at = [MOMENT + timedelta(milliseconds=n) for n in range(5)]
    conversation = ids['conversation']
    totals = {'message_count': 4, 'tool_count': 3, 'input_tokens': 5, 'output_tokens': 7, 'cost': 0.25}
    messages: list[dict[str, Any]] = [
        {'id': ids['user'], 'role': 'user', 'attachments': attachments},
        {
            'id': ids['answer'],
            'role': 'assistant',
            'status': 'interrupted',
            'parts': parts,
            'usage': {'input_tokens': 5},
            'meta': {'model': 'm'} if meta is None else meta,
        },
        {'id': new_id(), 'role': 'notice', 'meta': {'kind': 'k'}},
        {'id': new_id(), 'role': 'error', 'details': {'class': 'E', 'traceback': 'tb', 'recoverable': False}},
    ]
    tools = [
        ('native', 'n1', 'native', {'q': 'x'}, 'success'),
        ('big', 'b1', 'function', BIG, 'error'),
        ('unplaced', 'u1', 'output', {'a': 1}, 'success'),
    ]
    with store.write() as session:
        session.add(
            Conversation(
                id=conversation, agent_key='app.x', agent_name='x', title='t', has_error=True,
                created_at=MOMENT, updated_at=MOMENT, **totals,
            )
        )  # fmt: skip
        for n, message in enumerate(messages):
            session.add(
                Message(conversation_id=conversation, content=message['role'][0], created_at=at[n], **message)
            )
        for n, (key, call, kind, arguments, status) in enumerate(tools):
            session.add(
                ToolInvocation(
                    id=ids[key], conversation_id=conversation, message_id=ids['answer'], tool_call_id=call,
                    kind=kind, name=key, arguments=arguments, result=[1, 2], status=status,
                    provider_status='completed' if kind == 'native' else None,
                    error='boom' if status == 'error' else None, duration_ms=3,
                    started_at=at[n], finished_at=at[4],
                )
            )  # fmt: skip
    return ids


STORED_PARTS = [
    {'type': 'reasoning', 'text': 'r'},
    {'type': 'native-tool', 'tool_call_id': 'n1'},
    {'type': 'tool', 'tool_call_id': 'b1'},
    {'type': 'text', 'text': 't'},
    {'type': 'structured-output', 'output': {'a': [1, 2]}},
]
FILE = {'index': 0, 'name': 'notes.txt', 'media_type': 'text/plain', 'size': 3, 'path': 'notes.txt'}


def test_the_store_hands_over_typed_rows_with_whole_values_and_no_urls(store: Store) -> None:
    """A replay's rows: datetimes, attachment references without a URL, tool values uncut."""
    ids = write_thread(store, parts=STORED_PARTS, attachments=[FILE])
    thread = conversation_thread(store, ids['conversation'])
    assert thread is not None
    assert thread.conversation.has_error is True and thread.conversation.created_at == MOMENT
    user, answer = thread.messages[0], thread.messages[1]
    assert isinstance(user, UserEntry) and isinstance(answer, AssistantEntry)
    assert user.attachments == (AttachmentRef(index=0, name='notes.txt', media_type='text/plain', size=3),)
    assert not hasattr(user.attachments[0], 'url')
    tools = [part.tool for part in answer.parts if isinstance(part, ToolSegment)]
    assert [tool.id for tool in tools] == [ids['native'], ids['big'], ids['unplaced']]
    assert tools[1].arguments == BIG  # the preview is the API's business, not the store's


def test_the_replay_json_keeps_its_form(client: TestClient, store: Store) -> None:
    """Key order and presence, previews, URLs and timestamps, exactly as the dashboard reads them."""
    ids = write_thread(store, parts=STORED_PARTS, attachments=[FILE])
    body = client.get(f'/api/conversations/{ids["conversation"]}').content
    thread = json.loads(body)
    assert thread['conversation']['created_at'] == '2026-11-30T06:11:50.884Z'
    assert list(thread['conversation'])[-5:] == [
        'stateless',
        'agent_available',
        'forked_from',
        'forks',
        'deps_values',
    ]
    assert thread['conversation']['forked_from'] is None and thread['conversation']['forks'] == []
    assert thread['conversation']['deps_values'] is None
    assert [thread['conversation'][axis] for axis in ('tenant', 'actor', 'subject')] == [None, None, None]
    user, answer, notice, error = thread['messages']
    assert user == {
        'id': ids['user'], 'role': 'user', 'status': 'complete', 'content': 'u',
        'created_at': '2026-11-30T06:11:50.884Z', 'copied_from_id': None,
        'attachments': [
            {'index': 0, 'name': 'notes.txt', 'media_type': 'text/plain', 'size': 3,
             'url': f'/api/attachments/{ids["user"]}/0'}
        ],
    }  # fmt: skip
    assert list(user) == ['id', 'role', 'status', 'content', 'created_at', 'copied_from_id', 'attachments']
    assert [p['type'] for p in answer['parts']] == [
        'reasoning',
        'native-tool',
        'tool',
        'text',
        'structured-output',
        'tool',
    ]
    native, big, unplaced = (p['tool'] for p in answer['parts'] if 'tool' in p)
    assert list(native) == [
        'id',
        'tool_call_id',
        'kind',
        'name',
        'arguments',
        'result',
        'status',
        'duration_ms',
        'provider_status',
    ]
    assert list(big) == [
        'id',
        'tool_call_id',
        'kind',
        'name',
        'arguments',
        'result',
        'status',
        'duration_ms',
        'error',
        'truncated',
    ]
    assert big['truncated'] is True and big['arguments'].endswith('…') and len(big['arguments']) == 1025
    assert list(unplaced) == [
        'id',
        'tool_call_id',
        'kind',
        'name',
        'arguments',
        'result',
        'status',
        'duration_ms',
    ]
    assert list(answer)[5:] == [
        'copied_from_id',
        'parts',
        'usage',
        'input_tokens',
        'output_tokens',
        'cost',
        'duration_ms',
        'meta',
    ]
    assert answer['input_tokens'] is None and answer['meta'] == {'model': 'm'}
    assert notice['meta'] == {'kind': 'k'} and list(notice)[-1] == 'meta'
    assert error['details'] == {'class': 'E', 'traceback': 'tb', 'recoverable': False}
    assert thread['totals'] == {
        'input_tokens': 5,
        'output_tokens': 7,
        'cost': 0.25,
        'duration_ms': 0,
        'tool_calls': 3,
    }
    full = client.get(f'/api/tool-invocations/{ids["big"]}').json()
    assert full['arguments'] == BIG and full['truncated'] is False
    assert full['started_at'].endswith('Z') and full['finished_at'] == '2026-11-30T06:11:50.888Z'


def test_a_replay_of_rows_that_break_the_stored_shapes_keeps_to_the_schema(
    client: TestClient, store: Store
) -> None:
    """Parts that are not objects or name no known type, attachment fields of the wrong type and a
    `meta` that is not an object are left out or read as null: the answer is a 200 in the schema."""
    parts = ['junk', 7, {'type': 'mystery'}, {'type': 'text', 'text': 5}, {'type': 'text', 'text': 'ok'}]
    attachments = [{'index': 0, 'name': 5, 'media_type': ['x'], 'size': '3'}, 'junk', {'index': '1'}]
    ids = write_thread(store, parts=parts, attachments=attachments, meta=['not', 'an', 'object'])
    response = client.get(f'/api/conversations/{ids["conversation"]}')
    assert response.status_code == 200, response.text
    user, answer = response.json()['messages'][:2]
    assert user['attachments'] == [
        {
            'index': 0,
            'name': None,
            'media_type': None,
            'size': None,
            'url': f'/api/attachments/{ids["user"]}/0',
        }
    ]
    assert [p['type'] for p in answer['parts']] == ['text', 'native-tool', 'tool', 'tool']
    assert answer['parts'][0] == {'type': 'text', 'text': 'ok'}
    assert answer['meta'] is None
