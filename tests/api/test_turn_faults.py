"""Faults inside a turn, end to end through the API on every selected database.

A tool that raises and a model that fails halfway through its answer: the stream shows the failure
and closes properly, and the thread stored behind it says exactly what happened. The agents are
`chat_agents.boom` and `chat_agents.breaks-midway` (tests/chat_agents.py), found by discovery.
Killed servers, dropped database connections and concurrent chats are in tests/e2e/test_server_faults.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from chat_helpers import agent_catalog, decode, types
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext


@pytest.fixture
def chat(client: TestClient, context: SynapseContext) -> TestClient:
    context.catalog = agent_catalog()
    return client


def turn(chat: TestClient, slug: str, message: str = 'go') -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The chunks of one turn and the stored thread after it."""
    response = chat.post(f'/api/agents/{slug}/chat', data={'message': message})
    assert response.status_code == 200
    chunks = decode(response.text)
    conversation_id = chunks[0]['messageMetadata']['conversation_id']
    thread = chat.get(f'/api/conversations/{conversation_id}')
    assert thread.status_code == 200
    return chunks, thread.json()


def assert_closes_with_an_error(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """`data-error`, then `error`, then `finish` (reason `error`), then `[DONE]`, once each."""
    kinds = types(chunks)
    for kind in ('data-error', 'error', 'finish', '[DONE]'):
        assert kinds.count(kind) == 1, kinds
    assert kinds.index('data-error') < kinds.index('error') < kinds.index('finish')
    assert kinds[-2:] == ['finish', '[DONE]'] and chunks[-2]['finishReason'] == 'error'
    card: dict[str, Any] = chunks[kinds.index('data-error')]['data']
    assert chunks[kinds.index('error')]['errorText'] == f'{card["class"]}: {card["message"]}'
    return card


def test_a_tool_that_raises(chat: TestClient) -> None:
    chunks, thread = turn(chat, 'chat_agents.boom')
    kinds = types(chunks)
    assert kinds.index('tool-input-available') < kinds.index('tool-output-error') < kinds.index('data-error')
    failed = chunks[kinds.index('tool-output-error')]
    assert failed['errorText'] == 'RuntimeError: inventory down'
    card = assert_closes_with_an_error(chunks)
    assert (card['class'], card['message'], card['recoverable']) == ('RuntimeError', 'inventory down', False)
    assert 'in explode' in card['traceback']  # the tool's own frame

    user, assistant, error = thread['messages']
    assert (user['role'], user['content']) == ('user', 'go')
    assert (assistant['role'], assistant['status']) == ('assistant', 'failed')
    (part,) = assistant['parts']
    tool = part['tool']
    assert (tool['name'], tool['status'], tool['error']) == (
        'explode',
        'error',
        'RuntimeError: inventory down',
    )
    assert error['role'] == 'error' and error['content'] == 'inventory down'
    assert error['details']['class'] == 'RuntimeError' and 'in explode' in error['details']['traceback']
    row = thread['conversation']
    assert (row['status'], row['message_count'], row['tool_count']) == ('error', 3, 1)
    full = chat.get(f'/api/tool-invocations/{tool["id"]}').json()
    assert full['status'] == 'error' and full['finished_at'] is not None
    listed = chat.get('/api/conversations', params={'status': 'error'}).json()['conversations']
    assert [c['id'] for c in listed] == [row['id']]


def test_a_model_that_fails_halfway_through_its_answer(chat: TestClient) -> None:
    chunks, thread = turn(chat, 'chat_agents.breaks-midway')
    kinds = types(chunks)
    text = ''.join(c['delta'] for c in chunks if c['type'] == 'text-delta')
    assert text == 'The first half of an answer '
    assert kinds.index('text-end') < kinds.index('data-error')  # the open text part is closed first
    card = assert_closes_with_an_error(chunks)
    assert card['class'] == 'ModelHTTPError' and '503' in card['message'] and card['recoverable'] is True
    final = chunks[-2]['messageMetadata']
    assert final['usage']['requests'] == 1 and final['duration_ms'] is not None

    user, assistant, error = thread['messages']
    assert user['content'] == 'go'
    assert (assistant['status'], assistant['content']) == ('failed', text)  # the partial answer
    assert assistant['parts'] == [{'type': 'text', 'text': text}]
    assert error['role'] == 'error' and error['details']['recoverable'] is True
    row = thread['conversation']
    assert row['status'] == 'error' and row['message_count'] == 3
    assert row['output_tokens'] == final['usage']['output_tokens'] > 0


def test_a_failed_turn_is_not_replayed(chat: TestClient) -> None:
    """After a failed turn the conversation goes on from the turns that completed."""
    url = '/api/agents/chat_agents.echo/chat'
    first = decode(chat.post(url, data={'message': 'one'}).text)
    conversation_id = first[0]['messageMetadata']['conversation_id']
    # On the demo model, "rate limit" is a provider's 429: an error card.
    failed = decode(
        chat.post(
            url, data={'message': 'rate limit', 'conversation_id': conversation_id, 'model': 'demo'}
        ).text
    )
    assert assert_closes_with_an_error(failed)['class'] == 'ModelRateLimitError'
    third = decode(chat.post(url, data={'message': 'three', 'conversation_id': conversation_id}).text)
    assert 'error' not in types(third)
    assert ''.join(c.get('delta', '') for c in third) == 'prompts=2 files=[]'  # 'one' and 'three'
    roles = [m['role'] for m in chat.get(f'/api/conversations/{conversation_id}').json()['messages']]
    assert roles == ['user', 'assistant', 'user', 'error', 'user', 'assistant']


def test_an_error_card_keeps_the_id_the_stream_announced(chat: TestClient) -> None:
    """A turn that fails before any answer: its error row is the message the stream started."""
    chunks, thread = turn(chat, 'chat_agents.failing')
    assert_closes_with_an_error(chunks)
    announced = chunks[types(chunks).index('start')]['messageId']
    user, error = thread['messages']
    assert (user['role'], error['role']) == ('user', 'error')
    assert error['id'] == announced
