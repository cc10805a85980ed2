"""A factory function named as a target (`module:build_agent`) is called once, without arguments,
and the agent it builds is discovered like any other; a factory that cannot be called that way is a
problem that says why. "No agents found" says how to point discovery at them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fixtures.projects import FixtureProject, isolated_imports
from synapse_agents.cli import app
from synapse_agents.discovery import Catalog

FACTORIES = """
from pydantic_ai import Agent

CALLS = []


def build_agent(instructions: str = 'Help.'):
    CALLS.append(instructions)
    return Agent('test', name='built', instructions=instructions)


def needs_arguments(instructions):
    return Agent('test', instructions=instructions)


async def built_later():
    return Agent('test')


def not_an_agent():
    return 42


def broken():
    raise RuntimeError('no settings')
"""


@pytest.fixture
def project(isolated_env: Path) -> Iterator[FixtureProject]:
    with isolated_imports(isolated_env.parent):
        yield FixtureProject(isolated_env)


def test_a_factory_target_builds_its_agent_once(project: FixtureProject) -> None:
    project.write({'app/__init__.py': '', 'app/factories.py': FACTORIES})
    catalog = Catalog(['app.factories:build_agent'], project.root)
    first = catalog.scan()
    assert not first.problems, first.problems
    [agent] = first.agents
    assert (agent.slug, agent.name, agent.attribute) == ('app.factories.build-agent', 'built', 'build_agent')
    assert agent.info.instructions[0].text == 'Help.'
    again = catalog.scan()
    assert again.agents[0].agent is agent.agent, 'the same agent object on the next scan'
    import app.factories as module  # type: ignore[import-not-found]

    assert module.CALLS == ['Help.']


@pytest.mark.parametrize(
    ('target', 'says'),
    [
        ('needs_arguments', 'app.factories:needs_arguments needs arguments'),
        ('built_later', 'app.factories:built_later is an async function'),
        ('not_an_agent', 'app.factories:not_an_agent() returned a int, not a pydantic_ai.Agent.'),
        ('broken', 'app.factories:broken() raised RuntimeError: no settings'),
    ],
)
def test_a_factory_that_cannot_build_an_agent_is_a_problem_that_says_why(
    project: FixtureProject, target: str, says: str
) -> None:
    project.write({'app/__init__.py': '', 'app/factories.py': FACTORIES})
    snapshot = Catalog([f'app.factories:{target}'], project.root).scan()
    assert snapshot.agents == []
    [problem] = snapshot.problems
    assert problem.kind == 'factory_error' and says in problem.message
    if target == 'broken':
        assert problem.exception == 'RuntimeError' and 'no settings' in problem.traceback


def test_no_agents_found_says_how_to_point_discovery_at_them(project: FixtureProject) -> None:
    project.write({'agents/__init__.py': '', 'agents/nothing.py': 'VALUE = 1\n'})
    result = CliRunner().invoke(app, ['agents'])
    assert result.exit_code == 0, result.output
    text = ' '.join(result.output.split())
    assert 'No agents found in ./agents' in text
    assert 'module:attribute' in text and 'module:build_agent' in text


def test_counts_are_singular_for_one(project: FixtureProject) -> None:
    project.write({'agents/one.py': 'from pydantic_ai import Agent\n\nonly = Agent("test")\n'})
    result = CliRunner().invoke(app, ['agents'])
    assert '1 agent in ./agents' in ' '.join(result.output.split())
