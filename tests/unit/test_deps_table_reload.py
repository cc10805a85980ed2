"""`[tool.synapse.deps]` edited while Synapse runs applies at the next scan, like an agent edit."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures.projects import FixtureProject, isolated_imports
from synapse_agents.discovery import CatalogSnapshot, DiscoveredAgent
from synapse_agents.runtime.root import SynapseRuntime
from synapse_agents.settings import load_settings

AGENTS = """
from pydantic_ai import Agent

billing = Agent('test', name='billing', deps_type=dict)
"""

DEPS = """
def first():
    return {'by': 'first'}


def second():
    return {'by': 'second'}
"""


def pyproject(deps: str) -> str:
    return f"""
        [tool.synapse]
        agents = ['app.agents']

        [tool.synapse.deps]
        {deps}
    """


@pytest.fixture
def project(isolated_env: Path) -> Iterator[FixtureProject]:
    with isolated_imports(isolated_env.parent):
        yield FixtureProject(isolated_env).write(
            {'app/__init__.py': '', 'app/agents.py': AGENTS, 'app/deps.py': DEPS}
        )


def billing(snapshot: CatalogSnapshot) -> DiscoveredAgent:
    [found] = [a for a in snapshot.agents if a.name == 'billing']
    return found


def test_an_edited_deps_table_applies_at_the_next_scan_of_a_running_synapse(project: FixtureProject) -> None:
    project.write({'pyproject.toml': pyproject('"app.agents:billing" = "app.deps:first"')})
    with SynapseRuntime.open(load_settings(cwd=project.root)) as runtime:
        catalog = runtime.catalog
        assert catalog is not None
        first = billing(catalog.scan())
        assert first.deps_factory is not None and first.deps_factory() == {'by': 'first'}
        assert catalog.scan() is catalog.scan(), 'nothing changed: the same snapshot'

        project.write({'pyproject.toml': pyproject('"app.agents:billing" = "app.deps:second"')})
        second = billing(catalog.scan())
        assert second.deps_factory is not None and second.deps_factory() == {'by': 'second'}
        assert second.info.deps.factory == 'app.deps:second' and second.info.problems == []

        project.write({'pyproject.toml': pyproject('')})
        removed = billing(catalog.scan())
        assert removed.deps_factory is None
        assert [p.code for p in removed.info.problems] == ['deps_factory_missing']


def test_a_broken_pyproject_keeps_the_last_table_and_says_why(project: FixtureProject) -> None:
    project.write({'pyproject.toml': pyproject('"app.agents:billing" = "app.deps:first"')})
    with SynapseRuntime.open(load_settings(cwd=project.root)) as runtime:
        catalog = runtime.catalog
        assert catalog is not None
        catalog.scan()
        project.write({'pyproject.toml': pyproject('"app.agents:billing" = ')})
        snapshot = catalog.scan()
        assert billing(snapshot).deps_factory is not None, 'the table read last still applies'
        [problem] = [p for p in snapshot.problems if p.target == 'pyproject.toml']
        assert problem.kind == 'import_error' and '[tool.synapse.deps]' in problem.message
        project.write({'pyproject.toml': pyproject('"app.agents:billing" = "app.deps:second"')})
        snapshot = catalog.scan()
        assert billing(snapshot).deps_factory() == {'by': 'second'}  # type: ignore[misc]
        assert [p for p in snapshot.problems if p.target == 'pyproject.toml'] == []


def test_a_deps_setting_from_the_environment_is_not_replaced_by_the_file(
    project: FixtureProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv('SYNAPSE_DEPS', '{"app.agents:billing": "app.deps:first"}')
    project.write({'pyproject.toml': pyproject('"app.agents:billing" = "app.deps:first"')})
    with SynapseRuntime.open(load_settings(cwd=project.root)) as runtime:
        catalog = runtime.catalog
        assert catalog is not None
        catalog.scan()
        project.write({'pyproject.toml': pyproject('"app.agents:billing" = "app.deps:second"')})
        found = billing(catalog.scan())
        assert found.deps_factory is not None and found.deps_factory() == {'by': 'first'}
