"""Chatting in the playground as a tenant, a person and a subject (`tenant`, `actor`, `subject` on a
new conversation's first message): `Rules()` and `Memory()` see them, the conversation keeps them,
and another scope on a continued conversation, or a label that is not `type:id`, is refused."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import select

from chat_helpers import decode
from fixtures.projects import FixtureProject
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.store import Store

AGENTS = """
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, FunctionModel
from synapse_agents.capabilities import Memory, Rules


async def _stream(messages: list[ModelMessage], info: AgentInfo):
    yield info.instructions or ''

scoped = Agent(
    FunctionModel(stream_function=_stream),
    name='scoped',
    instructions='Be brief.',
    capabilities=[Rules(), Memory()],
)
"""


def answer(client: TestClient, **form: str) -> tuple[int, str, str | None]:
    response = client.post('/api/agents/agents.scoped.scoped/chat', data=form)
    if response.status_code != 200:
        return response.status_code, response.text, None
    chunks = decode(response.text)
    text = ''.join(c.get('delta', '') for c in chunks if c.get('type') == 'text-delta')
    conversation = next(c['messageMetadata']['conversation_id'] for c in chunks if 'messageMetadata' in c)
    return 200, text, conversation


def test_the_playground_chats_as_a_tenant_and_a_person(
    client_for: Callable[..., TestClient], isolated_env: Path
) -> None:
    project = FixtureProject(isolated_env).write({'agents/scoped.py': AGENTS})
    client = client_for([], project.root)
    client.post('/api/rules', json={'tenant': 'firm:7', 'text': 'Never quote fees.'})
    client.post('/api/memories', json={'tenant': 'firm:7', 'content': 'We bill fortnightly.'})
    client.post(
        '/api/memories', json={'tenant': 'firm:7', 'content': 'Likes tea.', 'applies_to': 'user:maria'}
    )
    client.post('/api/memories', json={'tenant': 'firm:8', 'content': 'Another firm.'})

    status, text, conversation = answer(
        client, message='hi', tenant='firm:7', actor='user:maria', subject='case:1'
    )
    assert status == 200, text
    assert 'Never quote fees.' in text and 'We bill fortnightly.' in text and 'Likes tea.' in text
    assert 'Another firm.' not in text
    stored = client.get(f'/api/conversations/{conversation}').json()['conversation']
    assert [stored[axis] for axis in ('tenant', 'actor', 'subject')] == [
        {'type': 'firm', 'id': '7'},
        {'type': 'user', 'id': 'maria'},
        {'type': 'case', 'id': '1'},
    ]

    # Continued: the stored scope stands (resent or left out); another one is refused.
    status, text, _ = answer(client, message='again', conversation_id=conversation or '')
    assert status == 200 and 'We bill fortnightly.' in text
    status, refused, _ = answer(client, message='x', conversation_id=conversation or '', tenant='firm:8')
    assert status == 409 and 'tenant' in refused

    # No scope: the playground as it always was, nothing of any tenant.
    status, text, _ = answer(client, message='plain')
    assert status == 200 and text == 'Be brief.'
    status, refused, _ = answer(client, message='x', tenant='acme')
    assert status == 422 and "expected 'type:id'" in refused


PLAIN = """
from pydantic_ai import Agent
from pydantic_ai.models.function import FunctionModel


async def _stream(messages, info):
    yield 'ok'

plain = Agent(FunctionModel(stream_function=_stream, model_name='gpt-4o'), name='plain')
"""
LONGEST = 'a' * 255 + ':' + 'b' * 255  # a type and an id of 255 characters each: the longest label


def test_the_longest_labels_are_stored_with_the_turn_its_ledger_row_and_its_memories(
    client_for: Callable[..., TestClient], isolated_env: Path, store: Store
) -> None:
    """PostgreSQL refused the ledger row of a turn whose tenant label passed 255 characters."""
    project = FixtureProject(isolated_env).write({'agents/plain.py': PLAIN})
    client = client_for([], project.root)
    response = client.post(
        '/api/agents/agents.plain.plain/chat', data={'message': 'hi', 'tenant': LONGEST, 'actor': LONGEST}
    )
    chunks = decode(response.text)
    assert [c for c in chunks if c.get('type') == 'error'] == []
    assert ''.join(c.get('delta', '') for c in chunks if c.get('type') == 'text-delta') == 'ok'
    with store.read() as session:
        assert list(session.execute(select(LlmCall.tenant, LlmCall.user))) == [(LONGEST, LONGEST)]
    added = client.post('/api/memories', json={'tenant': LONGEST, 'content': 'The longest tenant.'})
    assert added.status_code == 201, added.text
    found = client.get('/api/memories/search', params={'tenant': LONGEST, 'actor': LONGEST, 'q': 'tenant'})
    assert [r['memory']['content'] for r in found.json()['results']] == ['The longest tenant.']
