"""`GET /api/agents/{slug}/model-tools`: the tools as the model receives them, checked against what a
`FunctionModel` is handed when the same agent runs."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.tools import ToolDefinition

from fixtures.projects import FixtureProject, write_files
from synapse_agents.chat import plugin as playground
from synapse_agents.registry.tables import AgentConfig, Preset
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.store import Store
from synapse_agents.web.routes import model_tools as route

pytestmark = pytest.mark.any_database(
    reason="the tools come from the agent's own toolsets, not from the store"
)

TOOLBOX = 'agents.toolbox.agent'

TOOLBOX_SOURCE = '''
from dataclasses import dataclass, replace

from pydantic import BaseModel
from pydantic_ai import Agent, RunContext
from pydantic_ai.capabilities import PrepareTools
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import ExternalToolset, FunctionToolset


@dataclass
class Deps:
    role: str


def make_deps() -> Deps:
    return Deps(role='admin')


class Verdict(BaseModel):
    ok: bool
    reason: str


db = FunctionToolset(id='db')


@db.tool_plain
def query(sql: str, limit: int = 10) -> str:
    """Run a read-only query."""
    return sql


@db.tool_plain
def drop_table(name: str) -> str:
    """Drop a table."""
    return name


shared = FunctionToolset(id='shared')


@shared.tool_plain
def fetch(key: str) -> str:
    """Fetch a key."""
    return key


def no_drops(ctx: RunContext[Deps], tool_def: ToolDefinition) -> bool:
    return not tool_def.name.startswith('drop')


async def shout(ctx: RunContext[Deps], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
    return [replace(d, description=(d.description or '').upper()) for d in tool_defs]


async def strict_lookup(ctx: RunContext[Deps], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
    return [replace(d, strict=True) if d.name == 'lookup' else d for d in tool_defs]


humans = ExternalToolset(
    [
        ToolDefinition(
            name='approve_refund',
            description='Ask a person to approve a refund.',
            parameters_json_schema={
                'type': 'object',
                'properties': {'amount': {'type': 'number'}},
                'required': ['amount'],
            },
        )
    ],
    id='humans',
)

agent = Agent(
    deps_type=Deps,
    output_type=Verdict,
    metadata={'synapse.deps_factory': make_deps},
    toolsets=[
        db.prefixed('db'),
        db.renamed({'sql': 'query', 'drop': 'drop_table'}).filtered(no_drops),
        shared.prefixed('a'),
        shared.prefixed('b'),
        shared.prepared(shout).prefixed('loud'),
        humans,
    ],
    capabilities=[PrepareTools(strict_lookup)],
)


async def hide(ctx: RunContext[Deps], tool_def: ToolDefinition) -> ToolDefinition | None:
    return None


async def for_role(ctx: RunContext[Deps], tool_def: ToolDefinition) -> ToolDefinition | None:
    return replace(tool_def, description=f'Look a term up (as {ctx.deps.role}).')


@agent.tool(prepare=hide)
def hidden(ctx: RunContext[Deps]) -> str:
    """Never offered."""
    return ''


@agent.tool_plain(prepare=for_role, sequential=True)
def lookup(term: str) -> str:
    """Static description."""
    return term


@agent.tool_plain(requires_approval=True)
def refund(order_id: str) -> str:
    """Refund an order."""
    return order_id


def purge_cache() -> str:
    """Empty the cache."""
    return ''


@agent.toolset
def by_role(ctx: RunContext[Deps]) -> FunctionToolset[Deps] | None:
    return FunctionToolset([purge_cache]) if ctx.deps.role == 'admin' else None
'''

OTHERS_SOURCE = '''
import anyio
from dataclasses import dataclass
from pydantic_ai import Agent, RunContext
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.tools import ToolDefinition


@dataclass
class Account:
    id: str


needs_deps = Agent(deps_type=Account)


async def no_account() -> Account:
    raise LookupError('no account today')


unlucky = Agent(deps_type=Account, metadata={'synapse.deps_factory': no_account})

failing = Agent()


async def explode(ctx: RunContext[None], tool_def: ToolDefinition) -> ToolDefinition | None:
    raise ValueError('prepare exploded')


@failing.tool_plain(prepare=explode)
def fragile() -> str:
    return ''


refused = MCPToolset('http://127.0.0.1:9/mcp')
servers = Agent(toolsets=[refused, MCPToolset('{watched}', id='watched').prefixed('w')])


@servers.tool_plain
def local() -> str:
    """A local tool."""
    return ''


@servers.toolset
def late(ctx: RunContext[None]) -> MCPToolset:
    return MCPToolset('{watched}', id='late')


slow = Agent()


@slow.toolset
async def sleepy(ctx: RunContext[None]) -> None:
    await anyio.sleep(5)
'''


def test_the_route_is_synapses_own() -> None:
    assert route.router in playground.register_routes()


@pytest.fixture
def watched() -> Iterator[socket.socket]:
    """A listening socket: any connection attempt to it is seen."""
    server = socket.create_server(('127.0.0.1', 0))
    server.setblocking(False)
    yield server
    server.close()


@pytest.fixture
def served(
    client_for: Callable[..., TestClient], isolated_env: Path, watched: socket.socket
) -> tuple[TestClient, SynapseContext]:
    url = f'http://127.0.0.1:{watched.getsockname()[1]}/mcp'
    project = FixtureProject(isolated_env).write(
        {'agents/toolbox.py': TOOLBOX_SOURCE, 'agents/others.py': OTHERS_SOURCE.replace('{watched}', url)}
    )
    client = client_for([], project.root)
    return client, client.app.state.synapse  # type: ignore[attr-defined]


class _Stop(Exception):
    """Ends the test's own capturing run at its first model request."""


async def received(agent: Agent[Any, Any], deps: Any) -> AgentInfo:
    """What a `FunctionModel` is handed on the first request of an ordinary run of `agent`."""
    seen: list[AgentInfo] = []

    def keep(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info)
        raise _Stop

    with pytest.raises(_Stop):
        await agent.run('Hello.', model=FunctionModel(keep), deps=deps)
    return seen[0]


def _wire(definition: ToolDefinition) -> dict[str, Any]:
    return {
        'name': definition.name,
        'description': definition.description,
        'parameters': definition.parameters_json_schema,
        'strict': definition.strict,
        'kind': definition.kind,
        'sequential': definition.sequential,
    }


def _shown(tool: dict[str, Any]) -> dict[str, Any]:
    return {key: tool[key] for key in ('name', 'description', 'parameters', 'strict', 'kind', 'sequential')}


def _wrappers(tool: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    return [(step['class'], step['kind'], step['detail']) for step in tool['origin']['wrappers']]


def test_every_wrapper_kind_matches_what_the_model_receives(
    served: tuple[TestClient, SynapseContext],
) -> None:
    client, context = served
    response = client.get(f'/api/agents/{TOOLBOX}/model-tools')
    assert response.status_code == 200, response.text
    view = response.json()
    found = context.catalog.scan().get(TOOLBOX)  # type: ignore[union-attr]
    assert found is not None and found.deps_factory is not None
    info = anyio.run(received, found.agent, found.deps_factory())
    assert [_shown(t) for t in view['tools']] == [_wire(d) for d in info.function_tools]
    assert [_shown(t) for t in view['output_tools']] == [_wire(d) for d in info.output_tools]
    assert view['allow_text_output'] is info.allow_text_output is False
    assert view['output_mode'] == 'tool' and view['mcp_skipped'] == []
    tools = {t['name']: t for t in view['tools']}
    assert set(tools) == {
        'lookup', 'refund', 'db_query', 'db_drop_table', 'sql', 'a_fetch', 'b_fetch', 'loud_fetch',
        'approve_refund', 'purge_cache',
    }  # fmt: skip
    assert view['slug'] == TOOLBOX and view['name'] == 'agent' and view['resolve_ms'] >= 0

    lookup = tools['lookup']  # its own prepare (with the factory's deps), then the PrepareTools capability
    assert lookup['description'] == 'Look a term up (as admin).' and lookup['strict'] is True
    assert lookup['sequential'] is True and lookup['dynamic'] is True
    assert lookup['origin']['toolset'] == 'FunctionToolset' and lookup['origin']['id'] == '<agent>'
    assert _wrappers(lookup) == [
        ('PrepareTools', 'capability', 'prepare_tools'),
        ('Tool', 'tool', 'prepare for_role'),
    ]
    assert tools['refund']['kind'] == 'unapproved' and tools['refund']['origin']['label'] == 'agent'

    assert _wrappers(tools['db_query']) == [('PrefixedToolset', 'toolset', "prefix 'db'")]
    assert tools['db_query']['origin']['name'] == 'query' and tools['db_query']['origin']['id'] == 'db'
    assert tools['db_query']['dynamic'] is False
    assert tools['sql']['origin']['name'] == 'query'  # renamed, and `drop` filtered out
    assert _wrappers(tools['sql']) == [
        ('FilteredToolset', 'toolset', 'filter no_drops'),
        ('RenamedToolset', 'toolset', "renamed from 'query'"),
    ]
    for prefix in ('a', 'b'):  # one toolset used twice
        fetch = tools[f'{prefix}_fetch']
        assert (fetch['origin']['id'], fetch['origin']['name']) == ('shared', 'fetch')
        assert _wrappers(fetch) == [('PrefixedToolset', 'toolset', f'prefix {prefix!r}')]
    loud = tools['loud_fetch']
    assert loud['description'] == 'FETCH A KEY.' and loud['dynamic'] is True
    assert _wrappers(loud) == [
        ('PrefixedToolset', 'toolset', "prefix 'loud'"),
        ('PreparedToolset', 'toolset', 'prepare shout'),
    ]
    external = tools['approve_refund']
    assert external['kind'] == 'external' and external['origin']['toolset'] == 'ExternalToolset'
    assert external['origin']['id'] == 'humans' and external['parameters']['required'] == ['amount']
    purge = tools['purge_cache']  # built by the dynamic toolset, for the admin the factory returns
    assert purge['dynamic'] is True and purge['description'] == 'Empty the cache.'
    assert _wrappers(purge) == [('DynamicToolset', 'toolset', 'built per run step by by_role')]

    [output] = view['output_tools']
    assert output['kind'] == 'output' and output['origin']['id'] == '<output>'
    assert set(output['parameters']['properties']) == {'ok', 'reason'}
    assert view['dynamic'] is True and 'first request' in view['note']


def test_the_resolving_run_records_no_spans(served: tuple[TestClient, SynapseContext]) -> None:
    client, context = served
    found = context.catalog.scan().get(TOOLBOX)  # type: ignore[union-attr]
    assert found is not None and found.deps_factory is not None
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    found.agent.instrument = InstrumentationSettings(tracer_provider=provider)
    assert client.get(f'/api/agents/{TOOLBOX}/model-tools').status_code == 200
    assert spans.get_finished_spans() == ()
    anyio.run(received, found.agent, found.deps_factory())  # an ordinary run on that agent is recorded
    assert spans.get_finished_spans() != ()


def test_unknown_slug_is_a_json_404(served: tuple[TestClient, SynapseContext]) -> None:
    client, _ = served
    response = client.get('/api/agents/agents.nope.agent/model-tools')
    assert response.status_code == 404
    assert response.json() == {
        'error': {'code': 'not_found', 'message': "No agent with slug 'agents.nope.agent'."}
    }


def test_deps_without_a_factory_is_a_409(served: tuple[TestClient, SynapseContext]) -> None:
    client, _ = served
    response = client.get('/api/agents/agents.others.needs-deps/model-tools')
    assert response.status_code == 409
    error = response.json()['error']
    assert error['code'] == 'deps_unavailable' and 'synapse.deps_factory' in error['message']
    assert '[tool.synapse.deps]: "agents.others:needs_deps" = "your.module:make_deps"' in error['message']


def test_a_prepare_that_raises_is_a_422_naming_the_exception(
    served: tuple[TestClient, SynapseContext],
) -> None:
    client, _ = served
    response = client.get('/api/agents/agents.others.failing/model-tools')
    assert response.status_code == 422
    error = response.json()['error']
    assert error['code'] == 'resolve_failed' and error['exception'] == 'ValueError'
    assert 'prepare exploded' in error['message']
    error = client.get('/api/agents/agents.others.unlucky/model-tools').json()['error']
    assert (error['code'], error['exception']) == ('resolve_failed', 'LookupError')
    assert 'no account today' in error['message']


def test_mcp_toolsets_are_skipped_without_connecting(
    served: tuple[TestClient, SynapseContext], watched: socket.socket
) -> None:
    client, _ = served
    assert client.get('/api/agents').status_code == 200  # the project is scanned before the clock starts
    started = time.monotonic()
    response = client.get('/api/agents/agents.others.servers/model-tools')
    assert time.monotonic() - started < 3  # no MCP connect attempt (each would wait for its timeout)
    assert response.status_code == 200, response.text
    view = response.json()
    assert [t['name'] for t in view['tools']] == ['local']
    assert view['mcp_skipped'] == ["MCPToolset '127.0.0.1'", "MCPToolset 'watched'", "MCPToolset 'late'"]
    with pytest.raises(BlockingIOError):  # nothing knocked on the watched server
        watched.accept()


def test_a_slow_resolution_is_a_504(
    served: tuple[TestClient, SynapseContext], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, _ = served
    monkeypatch.setattr(route, 'RESOLVE_SECONDS', 0.3)
    assert client.get('/api/agents').status_code == 200  # the project is scanned before the clock starts
    started = time.monotonic()
    response = client.get('/api/agents/agents.others.slow/model-tools')
    assert response.status_code == 504 and time.monotonic() - started < 3
    assert response.json()['error']['code'] == 'timeout'


def test_a_configured_agent_resolves_its_registry_tools(
    store: Store, client_for: Callable[..., TestClient], context: SynapseContext
) -> None:
    write_files(
        context.loaded.project_root,
        {
            'agents/tools.py': '''
                import synapse_agents


                @synapse_agents.tool(tags=['math'])
                def add(a: int, b: int) -> int:
                    """Add two numbers."""
                    return a + b
            '''
        },
    )
    with store.write() as session:
        session.add_all(
            [
                Preset(key='careful', model='demo'),
                AgentConfig(key='helper', preset_key='careful', tools=['tag:math']),
                AgentConfig(key='broken', tools=['nope']),
            ]
        )
    client = client_for(['agents'])
    view = client.get('/api/agents/config:helper/model-tools').json()
    assert [(t['name'], t['kind']) for t in view['tools']] == [('add', 'function')]
    assert view['tools'][0]['parameters']['required'] == ['a', 'b'] and view['slug'] == 'config:helper'
    broken = client.get('/api/agents/config:broken/model-tools')
    assert broken.status_code == 409 and broken.json()['error']['code'] == 'agent_unavailable'
    assert client.get('/api/agents/config:nope/model-tools').status_code == 404
