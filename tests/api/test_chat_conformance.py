"""Every demo agent's stream, checked by the `ai` package's own parser (v5, v6 and v7).

tests/node/check_streams.mjs runs `parseJsonEventStream` + `uiMessageChunkSchema` +
`readUIMessageStream` (with `terminateOnError`) from each pinned version of `ai` over the streams.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chat_helpers import decode
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext

pytestmark = [
    pytest.mark.node,
    pytest.mark.slow,
    pytest.mark.any_database(reason="the stream's wire format is the encoder's; the store is not read back"),
]

NODE_DIR = Path(__file__).resolve().parents[1] / 'node'

# (agent attribute, message, what the stream must contain)
TURNS = [
    ('support_agent', 'Where is order A-1001?', {'tool-output-available', 'text-delta', 'reasoning-delta'}),
    ('summariser', 'Summarise: Synapse records every tool call.', {'text-delta'}),
    ('structured_agent', 'My order A-1002 is late, I am Ann (ann@example.com).', {'data-structured-output'}),
    ('flaky_agent', 'How many KB-87 are in stock?', {'tool-output-error', 'data-error', 'error'}),
    ('orchestrator', 'Summarise this text: pydantic-ai agents are composable.', {'tool-output-available'}),
    ('deps_agent', 'List my open invoices.', {'tool-output-available'}),
    ('fallback_agent', 'Hello', {'data-notice'}),
    ('research_agent', 'Search the web for pydantic-ai capabilities', {'data-native-tool'}),
    ('support_agent', 'rate limit', {'data-error', 'error'}),
    ('support_agent', 'Explain refunds, then fail mid-stream', {'text-delta', 'error'}),
    ('ops_agent', 'Restart the billing service and delete backup 7.', {'data-tool-approval'}),
]


@pytest.fixture(scope='module')
def node_modules() -> Path:
    if shutil.which('node') is None or shutil.which('npm') is None:
        pytest.fail('the conformance check needs Node.js and npm on PATH')
    # One install at a time: xdist's workers (and other runs on this checkout) may all get here first.
    with (Path(tempfile.gettempdir()) / 'synapse-tests-node-ci.lock').open('w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (NODE_DIR / 'node_modules' / '.package-lock.json').is_file():
            subprocess.run(
                ['npm', 'ci', '--no-audit', '--no-fund'], cwd=NODE_DIR, check=True, capture_output=True
            )
    return NODE_DIR / 'node_modules'


def test_every_demo_agent_stream_passes_the_ai_parser(
    client: TestClient, context: SynapseContext, node_modules: Path, tmp_path: Path
) -> None:
    from synapse_agents.discovery import Catalog

    context.catalog = Catalog(['synapse_agents.demo'], tmp_path)
    snapshot = context.catalog.scan()
    slugs = {agent.attribute: agent.slug for agent in snapshot.agents}
    assert {attribute for attribute, _, _ in TURNS} <= set(slugs), snapshot.problems

    streams: list[dict[str, Any]] = []
    for attribute, message, expected in TURNS:
        response = client.post(f'/api/agents/{slugs[attribute]}/chat', data={'message': message})
        assert response.status_code == 200, response.text
        chunk_types = {chunk['type'] for chunk in decode(response.text)}
        assert expected <= chunk_types, (attribute, message, chunk_types)
        streams.append({'name': f'{attribute}: {message}', 'sse': response.text})

    streams_file = tmp_path / 'streams.json'
    streams_file.write_text(json.dumps(streams))
    checked = subprocess.run(
        ['node', 'check_streams.mjs', str(streams_file)],
        cwd=NODE_DIR,
        check=True,
        capture_output=True,
        text=True,
    )
    results = json.loads(checked.stdout)
    assert len(results) == 3 * len(TURNS)
    for result in results:
        where = f'{result["version"]} {result["name"]}'
        assert result['schema_errors'] == [], where
        assert result['message'] is not None, where
        sent = next(s for s in streams if s['name'] == result['name'])
        error_chunks = [c for c in decode(sent['sse']) if c['type'] == 'error']
        if error_chunks:
            assert result['error'] == error_chunks[0]['errorText'], where
        else:
            assert result['error'] is None, where
            assert result['message']['metadata']['message_id'] == result['message']['id'], where
        assert len(result['chunk_types']) == len(decode(sent['sse'])) - 1, where  # all but [DONE]


def test_a_paused_run_at_sdk_version_6_passes_the_v6_and_v7_parsers(
    client: TestClient, context: SynapseContext, node_modules: Path, tmp_path: Path
) -> None:
    from synapse_agents.discovery import Catalog

    context.catalog = Catalog(['synapse_agents.demo'], tmp_path)
    slug = next(a.slug for a in context.catalog.scan().agents if a.attribute == 'ops_agent')
    response = client.post(
        f'/api/agents/{slug}/chat',
        data={'message': 'Restart the billing service and delete backup 7.', 'sdk_version': '6'},
    )
    assert response.status_code == 200, response.text
    assert 'tool-approval-request' in {chunk['type'] for chunk in decode(response.text)}
    streams_file = tmp_path / 'streams.json'
    streams_file.write_text(json.dumps([{'name': 'ops_agent v6', 'sse': response.text}]))
    checked = subprocess.run(
        ['node', 'check_streams.mjs', str(streams_file)],
        cwd=NODE_DIR,
        check=True,
        capture_output=True,
        text=True,
    )
    results = {result['version']: result for result in json.loads(checked.stdout)}
    assert results['v5']['schema_errors'], 'v5 has no tool-approval-request chunk'
    for version in ('v6', 'v7'):
        result = results[version]
        assert result['schema_errors'] == [] and result['error'] is None, result
        states = [
            part.get('state') for part in result['message']['parts'] if part['type'].startswith('tool-')
        ]
        assert states == ['approval-requested', 'approval-requested'], (version, result['message']['parts'])
