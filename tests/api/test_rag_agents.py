"""A configured agent's `rag_sources` over HTTP: its turns get the search tool over those sources only,
the answer's tool result carries citations that open their chunks, and the prompt breakdown counts
the retrieved text as its own block."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chat_helpers import LOCAL_PEER, LOCAL_URL, decode
from synapse_agents.registry.tables import AgentConfig, Preset
from synapse_agents.retrieval.capability import SEARCH_TOOL
from synapse_agents.runtime.root import SynapseRuntime
from synapse_agents.store import Store
from synapse_agents.web.app import create_app

pytestmark = pytest.mark.vectors


def indexed_source(client: TestClient, slug: str, folder: Path, files: dict[str, str]) -> None:
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    created = client.post(
        '/api/rag/sources', json={'slug': slug, 'name': slug.title(), 'kind': 'folder', 'path': str(folder)}
    )
    assert created.status_code == 201, created.text
    assert client.post(f'/api/rag/sources/{slug}/index', json={}).status_code == 202
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        progress = client.get(f'/api/rag/sources/{slug}/progress').json()
        if progress['status'] in ('done', 'failed'):
            assert progress['status'] == 'done', progress
            return
        time.sleep(0.1)
    raise AssertionError(f'{slug} was not indexed in time')


@pytest.fixture
def served(store: Store, context: SynapseRuntime, tmp_path: Path) -> Iterator[TestClient]:
    """The app as `synapse serve` opens it (its in-process worker indexes), with two indexed sources
    and the configured agents `reader` (searching `handbook`), `plain` and `odd`."""
    with store.write() as session:
        session.add_all(
            [
                Preset(key='demo', model='demo'),
                AgentConfig(
                    key='reader',
                    instructions='Answer from the handbook.',
                    preset_key='demo',
                    rag_sources=['handbook'],
                ),
                AgentConfig(key='plain', instructions='Answer.', preset_key='demo'),
                AgentConfig(key='odd', preset_key='demo', rag_sources=[{'source': 'handbook'}, 7]),
            ]
        )
    context.maintenance = True
    with TestClient(create_app(context), base_url=LOCAL_URL, client=LOCAL_PEER) as client:
        _sources(client, tmp_path)
        yield client


def _sources(client: TestClient, tmp_path: Path) -> None:
    indexed_source(
        client,
        'handbook',
        tmp_path / 'handbook',
        {'leave.md': '# Leave\n\nEvery employee gets twenty-five days of paid holiday a year.\n'},
    )
    indexed_source(
        client, 'plans', tmp_path / 'plans', {'plans.md': '# Plans\n\nPaid holiday: thirty days next year.\n'}
    )


def tool_calls(client: TestClient, agent: str, message: str) -> tuple[str, list[dict[str, Any]]]:
    response = client.post(f'/api/agents/{agent}/chat', data={'message': message})
    assert response.status_code == 200, response.text
    start = next(c for c in decode(response.text) if c['type'] == 'start')['messageMetadata']
    thread = client.get(f'/api/conversations/{start["conversation_id"]}').json()
    calls = [
        part['tool'] for m in thread['messages'] for part in m.get('parts') or [] if part['type'] == 'tool'
    ]
    return start['message_id'], calls


def test_a_configured_agent_searches_its_sources_and_cites_them(served: TestClient) -> None:
    message_id, calls = tool_calls(served, 'config:reader', 'use all tools: paid holiday days')
    search = next(call for call in calls if call['name'] == SEARCH_TOOL)
    result = search['result'] if isinstance(search['result'], dict) else json.loads(search['result'])
    assert result['results'] and {r['source'] for r in result['results']} == {'handbook'}
    first = result['results'][0]
    assert (first['source_name'], first['file'], first['heading']) == ('Handbook', 'leave.md', 'Leave')
    opened = served.get(f'/api/rag/chunks/{first["chunk_id"]}').json()
    assert 'twenty-five days' in opened['content'] and opened['citation']['file'] == 'leave.md'
    requests = served.get(f'/api/messages/{message_id}/context').json()['requests']
    retrieved = [b for r in requests for b in r['blocks'] if b['kind'] == 'retrieved']
    assert retrieved and 'twenty-five days' in retrieved[0]['text']


def test_an_agent_without_sources_gets_no_search_tool_and_bad_entries_are_a_config_error(
    served: TestClient,
) -> None:
    _, calls = tool_calls(served, 'config:plain', 'use all tools: paid holiday')
    assert all(call['name'] != SEARCH_TOOL for call in calls)
    card = next(a for a in served.get('/api/agents').json()['agents'] if a['slug'] == 'config:odd')
    assert any('rag_sources[1]' in p['message'] for p in card['problems'])
