"""`POST /api/agents/{slug}/chat`, `GET /api/agents/{slug}/models` and attachments, in-process."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from chat_helpers import DEMO, agent_catalog, decode, types
from synapse_agents.discovery import Catalog
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext


@pytest.fixture
def chat(client: TestClient, context: SynapseContext) -> TestClient:
    """The app serving the test agents (`chat_agents`) and the demo agents, found by discovery."""
    context.catalog = agent_catalog()
    return client


def send(client: TestClient, slug: str, message: str = 'hi', **data: Any) -> Any:
    files = data.pop('files', None)
    return client.post(f'/api/agents/{slug}/chat', data={'message': message, **data}, files=files)


def test_a_turn_streams_the_ui_message_protocol(chat: TestClient) -> None:
    response = send(chat, 'chat_agents.greeter')
    assert response.status_code == 200
    assert response.headers['content-type'].startswith('text/event-stream')
    assert response.headers['x-vercel-ai-ui-message-stream'] == 'v1'
    assert response.headers['x-accel-buffering'] == 'no'
    chunks = decode(response.text)
    assert types(chunks) == [
        'start',
        'start-step',
        'text-start',
        'text-delta',
        'text-delta',
        'text-delta',
        'text-end',
        'message-metadata',
        'finish-step',
        'finish',
        '[DONE]',
    ]
    metadata = chunks[-2]['messageMetadata']
    assert metadata['model'] == 'scripted' and metadata['duration_ms'] >= 0
    thread = chat.get(f'/api/conversations/{metadata["conversation_id"]}').json()
    assert [m['role'] for m in thread['messages']] == ['user', 'assistant']
    assert thread['messages'][1]['content'] == 'Hello there friend '


def test_title_is_the_first_message_cut_at_a_word_within_100_characters(chat: TestClient) -> None:
    message = 'word ' * 40
    chunks = decode(send(chat, 'chat_agents.greeter', message).text)
    conversation_id = chunks[0]['messageMetadata']['conversation_id']
    send(chat, 'chat_agents.greeter', 'second message', conversation_id=conversation_id)
    row = chat.get(f'/api/conversations/{conversation_id}').json()['conversation']
    assert row['title'] == ' '.join(['word'] * 20) + '…' and len(row['title']) == 100
    assert row['message_count'] == 4


def test_bad_input_is_json_before_any_stream(chat: TestClient, context: SynapseContext) -> None:
    assert send(chat, 'chat_agents.nope').status_code == 404
    assert send(chat, 'chat_agents.greeter', message='   ').status_code == 422
    response = send(chat, 'chat_agents.greeter', model='openai:not-offered')
    assert response.status_code == 422 and response.json()['error']['code'] == 'invalid_request'
    assert send(chat, 'chat_agents.greeter', conversation_id='missing').status_code == 404
    first = decode(send(chat, 'chat_agents.greeter').text)[0]['messageMetadata']['conversation_id']
    assert send(chat, 'chat_agents.echo', conversation_id=first).status_code == 409
    context.settings.attachments_max_bytes = 4
    response = send(
        chat, 'chat_agents.echo', files=[('attachments', ('big.bin', b'12345', 'application/octet-stream'))]
    )
    assert response.status_code == 413 and response.json()['error']['code'] == 'too_large'
    assert context.store.counts()['messages'] == 2  # only the one turn that was accepted


def test_message_length_and_attachment_count_limits(chat: TestClient, context: SynapseContext) -> None:
    context.settings.max_message_chars = 10
    response = send(chat, 'chat_agents.greeter', message='x' * 11)
    assert response.status_code == 422
    assert response.json()['error']['message'] == 'message: 11 characters is more than the 10 accepted.'
    assert send(chat, 'chat_agents.greeter', message='x' * 10).status_code == 200
    context.settings.max_attachments = 1
    files = [('attachments', (f'{i}.txt', b'hi', 'text/plain')) for i in range(2)]
    response = send(chat, 'chat_agents.echo', files=files)
    assert (
        response.status_code == 422
        and 'more than the 1 a message may carry' in response.json()['error']['message']
    )
    assert send(chat, 'chat_agents.echo', files=files[:1]).status_code == 200


def test_attachments_round_trip(chat: TestClient) -> None:
    files = [
        ('attachments', ('notes.txt', b'abc', 'text/plain')),
        ('attachments[]', ('<script>.html', b'<b>x</b>', 'text/html')),
    ]
    chunks = decode(send(chat, 'chat_agents.echo', 'see files', files=files).text)
    assert 'files=[3, 8]' in ''.join(c.get('delta', '') for c in chunks)
    conversation_id = chunks[0]['messageMetadata']['conversation_id']
    user = chat.get(f'/api/conversations/{conversation_id}').json()['messages'][0]
    assert [a['name'] for a in user['attachments']] == ['notes.txt', 'script_.html']
    text = chat.get(user['attachments'][0]['url'])
    assert text.status_code == 200 and text.content == b'abc'
    assert text.headers['content-type'].startswith('text/plain')
    assert text.headers['x-content-type-options'] == 'nosniff'
    html = chat.get(user['attachments'][1]['url'])
    assert html.headers['content-type'] == 'application/octet-stream'
    assert html.headers['content-disposition'].startswith('attachment')
    assert chat.get(f'/api/attachments/{user["id"]}/7').status_code == 404
    deleted = chat.delete(f'/api/conversations/{conversation_id}').json()['deleted']
    assert deleted['files'] == 2 and deleted['bytes'] == 11


def test_models_list(chat: TestClient, monkeypatch: pytest.MonkeyPatch, context: SynapseContext) -> None:
    body = chat.get('/api/agents/chat_agents.greeter/models').json()
    assert body['default'] == 'function:scripted'
    assert [(m['id'], m['source']) for m in body['models']] == [
        ('function:scripted', 'agent'),
        ('demo', 'demo'),
        ('demo-fast', 'demo'),
    ]
    modelless = chat.get('/api/agents/chat_agents.modelless/models').json()
    assert modelless['default'] == 'demo'
    monkeypatch.setenv('ANTHROPIC_API_KEY', 'sk-test')
    context.settings.models = ['openai:gpt-5.6-sol']
    body = chat.get('/api/agents/chat_agents.modelless/models').json()
    by_id = {m['id']: m for m in body['models']}
    assert by_id['openai:gpt-5.6-sol'] == {
        'id': 'openai:gpt-5.6-sol',
        'label': 'gpt-5.6-sol',
        'provider': 'openai',
        'source': 'setting',
        'available': False,
        'missing_env': 'OPENAI_API_KEY',
    }
    assert any(m['source'] == 'provider' and m['provider'] == 'anthropic' for m in body['models'])
    assert chat.get('/api/agents/chat_agents.nope/models').status_code == 404


def test_modelless_agent_runs_on_the_demo_model_and_a_missing_key_is_an_error_card(
    chat: TestClient, context: SynapseContext
) -> None:
    chunks = decode(send(chat, 'chat_agents.modelless', 'rate limit').text)
    assert chunks[0]['messageMetadata']['provider'] == 'synapse'
    assert chunks[-3]['type'] == 'error' and '429' in chunks[-3]['errorText']
    context.settings.models = ['openai:gpt-5.6-sol']
    chunks = decode(send(chat, 'chat_agents.greeter', model='openai:gpt-5.6-sol').text)
    card = next(c for c in chunks if c['type'] == 'data-error')['data']
    assert card['class'] == 'MissingApiKey' and 'OPENAI_API_KEY' in card['message']


def test_stateless_demo_agent_and_catalog_failure(chat: TestClient, context: SynapseContext) -> None:
    chunks = decode(send(chat, DEMO + 'summariser', 'rate limit').text)
    assert chunks[0]['messageMetadata']['stateless'] is True
    conversation_id = chunks[0]['messageMetadata']['conversation_id']
    assert chat.get(f'/api/conversations/{conversation_id}').json()['conversation']['stateless'] is True

    # A scan that fails unexpectedly (injected: discovery itself reports problems instead of raising)
    # still starts the turn and shows the failure as an error card; /models answers 409.
    catalog = Catalog(['chat_agents'], context.loaded.project_root)

    def failing_scan() -> Any:
        raise ValueError('embedded null byte')

    catalog.scan = failing_scan  # type: ignore[method-assign]
    context.catalog = catalog
    response = send(chat, 'chat_agents.greeter')
    assert response.status_code == 200
    card = next(c for c in decode(response.text) if c['type'] == 'data-error')['data']
    assert card['class'] == 'AgentLookupError' and 'null byte' in card['message']
    assert chat.get('/api/agents/chat_agents.greeter/models').status_code == 409


def test_native_tools_structured_output_and_fallback_notices_are_recorded(chat: TestClient) -> None:
    def thread_of(slug: str, message: str) -> dict[str, Any]:
        chunks = decode(send(chat, slug, message).text)
        thread: dict[str, Any] = chat.get(
            f'/api/conversations/{chunks[0]["messageMetadata"]["conversation_id"]}'
        ).json()
        return thread

    research = thread_of(DEMO + 'research-agent', 'Search the web for pydantic-ai')
    parts = research['messages'][1]['parts']
    native = next(p['tool'] for p in parts if p['type'] == 'native-tool')
    assert (native['kind'], native['name'], native['status']) == ('native', 'web_search', 'success')
    assert native['provider_status'] == 'success' and research['conversation']['tool_count'] == 1

    structured = thread_of(DEMO + 'structured-agent', 'Order A-1002 is late, I am Ann (ann@example.com).')
    parts = structured['messages'][1]['parts']
    output = next(p for p in parts if p['type'] == 'structured-output')['output']
    assert output['customer']['email'] == 'ann@example.com'
    assert next(p['tool'] for p in parts if p['type'] == 'tool')['kind'] == 'output'
    assert structured['conversation']['tool_count'] == 0  # output tools are not tool calls

    fallback = thread_of(DEMO + 'fallback-agent', 'Hello')
    assert [m['role'] for m in fallback['messages']] == ['user', 'assistant', 'notice']
    assert fallback['messages'][2]['meta']['kind'] == 'fallback'
    assert 'synapse-demo-unavailable' in fallback['messages'][2]['content']


def test_a_tool_call_streams_its_stored_duration_right_after_its_result(chat: TestClient) -> None:
    chunks = decode(send(chat, DEMO + 'support-agent', 'Where is order A-1001?').text)
    named = types(chunks)
    timings = [c for c in chunks if isinstance(c, dict) and c.get('type') == 'data-tool-timing']
    outputs = [c for c in chunks if isinstance(c, dict) and c.get('type') == 'tool-output-available']
    assert outputs and len(timings) == len(outputs)
    for output, timing in zip(outputs, timings, strict=True):
        assert named[chunks.index(timing) - 1] == 'tool-output-available'
        assert timing['data']['tool_call_id'] == output['toolCallId'] and timing['transient'] is True
    conversation_id = chunks[0]['messageMetadata']['conversation_id']
    thread = chat.get(f'/api/conversations/{conversation_id}').json()
    parts = [p for m in thread['messages'] for p in m.get('parts') or []]
    parts = [p for p in parts if p['type'] in ('tool', 'native-tool')]
    assert [p['tool']['duration_ms'] for p in parts] == [t['data']['duration_ms'] for t in timings]


@pytest.mark.parametrize(
    ('slug', 'message', 'reason'),
    [
        ('chat_agents.greeter', 'hi', 'stop'),
        (DEMO + 'support-agent', 'Where is order A-1001?', 'stop'),
        ('chat_agents.failing', '503 hello', 'error'),
    ],
)
def test_the_finish_chunk_always_carries_a_finish_reason(
    chat: TestClient, slug: str, message: str, reason: str
) -> None:
    chunks = decode(send(chat, slug, message).text)
    [finish] = [c for c in chunks if isinstance(c, dict) and c.get('type') == 'finish']
    assert finish.get('finishReason') == reason
