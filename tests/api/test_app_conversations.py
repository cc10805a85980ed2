"""A conversation an app opened through `Synapse` is a workbench conversation like any other:
listed with its origin and scope, replayed, and continued from the playground."""

from __future__ import annotations

import anyio
import pytest
from fastapi.testclient import TestClient

from chat_helpers import decode
from synapse_agents import Synapse
from synapse_agents.settings import LoadedSettings

SUPPORT = 'synapse_agents.demo.agents.support-agent'


@pytest.fixture
def app_conversation(settings: LoadedSettings) -> str:
    """A conversation opened by an app (the same settings and database as the server)."""

    async def open_one() -> str:
        async with Synapse(settings=settings, demo=True) as syn:
            conv = await syn.conversation(SUPPORT, tenant=('firm', '7'), actor=('user', '42'))
            reply = await conv.send('Where is my order?')
            return reply.conversation_id

    return anyio.run(open_one)


def test_an_app_conversation_is_listed_replayed_and_continued(
    client: TestClient, app_conversation: str
) -> None:
    listed = client.get('/api/conversations').json()['conversations']
    (row,) = [r for r in listed if r['id'] == app_conversation]
    assert row['origin'] == 'app' and row['agent_key'] == SUPPORT

    thread = client.get(f'/api/conversations/{app_conversation}').json()
    assert thread['conversation']['agent_available'] is True
    assert [m['role'] for m in thread['messages']] == ['user', 'assistant']

    # The playground continues it: no scope is sent, the stored one is kept.
    response = client.post(
        f'/api/agents/{SUPPORT}/chat',
        data={'message': 'And the refund?', 'conversation_id': app_conversation},
    )
    assert response.status_code == 200
    chunks = decode(response.text)
    assert not [c for c in chunks if c.get('type') == 'error']
    thread = client.get(f'/api/conversations/{app_conversation}').json()
    assert [m['role'] for m in thread['messages']] == ['user', 'assistant', 'user', 'assistant']
    assert thread['conversation']['origin'] == 'app'
