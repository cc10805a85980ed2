"""AgentInfo facts beyond the basics: output validators, per-tool retries and prepare functions,
output tools as pydantic-ai builds them, MCP servers named and listed once, native tools once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel

from fixtures.projects import FixtureProject, isolated_imports
from synapse_agents.discovery import Catalog, CatalogSnapshot, DiscoveredAgent
from synapse_agents.discovery.model_tools import model_tools

FACTS = '''
from pydantic import BaseModel
from pydantic_ai import Agent, RunContext, TextOutput, ToolOutput
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import FunctionToolset


class Card(BaseModel):
    name: str


def shout(text: str) -> str:
    """Shout the answer."""
    return text.upper()


def summarise(ctx: RunContext[None], text: str, words: int = 5) -> str:
    """Summarise the answer."""
    return text


def polish(text: str) -> str:
    return text.strip()


async def only_admins(ctx: RunContext[None], tool_def: ToolDefinition) -> ToolDefinition | None:
    return tool_def


careful = FunctionToolset(max_retries=2, id='careful')


@careful.tool_plain
def inherit(x: int) -> int:
    """Uses the toolset's budget."""
    return x


@careful.tool_plain(retries=5)
def own(x: int) -> int:
    """Has its own budget."""
    return x


writer = Agent(
    'test',
    output_type=[ToolOutput(shout, name='loud'), summarise, Card],
    toolsets=[careful],
    retries={'tools': 1, 'output': 3},
)


@writer.tool_plain(retries=4, prepare=only_admins)
def lookup(term: str) -> str:
    """Look a term up."""
    return term


@writer.tool_plain
def plain(term: str) -> str:
    """No budget, no prepare."""
    return term


@writer.output_validator
def not_empty(output: str) -> str:
    return output


@writer.output_validator
async def checked(ctx: RunContext[None], output: str) -> str:
    return output


texter = Agent('test', output_type=TextOutput(polish))
'''

SERVERS = '''
from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.capabilities import MCP, NativeTool, WebSearch
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.native_tools import WebSearchTool

ARGS = ['-y', '@modelcontextprotocol/server-filesystem', '/data', '--token', 't0ps3cret']
files = MCPToolset(StdioTransport(command='npx', args=ARGS))
remote = MCPToolset('https://ann:pw@mcp.example.com/mcp?key=k3y')

both = Agent('test', toolsets=[files], capabilities=[MCP(local=files)])
plain_servers = Agent('test', toolsets=[files, remote])
hosted = Agent('test', capabilities=[MCP('https://mcp.example.com/mcp', native=True)])


def search_locally(query: str) -> str:
    """Search without the provider."""
    return query


searcher = Agent('test', capabilities=[WebSearch(), NativeTool(WebSearchTool())])
fallback = Agent('test', capabilities=[WebSearch(local=search_locally)])
'''


@pytest.fixture
def snapshot(isolated_env: Path) -> Iterator[CatalogSnapshot]:
    with isolated_imports(isolated_env.parent):
        project = FixtureProject(isolated_env).write({'agents/facts.py': FACTS, 'agents/servers.py': SERVERS})
        snapshot = Catalog([], project.root).scan()
        assert snapshot.problems == []
        yield snapshot


def agent(snapshot: CatalogSnapshot, slug: str) -> DiscoveredAgent:
    found = snapshot.get(slug)
    assert found is not None, f'{slug} not in {[a.slug for a in snapshot.agents]}'
    return found


class _Stop(Exception):
    """Ends a capturing run at its first model request."""


def received(agent: Agent[Any, Any]) -> AgentInfo:
    """What a `FunctionModel` is handed on the first request of an ordinary run."""
    seen: list[AgentInfo] = []

    def keep(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info)
        raise _Stop

    with pytest.raises(_Stop):
        agent.run_sync('Hello.', model=FunctionModel(keep))
    return seen[0]


def test_output_tools_are_the_ones_pydantic_ai_offers_the_model(snapshot: CatalogSnapshot) -> None:
    writer = agent(snapshot, 'agents.facts.writer')
    output = writer.info.output
    assert output.mode == 'tool' and output.text_function is None
    offered = received(writer.agent).output_tools
    assert [(t.name, t.description, t.parameters) for t in output.tools] == [
        (d.name, d.description, d.parameters_json_schema) for d in offered
    ]
    assert [(t.name, t.function) for t in output.tools] == [
        ('loud', 'shout'),
        ('final_result_summarise', 'summarise'),
        ('final_result_Card', None),
    ]
    summarise = output.tools[1].parameters
    assert summarise['required'] == ['text'] and set(summarise['properties']) == {'text', 'words'}

    texter = agent(snapshot, 'agents.facts.texter').info.output
    assert (texter.mode, texter.text_function, texter.tools) == ('text', 'polish', [])


def test_output_validators_are_listed_with_whether_they_take_ctx(snapshot: CatalogSnapshot) -> None:
    validators = agent(snapshot, 'agents.facts.writer').info.output.validators
    assert [(v.name, v.takes_ctx) for v in validators] == [('not_empty', False), ('checked', True)]
    assert all(v.location and v.location.startswith('agents/facts.py:') for v in validators)
    assert agent(snapshot, 'agents.facts.texter').info.output.validators == []


def test_each_tool_shows_its_retry_budget_and_prepare_function(snapshot: CatalogSnapshot) -> None:
    info = agent(snapshot, 'agents.facts.writer').info
    tools = {tool.name: (tool.max_retries, tool.prepare) for tool in info.tools}
    assert tools == {
        'lookup': (4, 'only_admins'),
        'plain': (None, None),  # the agent's budget, `retries.tools`
        'inherit': (2, None),  # its toolset's
        'own': (5, None),
    }
    assert info.retries.tools == 1


def test_mcp_servers_are_named_without_an_id_and_listed_once(snapshot: CatalogSnapshot) -> None:
    both = agent(snapshot, 'agents.servers.both').info
    assert [(t.kind, t.class_, t.index, t.capability) for t in both.toolsets] == [
        ('mcp', 'MCPToolset', 0, 'MCP')
    ]
    [server] = both.toolsets
    assert server.label == "MCPToolset 'npx -y @modelcontextprotocol/server-filesystem /data --toke…'"
    assert server.description == 'npx -y @modelcontextprotocol/server-filesystem /data --token ********'
    assert both.counts.mcp_toolsets == 1

    plain = agent(snapshot, 'agents.servers.plain-servers').info
    assert [(t.label, t.description, t.index, t.capability) for t in plain.toolsets] == [
        (server.label, server.description, 0, None),
        ("MCPToolset 'mcp.example.com'", 'https://mcp.example.com/mcp', 1, None),
    ]
    assert 't0ps3cret' not in plain.model_dump_json() and 'k3y' not in plain.model_dump_json()

    hosted = agent(snapshot, 'agents.servers.hosted').info
    assert [(t.kind, t.class_) for t in hosted.native_tools] == [('mcp_server', 'MCPServerTool')]
    assert [(t.kind, t.label, t.capability, t.native_fallback) for t in hosted.toolsets] == [
        ('mcp', "MCPToolset 'mcp.example.com'", 'MCP', 'mcp_server:mcp.example.com')
    ]


def test_the_model_tools_view_skips_a_server_given_twice_once(snapshot: CatalogSnapshot) -> None:
    view = anyio.run(model_tools, agent(snapshot, 'agents.servers.both').agent)
    assert view.mcp_skipped == ["MCPToolset 'npx -y @modelcontextprotocol/server-filesystem /data --toke…'"]


def test_a_native_tool_appears_once_in_each_list(snapshot: CatalogSnapshot) -> None:
    searcher = agent(snapshot, 'agents.servers.searcher')
    assert [(t.kind, t.class_) for t in searcher.info.native_tools] == [('web_search', 'WebSearchTool')]
    assert searcher.info.tools == [] and searcher.info.toolsets == []
    assert searcher.info.counts.native_tools == 1
    assert [type(t).__name__ for t in received(searcher.agent).model_request_parameters.native_tools] == [
        'WebSearchTool'
    ]
    view = anyio.run(model_tools, searcher.agent)
    assert [(t.kind, t.class_) for t in view.native_tools] == [('web_search', 'WebSearchTool')]
    assert view.tools == []


def test_a_local_fallback_is_marked_and_the_model_tools_view_lists_the_native_tool(
    snapshot: CatalogSnapshot,
) -> None:
    found = agent(snapshot, 'agents.servers.fallback')
    info = found.info
    assert [(t.kind, t.class_) for t in info.native_tools] == [('web_search', 'WebSearchTool')]
    assert [(t.name, t.native_fallback) for t in info.tools] == [('search_locally', 'web_search')]
    assert [(t.kind, t.class_, t.capability, t.native_fallback) for t in info.toolsets] == [
        ('function', 'FunctionToolset', 'WebSearch', 'web_search')
    ]
    view = anyio.run(model_tools, found.agent)
    # A model that has native web search is not offered the fallback, as pydantic-ai decides.
    assert view.tools == [] and [t.kind for t in view.native_tools] == ['web_search']
    assert [d.name for d in received(found.agent).function_tools] == []
