"""A pydantic-ai without one of the private names discovery uses still has every agent discovered.

Each name of `_pydantic_ai_internals.NAMES` is hidden in turn, the way a pydantic-ai release that
renamed it would look to Synapse: pydantic-ai's own code still finds it (its agents build and run),
Synapse's code does not. Discovery must still find every agent with its tools, run it, leave out
only the facts that name feeds (listed in `AgentInfo.unavailable`), and list the one degraded
feature, in `degraded_features()` and in `synapse agents` (table and `--json`).
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pydantic_ai
import pytest
from fastapi.testclient import TestClient
from pydantic_ai import Agent
from pydantic_ai._output import OutputToolset
from typer.testing import CliRunner

from fixtures.projects import FixtureProject, isolated_imports
from synapse_agents.cli import app
from synapse_agents.discovery import Catalog, CatalogSnapshot, _tool_schemas, degraded_features, keys
from synapse_agents.discovery import _pydantic_ai_internals as internals
from synapse_agents.discovery._pydantic_ai_internals import PrivateName

pytestmark = pytest.mark.any_database(reason='discovery finds agents in modules; nothing it checks is stored')

PROJECT = {
    'agents/shop.py': """
        from dataclasses import dataclass
        from typing import Any

        from pydantic_ai import Agent
        from pydantic_ai.capabilities import AbstractCapability


        @dataclass
        class Policy(AbstractCapability[Any]):
            def get_instructions(self) -> str:
                return 'Be polite.'


        def today() -> str:
            return 'Today is Monday.'


        shop = Agent(
            'test',
            instructions=['Help shoppers.', today],
            system_prompt='You run a shop.',
            retries={'tools': 4, 'output': 5},
            tool_timeout=7,
            output_type=int,
            metadata={'synapse.stateless': True},
            capabilities=[Policy()],
        )


        @shop.system_prompt
        def opening_hours() -> str:
            return 'Open 9 to 5.'


        @shop.output_validator
        def whole(value: int) -> int:
            return value


        @shop.tool_plain
        def lookup_order(order_id: str) -> str:
            '''Find an order.'''
            return f'order {order_id}'
    """,
    'agents/odd.py': """
        import socket

        from pydantic_ai import Agent

        odd = Agent('test')


        @odd.tool_plain
        def needs_socket(sock: socket.socket) -> str:
            '''Uses something pydantic cannot describe.'''
            return ''
    """,
    'agents/fast.py': "from pydantic_ai import Agent\nfast = Agent('groq:llama-3.3-70b-versatile')\n",
}

SHOP = 'agents.shop.shop'
ODD = 'agents.odd.odd'
FAST = 'agents.fast.fast'
LOST_AGENT = {'function_schema': ODD, 'FunctionSchema': ODD, 'infer_model': FAST}
"""For the patch points: the agent that is no longer discovered (its module fails to import)."""


def _from_synapse() -> bool:
    return str(sys._getframe(2).f_globals.get('__name__', '')).startswith('synapse_agents')


def hide_from_synapse(monkeypatch: pytest.MonkeyPatch, private: PrivateName) -> None:
    """Make `private` invisible to Synapse's code while pydantic-ai's own code still uses it."""
    name = private.name

    def get(holder: Any) -> Any:
        if _from_synapse():
            raise AttributeError(f'{type(holder).__name__!r} object has no attribute {name!r}')
        try:
            return holder.__dict__[name]
        except KeyError:
            raise AttributeError(name) from None

    def put(holder: Any, value: Any) -> None:
        if not _from_synapse():  # Synapse writing the old name: pydantic-ai would never read it
            holder.__dict__[name] = value

    hidden = property(get, put)
    if private.owner == internals.AGENT:
        monkeypatch.setattr(Agent, name, hidden, raising=False)
    elif private.owner == internals.OUTPUT_TOOLSET:
        monkeypatch.setattr(OutputToolset, name, hidden, raising=False)
    else:
        module = importlib.import_module(private.owner)
        assert name in vars(module)
        monkeypatch.setattr(module, '__class__', type('Renamed', (type(module),), {name: hidden}))


def forget() -> None:
    """Discovery as in a new process: its pydantic-ai wrappers removed, every check forgotten."""
    keys.uninstall()
    _tool_schemas.uninstall()
    internals.reset()


@pytest.fixture
def fresh_discovery(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """`forget()` before and after the test (torn down before `monkeypatch` puts pydantic-ai back)."""
    forget()
    yield
    forget()


@pytest.fixture
def project(isolated_env: Path, monkeypatch: pytest.MonkeyPatch, fresh_discovery: None) -> FixtureProject:
    """The project above, with the groq SDK absent (importing it raises ImportError) wherever the
    suite runs, so `fast` is an agent whose provider package is missing."""
    monkeypatch.setitem(sys.modules, 'groq', None)
    for module in ('pydantic_ai.providers.groq', 'pydantic_ai.models.groq'):
        monkeypatch.delitem(sys.modules, module, raising=False)
    return FixtureProject(isolated_env).write(PROJECT)


def scan(project: FixtureProject) -> CatalogSnapshot:
    """A scan from nothing: the project's modules are imported afresh and forgotten afterwards."""
    with isolated_imports(project.root.parent):
        return Catalog([], project.root).scan()


def fact(info: dict[str, Any], path: str) -> Any:
    """One fact of an AgentInfo dump: a dotted field, or the instructions of one source."""
    if path.startswith('instructions.'):
        source, _, kind = path.removeprefix('instructions.').partition('.')
        return [
            entry
            for entry in info['instructions']
            if entry['source'] == source and (not kind or entry['kind'] == kind)
        ]
    value: Any = info
    for part in path.split('.'):
        value = value[part]
    return value


def without(info: dict[str, Any], paths: tuple[str, ...]) -> dict[str, Any]:
    """The dump with those facts (and `unavailable`) taken out."""
    result: dict[str, Any] = json.loads(json.dumps(info))
    result.pop('unavailable')
    for path in paths:
        if path.startswith('instructions.'):
            removed = fact(result, path)
            result['instructions'] = [entry for entry in result['instructions'] if entry not in removed]
            continue
        *parents, last = path.split('.')
        holder = result
        for part in parents:
            holder = holder[part]
        holder.pop(last)
    return result


def test_nothing_is_degraded_with_the_installed_pydantic_ai(project: FixtureProject) -> None:
    snapshot = scan(project)
    assert degraded_features() == []
    assert [agent.slug for agent in snapshot.agents] == [FAST, ODD, SHOP]
    assert all(agent.info.unavailable == [] for agent in snapshot.agents)


@pytest.mark.parametrize('private', internals.NAMES, ids=lambda private: private.name)
def test_one_missing_name_turns_off_one_feature_only(
    project: FixtureProject, monkeypatch: pytest.MonkeyPatch, private: PrivateName
) -> None:
    baseline = scan(project)
    assert degraded_features() == []
    forget()
    hide_from_synapse(monkeypatch, private)

    snapshot = scan(project)

    lost = LOST_AGENT.get(private.name)
    assert [agent.slug for agent in snapshot.agents] == [
        agent.slug for agent in baseline.agents if agent.slug != lost
    ]
    if lost is None:
        assert snapshot.problems == [] == baseline.problems
    else:
        (problem,) = snapshot.problems
        assert problem.kind == 'import_error' and problem.module == lost.rsplit('.', 1)[0]
    shop, expected = snapshot.get(SHOP), baseline.get(SHOP)
    assert shop is not None and expected is not None
    assert [tool.name for tool in shop.info.tools] == ['lookup_order']
    assert shop.info.unavailable == list(private.facts)
    before, after = expected.info.model_dump(mode='json'), shop.info.model_dump(mode='json')
    for path in private.facts:
        assert fact(before, path), f'the project does not exercise {path}'
        assert not fact(after, path), f'{path} is shown although {private.qualified} is missing'
    assert without(after, private.facts) == without(before, private.facts)

    (feature,) = degraded_features()
    assert (feature.feature, feature.missing) == (private.feature, private.qualified)
    assert feature.as_dict() == {
        'feature': private.feature,
        'lost': private.lost,
        'missing': private.qualified,
        'pydantic_ai_version': pydantic_ai.__version__,
    }

    result = shop.agent.run_sync('Where is order 7?')
    assert isinstance(result.output, int)
    assert any(part.part_kind == 'tool-return' for m in result.all_messages() for part in m.parts)


@pytest.mark.parametrize('name', ['_max_tool_retries', 'function_schema'])
def test_synapse_agents_reports_the_degraded_feature(
    project: FixtureProject, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    private = next(p for p in internals.NAMES if p.name == name)
    runner = CliRunner()
    with isolated_imports(project.root.parent):
        result = runner.invoke(app, ['agents', '--json'])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)['degraded'] == []

    forget()
    hide_from_synapse(monkeypatch, private)
    with isolated_imports(project.root.parent):
        result = runner.invoke(app, ['agents', '--json'])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert SHOP in [card['slug'] for card in payload['agents']]
    assert [entry['missing'] for entry in payload['degraded']] == [private.qualified]
    assert payload['degraded'][0]['feature'] == private.feature

    with isolated_imports(project.root.parent):
        result = runner.invoke(app, ['agents'], env={'COLUMNS': '220'})
    assert result.exit_code == 0, result.output
    assert '1 degraded features' in result.output
    assert f'{private.feature} unavailable' in result.output and private.qualified in result.output


def test_health_lists_a_degraded_feature(
    project: FixtureProject, monkeypatch: pytest.MonkeyPatch, client: TestClient
) -> None:
    assert client.get('/api/health').json()['degraded'] == []
    private = next(p for p in internals.NAMES if p.name == '_max_tool_retries')
    forget()
    hide_from_synapse(monkeypatch, private)
    scan(project)

    response = client.get('/api/health')
    assert response.status_code == 200
    assert [entry['missing'] for entry in response.json()['degraded']] == [private.qualified]
