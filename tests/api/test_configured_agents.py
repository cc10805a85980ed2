"""Configured agents over HTTP: listed beside code agents, described like them, chatted with in the
playground through the same turn engine; the tool registry for the agent form."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from chat_helpers import decode
from fixtures.projects import write_files
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.conversations.tables import Message
from synapse_agents.registry.tables import AgentConfig, Preset, Tone
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.store import Store
from synapse_agents.web.server import DEMO_TARGET

TOOLS = '''
import synapse_agents


@synapse_agents.tool(tags=['math'])
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b
'''


def add_rows(store: Store, *rows: Any) -> None:
    with store.write() as session:
        session.add_all(rows)


@pytest.fixture
def served(store: Store, context: SynapseContext, client_for: Callable[..., TestClient]) -> TestClient:
    """The demo agents, a tools module, and the configured agents `helper` (version 2), `draft`
    (a sandbox), `off` (disabled) and `broken` (an unknown tool)."""
    write_files(context.loaded.project_root, {'agents/tools.py': TOOLS})
    add_rows(
        store,
        Preset(key='careful', model='demo', temperature=0.3, max_tokens=64),
        Tone(key='pirate', instructions='Speak like a pirate.'),
        AgentConfig(
            key='helper',
            name='Helper',
            description='Helps.',
            instructions='You help people.',
            preset_key='careful',
            tone_key='pirate',
            tools=['tag:math'],
            version=2,
        ),
        AgentConfig(key='draft', instructions='Draft.', is_sandbox=True, preset_key='careful'),
        AgentConfig(key='off', enabled=False),
        AgentConfig(key='broken', tools=['nope']),
    )
    return client_for(['agents', DEMO_TARGET])


def test_the_listing_shows_configured_agents_after_the_code_agents(served: TestClient) -> None:
    body = served.get('/api/agents').json()
    slugs = [card['slug'] for card in body['agents']]
    assert slugs[-2:] == ['config:broken', 'config:helper']  # no sandbox, nothing disabled
    assert all(not s.startswith('config:') for s in slugs[:-2]) and len(slugs) == 11
    code = body['agents'][0]
    assert (code['configured'], code['version']) == (False, None)
    helper = body['agents'][-1]
    assert (helper['configured'], helper['version'], helper['name']) == (True, 2, 'Helper')
    assert helper['model']['id'] == 'demo' and helper['model']['is_demo'] is True
    assert helper['tools'] == ['add'] and helper['problems'] == []
    broken = body['agents'][-2]
    assert [p['code'] for p in broken['problems']] == ['unknown_tool']
    assert "Unknown tool entry 'nope'" in broken['problems'][0]['message']
    assert body['problems'] == []


def test_a_configured_agent_is_described_like_a_code_agent(served: TestClient) -> None:
    info = served.get('/api/agents/config:helper').json()
    assert info['slug'] == 'config:helper' and info['module'] == 'registry' and info['attribute'] == 'helper'
    assert [entry['text'] for entry in info['instructions']] == ['You help people.', 'Speak like a pirate.']
    assert info['model_settings'] == {'temperature': 0.3, 'max_tokens': 64}
    assert info['tools'][0]['name'] == 'add' and info['tools'][0]['required'] == ['a', 'b']
    sandbox = served.get('/api/agents/config:draft').json()  # found by key
    assert sandbox['configured'] is True and sandbox['version'] == 1
    missing = served.get('/api/agents/config:nope')
    assert missing.status_code == 404
    assert missing.json()['error']['message'] == "No agent with slug 'config:nope'."


def test_the_playground_chats_with_it_through_the_turn_engine(served: TestClient, store: Store) -> None:
    response = served.post('/api/agents/config:helper/chat', data={'message': 'hello'})
    assert response.status_code == 200, response.text
    chunks = decode(response.text)
    metadata = next(c for c in chunks if c['type'] == 'message-metadata')['messageMetadata']
    assert metadata['model'] == 'synapse-demo'
    thread = served.get(f'/api/conversations/{metadata["conversation_id"]}').json()
    assert thread['conversation']['agent_key'] == 'config:helper'
    with store.read() as session:
        answer = session.get(Message, metadata['message_id'])
        assert answer is not None and answer.meta['agent_version'] == 2
        calls = session.scalars(select(LlmCall).where(LlmCall.conversation_id == metadata['conversation_id']))
        # Each model call names the preset it ran with, so a preset's spending limit applies to it.
        presets = [call.preset for call in calls]
        assert presets and set(presets) == {'careful'}
    models = served.get('/api/agents/config:helper/models').json()
    assert models['default'] == 'demo'
    failed = decode(served.post('/api/agents/config:broken/chat', data={'message': 'hi'}).text)
    error = next(c for c in failed if c['type'] == 'error')
    assert "Unknown tool entry 'nope'" in error['errorText']


def test_the_tool_registry_lists_the_tools_for_the_agent_form(served: TestClient) -> None:
    tools = served.get('/api/registry/tools').json()['tools']
    assert {
        'name': 'add',
        'tags': ['math'],
        'description': 'Add two numbers.',
        'module': 'agents.tools',
    } in tools
    # The demo's own tools are offered too (those that need no run dependencies), ordered by name.
    names = [tool['name'] for tool in tools]
    assert names == sorted(names)
    assert set(names) == {
        'add',
        'check_inventory',
        'create_ticket',
        'delegate_to_summariser',
        'lookup_order',
        'search_knowledge_base',
    }
