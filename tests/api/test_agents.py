"""`GET /api/agents` and `GET /api/agents/{slug}` through the in-process client."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from fixtures.projects import FixtureProject
from synapse_agents.discovery.agent_info import AgentCard, AgentInfo

pytestmark = pytest.mark.any_database(
    reason='the agents and their descriptions come from discovery, not from the store'
)

SUPPORT = 'synapse_agents.demo.agents.support-agent'


def test_list_shows_every_demo_agent_as_a_card(client: TestClient, isolated_env: Path) -> None:
    response = client.get('/api/agents')
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {'agents', 'problems', 'targets', 'project_root', 'degraded'}
    assert body['targets'] == ['synapse_agents.demo'] and body['problems'] == []
    assert body['project_root'] == str(isolated_env.resolve())
    assert len(body['agents']) == 9
    card = body['agents'][0]
    assert set(card) == {field.alias or name for name, field in AgentCard.model_fields.items()}
    assert card['slug'] == SUPPORT and card['name'] == 'support_agent'
    assert card['model'] == {
        'provider': 'synapse',
        'name': 'synapse-demo',
        'id': 'synapse:synapse-demo',
        'is_demo': True,
        'fallbacks': [],
    }
    assert card['tools'] == ['lookup_order', 'search_knowledge_base', 'create_ticket']
    assert card['counts'] == {
        'tools': 3,
        'native_tools': 0,
        'toolsets': 1,
        'mcp_toolsets': 0,
        'capabilities': 0,
        'subagents': 0,
    }
    stateless = {c['slug'] for c in body['agents'] if c['stateless']}
    assert stateless == {'synapse_agents.demo.agents.summariser'}


def test_agent_detail_is_the_full_info(client: TestClient) -> None:
    response = client.get(f'/api/agents/{SUPPORT}')
    assert response.status_code == 200
    info = response.json()
    assert set(info) == {field.alias or name for name, field in AgentInfo.model_fields.items()}
    assert info['tools'][0]['name'] == 'lookup_order' and info['tools'][0]['required'] == ['order_id']
    assert info['tools'][0]['parameters']['properties']['order_id']['type'] == 'string'
    assert info['output'] == {
        'type': 'str',
        'mode': 'text',
        'schema': None,
        'schema_error': None,
        'tools': [],
        'text_function': None,
        'validators': [],
        'deferred': None,
    }
    no_deps = {'type': None, 'factory': None, 'required': False, 'source': None, 'lifetime': None}
    assert info['deps'] == no_deps
    assert info['deps_schema'] is None
    orchestrator = client.get('/api/agents/synapse_agents.demo.agents.orchestrator').json()
    assert orchestrator['subagents'][0]['slug'] == 'synapse_agents.demo.agents.summariser'


def test_unknown_slug_and_import_paths_are_json_404s(client: TestClient) -> None:
    for slug in ('nope', 'synapse_agents.demo.agents', 'synapse_agents.demo.agents.support_agent', 'os.path'):
        response = client.get(f'/api/agents/{slug}')
        assert response.status_code == 404
        assert response.json() == {'error': {'code': 'not_found', 'message': f"No agent with slug '{slug}'."}}


def test_fixture_project_with_problems_and_a_missing_key(
    client_for: Callable[..., TestClient], isolated_env: Path
) -> None:
    project = FixtureProject(isolated_env).write(
        {
            'agents/keyed.py': "from pydantic_ai import Agent\nsupport = Agent('openai:gpt-4o')\n",
            'agents/broken.py': "from pydantic_ai import Agent\nraise ValueError('bad agent config')\n",
        }
    )
    client = client_for([], project.root)
    body = client.get('/api/agents').json()
    assert body['targets'] == ['./agents']
    [card] = body['agents']
    assert card['slug'] == 'agents.keyed.support'
    assert card['model']['id'] == 'openai:gpt-4o'
    assert (
        card['problems'][0]['code'] == 'missing_api_key'
        and card['problems'][0]['env_var'] == 'OPENAI_API_KEY'
    )
    [problem] = body['problems']
    assert problem['kind'] == 'import_error' and problem['module'] == 'agents.broken'
    assert problem['exception'] == 'ValueError' and problem['message'] == 'bad agent config'
    assert problem['file'].endswith('agents/broken.py') and 'bad agent config' in problem['traceback']


def test_editing_an_agent_file_between_two_requests(
    client_for: Callable[..., TestClient], isolated_env: Path
) -> None:
    project = FixtureProject(isolated_env).write(
        {'agents/support.py': "from pydantic_ai import Agent\nsupport = Agent('test', instructions='B.')\n"}
    )
    client = client_for([], project.root)
    slug = 'agents.support.support'
    assert client.get(f'/api/agents/{slug}').json()['tools'] == []
    project.write(
        {
            'agents/support.py': """
                from pydantic_ai import Agent

                support = Agent('test', instructions='After.')
                second = Agent('test')


                @support.tool_plain
                def refund(order_id: str, amount: float) -> str:
                    '''Refund an order.'''
                    return order_id
            """
        }
    )
    info = client.get(f'/api/agents/{slug}').json()
    assert [tool['name'] for tool in info['tools']] == ['refund']
    assert info['tools'][0]['required'] == ['order_id', 'amount']
    assert info['instructions'][0]['text'] == 'After.'
    assert [card['slug'] for card in client.get('/api/agents').json()['agents']] == [
        slug,
        'agents.support.second',
    ]


def test_no_catalog_serves_no_agents(client: TestClient, context: object) -> None:
    context.catalog = None  # type: ignore[attr-defined]
    body = client.get('/api/agents').json()
    assert body['agents'] == [] and body['problems'] == []
    assert client.get(f'/api/agents/{SUPPORT}').status_code == 404


def test_cli_json_is_the_api_payload(client_for: Callable[..., TestClient], isolated_env: Path) -> None:
    from typer.testing import CliRunner

    from synapse_agents.cli import app

    FixtureProject(isolated_env).write(
        {
            'agents/a.py': "from pydantic_ai import Agent\na = Agent('anthropic:claude-sonnet-4-5')\n",
            'agents/b.py': 'import not_installed_anywhere\n',
        }
    )
    client = client_for([], isolated_env)
    result = CliRunner().invoke(app, ['agents', '--json'])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == client.get('/api/agents').json()
