"""Deps factories named outside the agent: `[tool.synapse.deps]` (the `deps` setting) and the
project's `synapse_setup.py` hook, their precedence, and what a bad entry becomes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fixtures.projects import FixtureProject, isolated_imports
from synapse_agents import register_deps
from synapse_agents.cli import app
from synapse_agents.deps_setup import collecting
from synapse_agents.discovery import Catalog, CatalogSnapshot, DiscoveredAgent
from synapse_agents.settings import SettingsError, load_settings

AGENTS = """
from pydantic_ai import Agent

billing = Agent('test', name='billing', deps_type=dict)
support = Agent('test', name='support', deps_type=dict)
own = Agent('test', name='own', deps_type=dict, metadata={'synapse.deps_factory': 'app.deps:from_metadata'})
"""

DEPS = """
def from_metadata():
    return {'by': 'metadata'}


def from_hook():
    return {'by': 'hook'}


def from_pyproject():
    return {'by': 'pyproject'}


def needs_arguments(account):
    return {'account': account}
"""

SETUP = """
from synapse_agents import register_deps

from app.agents import billing, own
from app.deps import from_hook

register_deps(billing, from_hook)          # the agent object
register_deps('app.agents:own', from_hook)  # its metadata still wins
"""


@pytest.fixture
def project(isolated_env: Path) -> Iterator[FixtureProject]:
    with isolated_imports(isolated_env.parent):
        yield FixtureProject(isolated_env).write(
            {'app/__init__.py': '', 'app/agents.py': AGENTS, 'app/deps.py': DEPS}
        )


def agent(snapshot: CatalogSnapshot, name: str) -> DiscoveredAgent:
    found = next((a for a in snapshot.agents if a.name == name), None)
    assert found is not None, [a.name for a in snapshot.agents]
    return found


def built(found: DiscoveredAgent) -> object:
    assert found.deps_factory is not None, [p.message for p in found.info.problems]
    return found.deps_factory()


def test_the_pyproject_table_names_factories_by_target_or_slug(project: FixtureProject) -> None:
    table = {'app.agents:billing': 'app.deps:from_pyproject', 'app.agents.support': 'app.deps:from_pyproject'}
    snapshot = Catalog(['app.agents'], project.root, deps=table).scan()
    assert snapshot.problems == []
    for name in ('billing', 'support'):
        found = agent(snapshot, name)
        assert built(found) == {'by': 'pyproject'}
        assert found.info.deps.source == 'pyproject'
        assert found.info.deps.factory == 'app.deps:from_pyproject'
        assert found.info.problems == []


def test_the_hook_registers_factories_and_precedence_is_metadata_hook_pyproject(
    project: FixtureProject,
) -> None:
    project.write({'synapse_setup.py': SETUP})
    table = {name: 'app.deps:from_pyproject' for name in ('app.agents:billing', 'app.agents:support')}
    table['app.agents:own'] = 'app.deps:from_pyproject'
    snapshot = Catalog(['app.agents'], project.root, deps=table).scan()
    assert snapshot.problems == []
    assert (built(agent(snapshot, 'own')), agent(snapshot, 'own').info.deps.source) == (
        {'by': 'metadata'},
        'metadata',
    )
    assert (built(agent(snapshot, 'billing')), agent(snapshot, 'billing').info.deps.source) == (
        {'by': 'hook'},
        'hook',
    )
    assert (built(agent(snapshot, 'support')), agent(snapshot, 'support').info.deps.source) == (
        {'by': 'pyproject'},
        'pyproject',
    )


def test_editing_the_hook_changes_its_registrations(project: FixtureProject) -> None:
    project.write({'synapse_setup.py': SETUP})
    catalog = Catalog(['app.agents'], project.root)
    assert built(agent(catalog.scan(), 'billing')) == {'by': 'hook'}
    assert agent(catalog.scan(), 'support').deps_factory is None
    project.write(
        {
            'synapse_setup.py': """
                from synapse_agents import register_deps

                register_deps('app.agents:support', 'app.deps:from_hook')
            """
        }
    )
    snapshot = catalog.scan()
    assert agent(snapshot, 'billing').deps_factory is None
    assert [p.code for p in agent(snapshot, 'billing').info.problems] == ['deps_factory_missing']
    assert built(agent(snapshot, 'support')) == {'by': 'hook'}
    (project.root / 'synapse_setup.py').unlink()
    assert agent(catalog.scan(), 'support').deps_factory is None


def test_editing_an_agent_module_the_hook_imports_runs_the_hook_again(project: FixtureProject) -> None:
    project.write({'synapse_setup.py': SETUP})
    catalog = Catalog(['app.agents'], project.root)
    first = agent(catalog.scan(), 'billing')
    project.write({'app/agents.py': AGENTS + "\nextra = Agent('test', name='extra')\n"})
    second = agent(catalog.scan(), 'billing')
    assert second.agent is not first.agent, 'the module was imported again'
    assert built(second) == {'by': 'hook'}, 'the hook registered the new agent object'


def test_bad_entries_are_problems_never_a_failed_scan(project: FixtureProject) -> None:
    project.write(
        {
            'synapse_setup.py': """
                from synapse_agents import register_deps

                register_deps('app.agents:nobody', 'app.deps:from_hook')
            """
        }
    )
    table = {
        'app.agents:ghost': 'app.deps:from_pyproject',
        'app.agents:billing': 'app.missing:make',
        'app.agents:support': 'app.deps:needs_arguments',
    }
    snapshot = Catalog(['app.agents'], project.root, deps=table).scan()
    unknown = [p for p in snapshot.problems if p.kind == 'deps_target_unknown']
    assert sorted(p.target for p in unknown) == ['app.agents:ghost', 'app.agents:nobody']
    by_target = {p.target: p.message for p in unknown}
    assert by_target['app.agents:ghost'].startswith(
        "[tool.synapse.deps] names a deps factory for 'app.agents:ghost'"
    )
    assert 'synapse_setup.py' in by_target['app.agents:nobody']
    [billing] = agent(snapshot, 'billing').info.problems
    assert billing.code == 'deps_factory_invalid'
    assert billing.message.startswith(
        'The deps factory of billing (app.missing:make) (named in [tool.synapse.deps]) cannot be imported: '
        'ModuleNotFoundError'
    )
    [support] = agent(snapshot, 'support').info.problems
    assert support.code == 'deps_factory_invalid'
    assert support.message.endswith('must be callable without arguments.')
    assert agent(snapshot, 'own').info.problems == []


def test_a_hook_that_raises_is_an_import_problem(project: FixtureProject) -> None:
    project.write({'synapse_setup.py': "raise RuntimeError('no database configured')\n"})
    snapshot = Catalog(['app.agents'], project.root).scan()
    [problem] = snapshot.problems
    assert (problem.kind, problem.target, problem.exception) == (
        'import_error',
        'synapse_setup.py',
        'RuntimeError',
    )
    assert problem.message == 'synapse_setup.py: RuntimeError: no database configured'
    assert len(snapshot.agents) == 3, 'the agents are still listed'


def test_the_missing_factory_hint_names_every_way(project: FixtureProject) -> None:
    snapshot = Catalog(['app.agents'], project.root).scan()
    [problem] = agent(snapshot, 'billing').info.problems
    assert problem.code == 'deps_factory_missing'
    for way in (
        "metadata={'synapse.deps_factory'",
        'register_deps(agent, make_deps) in synapse_setup.py',
        '[tool.synapse.deps]',
    ):
        assert way in problem.message


def test_a_registration_outside_the_hook_applies_to_every_catalog(project: FixtureProject) -> None:
    with collecting():  # what the app registers at start-up, kept out of the process-wide list here
        register_deps('app.agents:support', 'app.deps:from_hook')
    snapshot = Catalog(['app.agents'], project.root).scan()
    assert agent(snapshot, 'support').deps_factory is None, 'collected: not registered for the process'
    with pytest.raises(TypeError, match='the factory must be a callable'):
        register_deps('app.agents:support', 42)
    with pytest.raises(TypeError, match='the agent target is empty'):
        register_deps('  ', 'app.deps:from_hook')


def test_the_deps_lifetime_metadata_is_read_and_checked(project: FixtureProject) -> None:
    project.write(
        {
            'app/lifetimes.py': """
                from pydantic_ai import Agent

                kept = Agent('test', name='kept', metadata={'synapse.deps_lifetime': 'Server'})
                odd = Agent('test', name='odd', metadata={'synapse.deps_lifetime': 'forever'})
            """
        }
    )
    snapshot = Catalog(['app.lifetimes'], project.root).scan()
    assert agent(snapshot, 'kept').deps_lifetime == 'server'
    assert agent(snapshot, 'kept').info.deps.lifetime == 'server'
    odd = agent(snapshot, 'odd')
    assert odd.deps_lifetime is None
    assert [p.code for p in odd.info.problems] == ['deps_factory_invalid']
    assert "synapse.deps_lifetime='forever'" in odd.info.problems[0].message


def test_the_pyproject_table_reaches_discovery_through_the_settings(project: FixtureProject) -> None:
    project.write(
        {
            'pyproject.toml': """
                [tool.synapse]
                agents = ['app.agents']
                deps_lifetime = 'server'

                [tool.synapse.deps]
                "app.agents:billing" = "app.deps:from_pyproject"
            """
        }
    )
    loaded = load_settings(cwd=project.root)
    assert loaded.settings.deps == {'app.agents:billing': 'app.deps:from_pyproject'}
    assert loaded.settings.deps_lifetime == 'server'
    result = CliRunner().invoke(app, ['agents', '--json'])
    assert result.exit_code == 0, result.output
    problems = {
        card['name']: [p['code'] for p in card['problems']] for card in json.loads(result.stdout)['agents']
    }
    assert problems == {'billing': [], 'support': ['deps_factory_missing'], 'own': []}


def test_a_deps_lifetime_that_is_neither_turn_nor_server_is_a_settings_error(
    project: FixtureProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv('SYNAPSE_DEPS_LIFETIME', 'forever')
    with pytest.raises(SettingsError, match="invalid setting 'deps_lifetime' from SYNAPSE_DEPS_LIFETIME"):
        load_settings(cwd=project.root)
    monkeypatch.setenv('SYNAPSE_DEPS_LIFETIME', 'server')
    monkeypatch.setenv('SYNAPSE_DEPS', '{"app.agents:billing": "app.deps:from_pyproject"}')
    settings = load_settings(cwd=project.root).settings
    assert (settings.deps_lifetime, settings.deps) == (
        'server',
        {'app.agents:billing': 'app.deps:from_pyproject'},
    )
