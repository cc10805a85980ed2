"""AgentInfo: what each agent will send to its model, on the demo agents and on fixture agents."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures.projects import FixtureProject, isolated_imports
from synapse_agents.discovery import Catalog, CatalogSnapshot, DiscoveredAgent
from synapse_agents.web.server import DEMO_TARGET

RICH = '''
from dataclasses import dataclass

from fastmcp.client.transports import StdioTransport
from pydantic import BaseModel
from pydantic_ai import Agent, NativeOutput, RunContext
from pydantic_ai.capabilities import NativeTool, Thinking, WebSearch
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.native_tools import CodeExecutionTool
from pydantic_ai.toolsets import FunctionToolset


@dataclass
class Deps:
    user: str


class Card(BaseModel):
    name: str
    email: str | None = None


math = FunctionToolset(id='math')


@math.tool_plain
def add(a: int, b: int = 2) -> int:
    """Add two numbers."""
    return a + b


files = MCPToolset(
    StdioTransport(
        command='npx', args=['-y', '@modelcontextprotocol/server-filesystem', '/data'], env={'TOKEN': 's3'}
    ),
    id='files',
)
remote = MCPToolset('https://user:secret@mcp.example.com/mcp?token=abc')


def make_deps() -> Deps:
    return Deps('ann')


rich_agent = Agent(
    'test',
    name='rich',
    description='Shows everything.',
    deps_type=Deps,
    output_type=[Card, str],
    instructions=['Be precise.', 'Answer in English.'],
    system_prompt='You are a system prompt.',
    model_settings={'temperature': 0.2, 'max_tokens': 512, 'top_p': 0.9},
    retries={'tools': 3, 'output': 2},
    end_strategy='exhaustive',
    tool_timeout=30,
    toolsets=[math, files, remote],
    capabilities=[WebSearch(local=False), NativeTool(CodeExecutionTool()), Thinking()],
    metadata={'synapse.stateless': True, 'synapse.deps_factory': make_deps, 'team': 'support'},
)


@rich_agent.instructions
def greet(ctx: RunContext[Deps]) -> str:
    return f'The user is {ctx.deps.user}.'


@rich_agent.tool
def whoami(ctx: RunContext[Deps], loud: bool) -> str:
    """Say who the user is.

    Args:
        loud: Shout it.
    """
    return ctx.deps.user


native = Agent('test', output_type=NativeOutput(Card), deps_type=Deps)
bare = Agent(model_settings=lambda ctx: {'temperature': 0.5})
'''

SCHEMAS = '''
import socket

from pydantic_ai import Agent, Tool

agent = Agent('test')


@agent.tool_plain
def needs_socket(sock: socket.socket) -> str:
    """Uses something pydantic cannot describe."""
    return ''


@agent.tool_plain
def fine(x: int) -> int:
    """A fine tool."""
    return x


class ExplodingTool(Tool):
    @property
    def tool_def(self):
        raise RuntimeError('no schema today')


def other(y: str) -> str:
    """Another tool."""
    return y


agent.toolsets[0].add_tool(ExplodingTool(other))
'''


@pytest.fixture
def project(isolated_env: Path) -> Iterator[FixtureProject]:
    with isolated_imports(isolated_env.parent):
        yield FixtureProject(isolated_env)


@pytest.fixture(scope='module')
def demo() -> CatalogSnapshot:
    return Catalog([DEMO_TARGET], Path.cwd()).scan()


def line_of(text: str) -> int:
    """The line of RICH (as written to disk) that starts with `text`."""
    lines = RICH.lstrip('\n').splitlines()
    return next(
        number for number, line in enumerate(lines, 1) if line.startswith(text) and line.strip() == text
    )


def agent(snapshot: CatalogSnapshot, slug: str) -> DiscoveredAgent:
    found = snapshot.get(slug)
    assert found is not None, f'{slug} not in {[a.slug for a in snapshot.agents]}'
    return found


# -- the demo agents ----------------------------------------------------------------------


def test_demo_agents_are_all_found_with_their_slugs(demo: CatalogSnapshot) -> None:
    assert demo.problems == []
    assert [a.slug for a in demo.agents] == [
        f'synapse_agents.demo.agents.{name}'
        for name in (
            'support-agent',
            'summariser',
            'structured-agent',
            'flaky-agent',
            'orchestrator',
            'deps-agent',
            'fallback-agent',
            'research-agent',
        )
    ] + ['synapse_agents.demo.approvals.ops-agent']
    for found in demo.agents:
        assert found.info.model is not None and found.info.model.is_demo
        assert found.info.model.provider == 'synapse'
        assert found.missing_env is None and found.info.problems == []


def test_demo_support_agent_tools_and_instructions(demo: CatalogSnapshot) -> None:
    support = agent(demo, 'synapse_agents.demo.agents.support-agent')
    info = support.info
    assert info.model is not None and (info.model.name, info.model.id) == (
        'synapse-demo',
        'synapse:synapse-demo',
    )
    assert info.description and 'online shop' in info.description
    assert [tool.name for tool in info.tools] == ['lookup_order', 'search_knowledge_base', 'create_ticket']
    lookup = info.tools[0]
    assert lookup.required == ['order_id'] and lookup.schema_error is None and lookup.toolset == 'agent'
    assert lookup.parameters is not None and 'order_id' in lookup.parameters['properties']
    assert lookup.description and lookup.description.startswith('Look up an order')
    assert info.instructions[0].kind == 'static' and 'support assistant' in (info.instructions[0].text or '')
    assert info.card().tools == ['lookup_order', 'search_knowledge_base', 'create_ticket']
    assert info.counts.tools == 3 and info.counts.toolsets == 1
    assert (info.retries.tools, info.retries.output, info.end_strategy) == (1, 1, 'graceful')


def test_demo_stateless_structured_deps_fallback_native_and_subagent(demo: CatalogSnapshot) -> None:
    assert agent(demo, 'synapse_agents.demo.agents.summariser').stateless
    structured = agent(demo, 'synapse_agents.demo.agents.structured-agent').info
    assert structured.structured_output and structured.output.type == 'TriageResult'
    assert structured.output.schema_ is not None and 'category' in structured.output.schema_['properties']

    deps = agent(demo, 'synapse_agents.demo.agents.deps-agent')
    assert deps.deps_required and deps.deps_factory is not None
    assert deps.deps_factory().company  # the demo's AccountDeps
    assert deps.info.deps.model_dump() == {
        'type': 'AccountDeps',
        'factory': 'synapse_agents.demo.agents:make_account_deps',
        'required': True,
        'source': 'metadata',
        'lifetime': None,
    }
    dynamic = deps.info.instructions[0]
    assert (dynamic.kind, dynamic.name) == ('dynamic', 'account_instructions')
    assert dynamic.location is not None and dynamic.location.endswith(
        'demo/agents.py:' + dynamic.location.split(':')[-1]
    )

    fallback = agent(demo, 'synapse_agents.demo.agents.fallback-agent').info.model
    assert fallback is not None and fallback.fallbacks == ['synapse:synapse-demo']

    research = agent(demo, 'synapse_agents.demo.agents.research-agent').info
    assert [(t.kind, t.class_) for t in research.native_tools] == [('web_search', 'WebSearchTool')]
    assert [c.class_ for c in research.capabilities] == ['WebSearch']

    orchestrator = agent(demo, 'synapse_agents.demo.agents.orchestrator').info
    assert [s.model_dump() for s in orchestrator.subagents] == [
        {
            'name': 'summariser',
            'slug': 'synapse_agents.demo.agents.summariser',
            'via_tool': 'delegate_to_summariser',
        }
    ]
    assert orchestrator.counts.subagents == 1


# -- a fixture agent with everything ------------------------------------------------------


def test_every_section_of_a_rich_agent(project: FixtureProject) -> None:
    project.write({'agents/rich.py': RICH})
    snapshot = Catalog([], project.root).scan()
    assert snapshot.problems == []
    found = agent(snapshot, 'agents.rich.rich-agent')
    info = found.info
    assert (found.name, info.description) == ('rich', 'Shows everything.')
    assert info.model_settings == {'temperature': 0.2, 'max_tokens': 512, 'top_p': 0.9}
    assert (info.retries.tools, info.retries.output, info.end_strategy, info.tool_timeout) == (
        3,
        2,
        'exhaustive',
        30,
    )
    assert info.output.type == 'Card | str' and info.output.mode == 'tool' and info.structured_output
    assert info.output.schema_ is not None
    assert (info.deps.type, info.deps.required) == ('Deps', True)
    assert info.deps.factory is not None and info.deps.factory.endswith(':make_deps')
    assert found.stateless and found.deps_factory is not None and found.deps_factory().user == 'ann'
    assert info.metadata == {
        'synapse.stateless': True,
        'synapse.deps_factory': info.metadata['synapse.deps_factory'],  # type: ignore[index]
        'team': 'support',
    }

    instructions = [(i.kind, i.source, i.text, i.name) for i in info.instructions]
    assert instructions[:3] == [
        ('static', 'system_prompt', 'You are a system prompt.', None),
        ('static', 'instructions', 'Be precise.', None),
        ('static', 'instructions', 'Answer in English.', None),
    ]
    assert instructions[3][:2] == ('dynamic', 'instructions') and instructions[3][3] == 'greet'
    assert info.instructions[3].location == f'agents/rich.py:{line_of("@rich_agent.instructions")}'

    assert [(t.name, t.toolset, t.required) for t in info.tools] == [
        ('whoami', 'agent', ['loud']),
        ('add', "FunctionToolset 'math'", ['a']),
    ]
    whoami = info.tools[0]
    assert whoami.takes_ctx and whoami.parameters is not None
    assert whoami.parameters['properties']['loud'] == {'description': 'Shout it.', 'type': 'boolean'}
    assert whoami.location == f'agents/rich.py:{line_of("@rich_agent.tool")}'

    toolsets = [(t.kind, t.class_, t.label, t.description, t.tools) for t in info.toolsets]
    assert toolsets == [
        ('function', 'FunctionToolset', 'agent', None, ['whoami']),
        ('function', 'FunctionToolset', "FunctionToolset 'math'", None, ['add']),
        (
            'mcp',
            'MCPToolset',
            "MCPToolset 'files'",
            'npx -y @modelcontextprotocol/server-filesystem /data',
            [],
        ),
        ('mcp', 'MCPToolset', "MCPToolset 'mcp.example.com'", 'https://mcp.example.com/mcp', []),
    ]
    dumped = info.model_dump_json()
    assert 's3' not in dumped and 'secret' not in dumped and 'token=abc' not in dumped

    assert [(t.kind, t.class_) for t in info.native_tools] == [
        ('web_search', 'WebSearchTool'),
        ('code_execution', 'CodeExecutionTool'),
    ]
    assert [c.class_ for c in info.capabilities] == ['WebSearch', 'NativeTool', 'Thinking']
    assert info.counts.model_dump() == {
        'tools': 2,
        'native_tools': 2,
        'toolsets': 4,
        'mcp_toolsets': 2,
        'capabilities': 3,
        'subagents': 0,
    }

    native = agent(snapshot, 'agents.rich.native').info
    assert (native.output.type, native.output.mode) == ('NativeOutput(Card)', 'native')
    assert [p.code for p in native.problems] == ['deps_factory_missing']
    assert "metadata={'synapse.deps_factory'" in native.problems[0].message

    bare = agent(snapshot, 'agents.rich.bare').info
    assert bare.model is None and bare.card().model is None  # "no model set"
    assert bare.model_settings is None and bare.model_settings_dynamic == '<lambda>'
    assert bare.output.type == 'str' and not bare.structured_output


def test_json_payload_uses_the_documented_field_names(demo: CatalogSnapshot) -> None:
    payload = agent(demo, 'synapse_agents.demo.agents.research-agent').info.model_dump(mode='json')
    assert payload['native_tools'][0]['class'] == 'WebSearchTool'
    assert 'schema' in payload['output'] and 'schema_' not in payload['output']
    assert set(payload) >= {
        'slug', 'name', 'module', 'attribute', 'description', 'model', 'tools', 'counts', 'stateless',
        'structured_output', 'problems', 'model_settings', 'retries', 'end_strategy', 'output', 'deps',
        'instructions', 'toolsets', 'native_tools', 'subagents', 'capabilities', 'metadata',
    }  # fmt: skip


# -- failures stay local ------------------------------------------------------------------


def test_a_tool_whose_schema_cannot_be_built_fails_that_tool_only(project: FixtureProject) -> None:
    project.write({'agents/schemas.py': SCHEMAS})
    snapshot = Catalog([], project.root).scan()
    assert snapshot.problems == []
    found = agent(snapshot, 'agents.schemas.agent')
    tools = {tool.name: tool for tool in found.info.tools}
    assert tools['fine'].schema_error is None and tools['fine'].parameters is not None
    broken = tools['needs_socket']
    assert broken.parameters is None and broken.schema_error is not None
    assert broken.schema_error.startswith('PydanticSchemaGenerationError')
    assert broken.description == 'Uses something pydantic cannot describe.'
    assert (
        tools['other'].parameters is None and tools['other'].schema_error == 'RuntimeError: no schema today'
    )
    assert [p.code for p in found.info.problems] == ['tool_schema_error', 'tool_schema_error']
    # Calling the broken tool says why instead of running it with unchecked arguments.
    tool = found.agent.toolsets[0].tools['needs_socket']  # type: ignore[attr-defined]
    with pytest.raises(Exception, match='schema could not be built'):
        tool.function_schema.function()


def test_outside_discovery_a_bad_tool_schema_still_raises() -> None:
    import socket

    from pydantic_ai import Agent

    agent_ = Agent('test')
    with pytest.raises(Exception, match='socket'):

        @agent_.tool_plain
        def needs_socket(sock: socket.socket) -> str:
            return ''


def test_a_section_that_cannot_be_read_is_an_inspect_error_and_the_rest_shows(
    project: FixtureProject,
) -> None:
    project.write(
        {
            'agents/odd.py': """
                from pydantic_ai import Agent


                class OddAgent(Agent):
                    @property
                    def output_type(self):
                        raise RuntimeError('the output type is unreadable')


                odd = OddAgent('test', instructions='Still readable.')
                fine = Agent('test')
            """
        }
    )
    snapshot = Catalog([], project.root).scan()
    odd = agent(snapshot, 'agents.odd.odd')
    assert odd.info.instructions[0].text == 'Still readable.'
    assert [p.code for p in odd.info.problems] == ['inspect_error']
    assert 'output' in odd.info.problems[0].message
    [problem] = snapshot.problems
    assert problem.kind == 'inspect_error' and problem.module == 'agents.odd'
    assert problem.exception == 'RuntimeError' and 'the output type is unreadable' in problem.traceback
    assert agent(snapshot, 'agents.odd.fine').info.problems == []


def test_deps_factory_variants(project: FixtureProject) -> None:
    project.write(
        {
            'agents/deps.py': """
                from pydantic_ai import Agent

                async def make_async():
                    return {'user': 'ann'}

                def needs_args(x):
                    return x

                def factory(spec):
                    return {'synapse.deps_factory': spec}

                ok = Agent('test', deps_type=dict, metadata=factory('agents.deps:make_async'))
                typo = Agent('test', deps_type=dict, metadata=factory('agents.deps:nope'))
                bad_module = Agent('test', deps_type=dict, metadata=factory('agents.nope_x:f'))
                not_string = Agent('test', deps_type=dict, metadata=factory('no colon'))
                args = Agent('test', deps_type=dict, metadata=factory(needs_args))
                optional = Agent('test', deps_type=dict | None)
                dynamic = Agent('test', metadata=lambda ctx: {'synapse.stateless': True})
            """
        }
    )
    snapshot = Catalog([], project.root).scan()
    ok = agent(snapshot, 'agents.deps.ok')
    assert ok.deps_factory is not None and ok.info.problems == []
    codes = {a.attribute: [p.code for p in a.info.problems] for a in snapshot.agents}
    assert codes == {
        'ok': [],
        'typo': ['deps_factory_invalid'],
        'bad_module': ['deps_factory_invalid'],
        'not_string': ['deps_factory_invalid'],
        'args': ['deps_factory_invalid'],
        'optional': [],
        'dynamic': [],
    }
    assert agent(snapshot, 'agents.deps.optional').deps_required is False
    assert agent(snapshot, 'agents.deps.dynamic').stateless is False  # per-run metadata: no options
    assert 'has no attribute' in agent(snapshot, 'agents.deps.typo').info.problems[0].message
