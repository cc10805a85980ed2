"""Credentials an agent's tools are configured with never leave Synapse: a native MCP server's token,
headers and URL query, an MCP server's command-line secrets and environment are hidden in every API
answer about the agent, in debug logs, and in what is exported over OpenTelemetry; counts such as
`max_tokens` are not mistaken for secrets."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanContext

from fixtures.projects import FixtureProject
from synapse_agents.redaction import HIDDEN, redact, redact_args, redact_url
from synapse_agents.traces.rows import PARAMETERS, redact_parameters, without_secrets

pytestmark = pytest.mark.any_database(
    reason='credentials are redacted before anything is answered, logged or exported'
)

SECRETS = ('sk-url-1', 'sk-token-2', 'sk-header-3', 'sk-arg-4', 'sk-var-5', 'sk-env-6', 'pw-7')

PROJECT = """
from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.capabilities import NativeTool
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.native_tools import MCPServerTool

remote = MCPServerTool(
    id='tickets',
    url='https://mcp.example.com/sse?key=sk-url-1&team=ops',
    authorization_token='sk-token-2',
    headers={'X-Api-Key': 'sk-header-3'},
)
local = MCPToolset(
    StdioTransport(
        'npx',
        ['-y', 'github-server', '--api-key', 'sk-arg-4', 'GITHUB_TOKEN=sk-var-5', 'https://bot:pw-7@git.example/x'],
        env={'GITHUB_TOKEN': 'sk-env-6'},
    )
)
support = Agent('test', name='support', capabilities=[NativeTool(remote)], toolsets=[local])
"""


def test_the_agent_api_never_shows_a_credential(
    client_for: Callable[..., TestClient], isolated_env: Path
) -> None:
    project = FixtureProject(isolated_env).write({'agents/support.py': PROJECT})
    client = client_for([], project.root)
    listing = client.get('/api/agents')
    assert listing.status_code == 200
    assert listing.json()['problems'] == []
    [card] = listing.json()['agents']
    detail = client.get(f'/api/agents/{card["slug"]}')
    assert detail.status_code == 200, detail.text
    for text in (listing.text, detail.text):
        for secret in SECRETS:
            assert secret not in text
    info = detail.json()
    [native] = info['native_tools']
    assert native['options']['url'] == f'https://mcp.example.com/sse?key={HIDDEN}&team={HIDDEN}'
    assert native['options']['authorization_token'] == HIDDEN and native['options']['headers'] == HIDDEN
    [toolset] = [t for t in info['toolsets'] if t['kind'] == 'mcp']
    assert toolset['description'].startswith(f'npx -y github-server --api-key {HIDDEN} GITHUB_TOKEN={HIDDEN}')
    assert ' object at 0x' not in toolset['label'] and toolset['label'].startswith(
        "MCPToolset 'npx -y github-server"
    )


def test_redaction_rules() -> None:
    assert redact(
        {'max_tokens': 10, 'env': {'A': 'b'}, 'nested': [{'access_token': 't', 'url': 'wss://h/p?x=1'}]}
    ) == {
        'max_tokens': 10,
        'env': HIDDEN,
        'nested': [{'access_token': HIDDEN, 'url': f'wss://h/p?x={HIDDEN}'}],
    }
    assert (
        redact_url('https://u:pw@host:8443/p?a=1&flag') == f'https://u:{HIDDEN}@host:8443/p?a={HIDDEN}&flag'
    )
    assert redact_args(['run', '--token', 's', '--token=s', '--verbose', 'PORT=80', 'API_KEY=s']) == [
        'run',
        '--token',
        HIDDEN,
        f'--token={HIDDEN}',
        '--verbose',
        'PORT=80',
        f'API_KEY={HIDDEN}',
    ]


def test_debug_logs_and_exported_spans_hide_native_tool_credentials() -> None:
    parameters = {
        'function_tools': [
            {'name': 'lookup', 'parameters_json_schema': {'properties': {'key': {'type': 'string'}}}}
        ],
        'native_tools': [
            {
                'kind': 'mcp_server',
                'url': 'https://m.example/sse?key=sk-url-1',
                'authorization_token': 'sk-token-2',
            }
        ],
    }
    cleaned = redact_parameters(json.dumps(parameters))
    assert 'sk-url-1' not in cleaned and 'sk-token-2' not in cleaned
    assert json.loads(cleaned)['function_tools'] == parameters['function_tools'], 'tool schemas are kept'
    span = ReadableSpan(
        name='chat test',
        context=SpanContext(1, 2, is_remote=False),
        attributes={PARAMETERS: json.dumps(parameters), 'gen_ai.request.model': 'test'},
    )
    exported = without_secrets(span)
    assert exported is not span and exported.attributes is not None
    assert 'sk-token-2' not in str(exported.attributes[PARAMETERS])
    assert exported.attributes['gen_ai.request.model'] == 'test' and exported.context == span.context
    plain = ReadableSpan(
        name='chat',
        context=SpanContext(1, 3, is_remote=False),
        attributes={PARAMETERS: '{"native_tools": []}'},
    )
    assert without_secrets(plain) is plain
