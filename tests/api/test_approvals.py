"""Tool calls that wait for a person: a run pauses on approvals and external calls, the stream says
so (v5 data parts, v6 `tool-approval-request`), the stored thread shows them waiting, a new message
is refused until they are answered, and the answers resume the run in the same conversation."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chat_helpers import decode
from fixtures.projects import FixtureProject
from synapse_agents.conversations.decisions import give_back_dead_claims
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext

PROJECT = """
from pydantic_ai import Agent, CallDeferred, DeferredToolRequests
from pydantic_ai.messages import ToolReturnPart
from pydantic_ai.models.function import DeltaToolCall, FunctionModel

RAN = []


async def stream(messages, info):
    last = messages[-1].parts
    returns = [p for p in last if isinstance(p, ToolReturnPart)]
    if returns:
        yield 'Results: ' + '; '.join(f'{p.tool_name}={p.content}' for p in returns)
        return
    prompt = [p.content for p in last if getattr(p, 'part_kind', '') == 'user-prompt'][0]
    if prompt == 'plain':
        yield 'just text'
        return
    yield {0: DeltaToolCall(name='delete_file', json_args='{"path": "a.txt"}', tool_call_id='call_a')}
    yield {1: DeltaToolCall(name='delete_file', json_args='{"path": "b.txt"}', tool_call_id='call_b')}
    yield {2: DeltaToolCall(name='ask_human', json_args='{"question": "size?"}', tool_call_id='call_h')}


ops = Agent(
    FunctionModel(stream_function=stream, model_name='ops'),
    name='ops',
    output_type=[str, DeferredToolRequests],
)


@ops.tool_plain(requires_approval=True)
def delete_file(path: str) -> str:
    RAN.append(path)
    return f'deleted {path}'


@ops.tool_plain
def ask_human(question: str) -> str:
    raise CallDeferred
"""

SLUG = 'agents.ops.ops'
DECISIONS = {
    'call_a': {'approved': True},
    'call_b': {'approved': False, 'reason': 'keep b'},
    'call_h': {'result': {'size': 42}},
}


def _client(client_for: Callable[..., TestClient], root: Path) -> TestClient:
    project = FixtureProject(root).write({'agents/ops.py': PROJECT})
    return client_for([], project.root)


def _pause(client: TestClient, sdk_version: int = 5) -> tuple[str, list[Any]]:
    response = client.post(
        f'/api/agents/{SLUG}/chat', data={'message': 'clean up', 'sdk_version': sdk_version}
    )
    assert response.status_code == 200, response.text
    chunks = decode(response.text)
    return chunks[0]['messageMetadata']['conversation_id'], chunks


def _tools(thread: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    return [
        (part['tool']['tool_call_id'], part['tool']['status'], part['tool']['provider_status'])
        for message in thread['messages']
        for part in message.get('parts') or []
        if part['type'] == 'tool'
    ]


def test_a_paused_run_streams_its_waiting_calls_and_is_stored_waiting(
    client_for: Callable[..., TestClient], isolated_env: Path
) -> None:
    client = _client(client_for, isolated_env)
    conversation_id, chunks = _pause(client)
    approvals = [c['data'] for c in chunks if isinstance(c, dict) and c.get('type') == 'data-tool-approval']
    assert approvals == [
        {'tool_call_id': 'call_a', 'tool_name': 'delete_file', 'args': {'path': 'a.txt'}, 'kind': 'approval'},
        {'tool_call_id': 'call_b', 'tool_name': 'delete_file', 'args': {'path': 'b.txt'}, 'kind': 'approval'},
        {
            'tool_call_id': 'call_h',
            'tool_name': 'ask_human',
            'args': {'question': 'size?'},
            'kind': 'external',
        },
    ]
    types = [c.get('type') for c in chunks if isinstance(c, dict)]
    assert 'tool-approval-request' not in types  # v5 has no such chunk
    assert 'data-structured-output' not in types  # the raw DeferredToolRequests is not an answer
    finish = next(c for c in chunks if isinstance(c, dict) and c.get('type') == 'finish')
    assert finish['messageMetadata']['awaiting'] == ['call_a', 'call_b', 'call_h']
    thread = client.get(f'/api/conversations/{conversation_id}').json()
    assert _tools(thread) == [
        ('call_a', 'awaiting', 'approval'),
        ('call_b', 'awaiting', 'approval'),
        ('call_h', 'awaiting', 'external'),
    ]
    answer = thread['messages'][-1]
    assert answer['status'] == 'complete' and answer['content'] == ''
    assert not any(p['type'] == 'structured-output' for p in answer['parts'])


def test_sdk_v6_gets_tool_approval_request_chunks(
    client_for: Callable[..., TestClient], isolated_env: Path
) -> None:
    client = _client(client_for, isolated_env)
    _, chunks = _pause(client, sdk_version=6)
    requests = [c for c in chunks if isinstance(c, dict) and c.get('type') == 'tool-approval-request']
    assert requests == [
        {'type': 'tool-approval-request', 'approvalId': 'call_a', 'toolCallId': 'call_a'},
        {'type': 'tool-approval-request', 'approvalId': 'call_b', 'toolCallId': 'call_b'},
    ]


def test_a_new_message_is_refused_while_calls_wait(
    client_for: Callable[..., TestClient], isolated_env: Path
) -> None:
    client = _client(client_for, isolated_env)
    conversation_id, _ = _pause(client)
    before = client.get(f'/api/conversations/{conversation_id}').json()
    response = client.post(
        f'/api/agents/{SLUG}/chat', data={'message': 'anything else?', 'conversation_id': conversation_id}
    )
    assert response.status_code == 409
    body = response.json()
    assert body['error']['code'] == 'approval_pending'
    assert (
        'delete_file (call_a)' in body['error']['message']
        and 'ask_human (call_h)' in body['error']['message']
    )
    assert client.get(f'/api/conversations/{conversation_id}').json() == before


def test_decisions_resume_the_run_and_the_conversation_goes_on(
    client_for: Callable[..., TestClient], isolated_env: Path
) -> None:
    client = _client(client_for, isolated_env)
    conversation_id, _ = _pause(client)
    response = client.post(
        f'/api/agents/{SLUG}/chat',
        data={'conversation_id': conversation_id, 'decisions': json.dumps(DECISIONS)},
    )
    assert response.status_code == 200, response.text
    chunks = decode(response.text)
    text = ''.join(c['delta'] for c in chunks if isinstance(c, dict) and c.get('type') == 'text-delta')
    assert text == "Results: delete_file=deleted a.txt; delete_file=keep b; ask_human={'size': 42}"
    announced = {c['toolCallId'] for c in chunks if isinstance(c, dict) and 'toolCallId' in c}
    assert announced == {'call_a'}  # only the approved call runs in this message
    thread = client.get(f'/api/conversations/{conversation_id}').json()
    roles = [(m['role'], m['status']) for m in thread['messages']]
    assert roles == [('user', 'complete'), ('assistant', 'complete')] * 2
    decided = thread['messages'][1]['parts']
    by_call = {p['tool']['tool_call_id']: p['tool'] for p in decided if p['type'] == 'tool'}
    assert by_call['call_a']['status'] == 'approved'
    assert by_call['call_b']['status'] == 'denied' and by_call['call_b']['error'] == 'keep b'
    assert by_call['call_h']['status'] == 'success'
    resumed = thread['messages'][3]
    ran = [p['tool'] for p in resumed['parts'] if p['type'] == 'tool']
    assert [(t['tool_call_id'], t['status']) for t in ran] == [('call_a', 'success')]
    # In the stream's order: the approved call ran before the model answered.
    assert [p['type'] for p in resumed['parts']] == ['tool', 'text']
    decisions_row = thread['messages'][2]
    assert decisions_row['content'] == (
        'Approved delete_file.\nDenied delete_file: keep b\nSupplied the result of ask_human.'
    )
    later = client.post(
        f'/api/agents/{SLUG}/chat', data={'message': 'plain', 'conversation_id': conversation_id}
    )
    assert later.status_code == 200
    assert 'just text' in later.text


@pytest.mark.parametrize(
    ('decisions', 'status', 'fragment'),
    [
        ('not json', 422, 'not valid JSON'),
        ('[]', 422, 'expected an object'),
        ('{"call_a": {"approved": "yes"}}', 422, 'expected true or false'),
        ('{"call_a": {"approved": true, "reason": "x"}}', 422, 'only a denial has a reason'),
        ('{"call_a": {"approved": true}}', 422, 'missing: delete_file (call_b), ask_human (call_h)'),
        (json.dumps({**DECISIONS, 'call_zz': {'approved': True}}), 422, "no tool call 'call_zz'"),
        (json.dumps({**DECISIONS, 'call_h': {'approved': True}}), 422, 'send its result'),
        (json.dumps({**DECISIONS, 'call_a': {'result': 1}}), 422, 'needs approval'),
    ],
)
def test_bad_decisions_get_a_clear_error_and_change_nothing(
    client_for: Callable[..., TestClient], isolated_env: Path, decisions: str, status: int, fragment: str
) -> None:
    client = _client(client_for, isolated_env)
    conversation_id, _ = _pause(client)
    before = client.get(f'/api/conversations/{conversation_id}').json()
    response = client.post(
        f'/api/agents/{SLUG}/chat', data={'conversation_id': conversation_id, 'decisions': decisions}
    )
    assert response.status_code == status, response.text
    assert fragment in response.json()['error']['message']
    assert client.get(f'/api/conversations/{conversation_id}').json() == before


def test_decisions_need_a_waiting_conversation(
    client_for: Callable[..., TestClient], isolated_env: Path
) -> None:
    client = _client(client_for, isolated_env)
    fresh = client.post(f'/api/agents/{SLUG}/chat', data={'decisions': json.dumps(DECISIONS)})
    assert fresh.status_code == 422 and 'conversation_id' in fresh.json()['error']['message']
    plain = client.post(f'/api/agents/{SLUG}/chat', data={'message': 'plain'})
    conversation_id = decode(plain.text)[0]['messageMetadata']['conversation_id']
    response = client.post(
        f'/api/agents/{SLUG}/chat',
        data={'conversation_id': conversation_id, 'decisions': json.dumps(DECISIONS)},
    )
    assert response.status_code == 409 and response.json()['error']['code'] == 'not_awaiting'
    both = client.post(
        f'/api/agents/{SLUG}/chat',
        data={'conversation_id': conversation_id, 'message': 'hi', 'decisions': json.dumps(DECISIONS)},
    )
    assert both.status_code == 422 and 'without a message' in both.json()['error']['message']


def test_two_deciders_at_once_one_wins(client_for: Callable[..., TestClient], isolated_env: Path) -> None:
    client = _client(client_for, isolated_env)
    conversation_id, _ = _pause(client)

    def decide(_: int) -> int:
        data = {'conversation_id': conversation_id, 'decisions': json.dumps(DECISIONS)}
        return client.post(f'/api/agents/{SLUG}/chat', data=data).status_code

    with ThreadPoolExecutor(4) as pool:
        statuses = sorted(pool.map(decide, range(4)))
    assert statuses == [200, 409, 409, 409]
    thread = client.get(f'/api/conversations/{conversation_id}').json()
    assert len(thread['messages']) == 4


def test_a_completed_resumed_turn_leaves_no_claim_for_the_sweep(
    client_for: Callable[..., TestClient], isolated_env: Path, context: SynapseContext
) -> None:
    """Once the resumed turn is stored, its decisions are settled: a sweep that finds every server
    gone (as after a clean shutdown) gives nothing back and the calls keep what happened."""
    client = _client(client_for, isolated_env)
    conversation_id, _ = _pause(client)
    response = client.post(
        f'/api/agents/{SLUG}/chat',
        data={'conversation_id': conversation_id, 'decisions': json.dumps(DECISIONS)},
    )
    assert response.status_code == 200, response.text

    def statuses() -> list[tuple[str, str]]:
        thread = client.get(f'/api/conversations/{conversation_id}').json()
        return [
            (part['tool']['tool_call_id'], part['tool']['status'])
            for message in thread['messages']
            for part in message.get('parts') or []
            if part['type'] == 'tool'
        ]

    before = statuses()
    assert ('call_a', 'approved') in before
    with context.store.engine.begin() as connection:
        assert give_back_dead_claims(connection, live=[]) == 0
    assert statuses() == before
