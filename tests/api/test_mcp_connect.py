"""`POST /api/agents/{slug}/mcp/{index}/connect`: a real stdio MCP server, started for the request and
stopped after it; servers that cannot be reached, do not answer, or only connect inside a run."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from fixtures.projects import FixtureProject
from synapse_agents.chat import plugin as playground
from synapse_agents.web.routes import mcp as route

pytestmark = pytest.mark.any_database(
    reason='connecting an MCP server starts a process and reads nothing stored'
)

NOTES = 'agents.notes.notes'
OTHERS = 'agents.others.others'

SERVER = '''
import os
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

Path(sys.argv[1]).write_text(str(os.getpid()))
server = MCPServer('notes')


@server.tool()
def add_note(text: str, tags: list[str] | None = None) -> str:
    """Store a note."""
    return 'stored'


@server.tool()
def count_notes() -> int:
    """How many notes there are."""
    return 0


server.run()
'''

SILENT = """
import time

time.sleep(60)
"""

NOTES_AGENT = f"""
from pathlib import Path

from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.capabilities import MCP
from pydantic_ai.mcp import MCPToolset

ROOT = Path(__file__).resolve().parents[1]
ARGS = [str(ROOT / 'servers' / 'notes.py'), str(ROOT / 'notes.pid')]
server = MCPToolset(StdioTransport(command={sys.executable!r}, args=ARGS))

notes = Agent('test', toolsets=[server], capabilities=[MCP(local=server)])
"""

OTHERS_AGENT = f"""
from pathlib import Path

from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent, RunContext
from pydantic_ai.mcp import MCPToolset

ROOT = Path(__file__).resolve().parents[1]


async def per_user(ctx: RunContext[None]) -> dict[str, str]:
    return {{'Authorization': 'Bearer per-user'}}


others = Agent(
    'test',
    toolsets=[
        MCPToolset(StdioTransport(command={sys.executable!r}, args=[str(ROOT / 'servers' / 'silent.py')])),
        MCPToolset(StdioTransport(command=str(ROOT / 'no-such-server'), args=['--token', 'hunter-s3cret'])),
        MCPToolset('http://ann:pw-s3cret@127.0.0.1:9/mcp?key=k3y-s3cret'),
        MCPToolset('http://127.0.0.1:9/mcp', headers=per_user),
    ],
)
"""


@pytest.fixture
def project(isolated_env: Path) -> FixtureProject:
    return FixtureProject(isolated_env).write(
        {
            'servers/notes.py': SERVER,
            'servers/silent.py': SILENT,
            'agents/notes.py': NOTES_AGENT,
            'agents/others.py': OTHERS_AGENT,
        }
    )


@pytest.fixture
def client(client_for: Callable[..., TestClient], project: FixtureProject) -> TestClient:
    return client_for([], project.root)


def gone(pid: int, within: float = 5.0) -> bool:
    """Whether process `pid` has ended (waiting up to `within` seconds)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_the_route_is_synapses_own() -> None:
    assert route.router in playground.register_routes()


def test_connect_lists_the_servers_tools_and_stops_the_server(
    client: TestClient, project: FixtureProject
) -> None:
    pid_file = project.root / 'notes.pid'
    info = client.get(f'/api/agents/{NOTES}').json()
    [server] = [t for t in info['toolsets'] if t['kind'] == 'mcp']  # given twice, one server
    assert (server['index'], server['capability'], server['class']) == (0, 'MCP', 'MCPToolset')
    assert server['description'].endswith(f'servers/notes.py {pid_file}')
    assert server['label'].startswith("MCPToolset '") and 'object at 0x' not in server['label']
    assert info['counts']['mcp_toolsets'] == 1
    assert not pid_file.exists()  # reading the agent never connects

    response = client.post(f'/api/agents/{NOTES}/mcp/0/connect')
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body['slug'], body['index'], body['label']) == (NOTES, 0, server['label'])
    assert body['description'] == server['description'] and body['connect_ms'] >= 0
    tools = {tool['name']: tool for tool in body['tools']}
    assert list(tools) == ['add_note', 'count_notes']
    assert tools['add_note']['description'] == 'Store a note.'
    schema = tools['add_note']['input_schema']
    assert schema['required'] == ['text'] and set(schema['properties']) == {'text', 'tags'}
    assert tools['count_notes']['input_schema']['type'] == 'object'

    pid = int(pid_file.read_text())
    assert gone(pid), 'the server process is still running after the route answered'
    assert client.post(f'/api/agents/{NOTES}/mcp/0/connect').status_code == 200  # again, a new process
    assert int(pid_file.read_text()) != pid


def test_the_model_tools_view_skips_that_server_once(client: TestClient, project: FixtureProject) -> None:
    view = client.get(f'/api/agents/{NOTES}/model-tools').json()
    assert len(view['mcp_skipped']) == 1 and view['tools'] == []
    assert not (project.root / 'notes.pid').exists()


def test_unknown_index_or_slug_is_a_404(client: TestClient) -> None:
    response = client.post(f'/api/agents/{NOTES}/mcp/1/connect')
    assert response.status_code == 404
    assert response.json()['error']['message'] == f'{NOTES} has 1 MCP server: no MCP server 1.'
    assert client.post(f'/api/agents/{NOTES}/mcp/-1/connect').status_code == 404
    assert client.post('/api/agents/agents.nope.x/mcp/0/connect').status_code == 404
    assert client.post(f'/api/agents/{NOTES}/mcp/zero/connect').status_code == 422


def test_a_server_that_does_not_answer_is_a_504(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(route, 'CONNECT_SECONDS', 0.5)
    started = time.monotonic()
    response = client.post(f'/api/agents/{OTHERS}/mcp/0/connect')
    assert response.status_code == 504 and time.monotonic() - started < 8
    error = response.json()['error']
    assert error['code'] == 'timeout' and 'did not answer within 0.5 seconds' in error['message']


def test_a_server_that_cannot_be_reached_is_a_502_naming_why(client: TestClient) -> None:
    missing = client.post(f'/api/agents/{OTHERS}/mcp/1/connect')
    assert missing.status_code == 502
    error = missing.json()['error']
    assert error['code'] == 'mcp_unreachable' and error['exception']
    assert 'could not be reached' in error['message'] and 'no-such-server' in error['message']
    refused = client.post(f'/api/agents/{OTHERS}/mcp/2/connect')
    assert refused.status_code == 502 and refused.json()['error']['code'] == 'mcp_unreachable'
    assert "MCPToolset '127.0.0.1'" in refused.json()['error']['message']
    for answer in (missing, refused, client.get(f'/api/agents/{OTHERS}')):
        assert 's3cret' not in answer.text


def test_a_toolset_that_connects_per_run_is_a_409(client: TestClient) -> None:
    response = client.post(f'/api/agents/{OTHERS}/mcp/3/connect')
    assert response.status_code == 409
    error = response.json()['error']
    assert error['code'] == 'mcp_needs_run' and 'run context' in error['message']
