"""Deps whose type is built without arguments need no factory; otherwise the hint names the exact key."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures.projects import FixtureProject, isolated_imports
from synapse_agents.discovery import Catalog, CatalogSnapshot, DiscoveredAgent

AGENTS = """
from dataclasses import dataclass, field

from pydantic import BaseModel
from pydantic_ai import Agent


@dataclass
class Settings:
    region: str = 'eu'
    tags: list[str] = field(default_factory=list)


class Profile(BaseModel):
    plan: str = 'free'


@dataclass
class Account:
    account_id: str


built = Agent('test', name='built', deps_type=Settings)
modelled = Agent('test', name='modelled', deps_type=Profile)
needs = Agent('test', name='needs', deps_type=Account)
named = Agent('test', name='named', deps_type=Settings, metadata={'synapse.deps_factory': 'app.agents:eu'})
mapping = Agent('test', name='mapping', deps_type=dict)


def eu() -> Settings:
    return Settings(region='named')
"""


@pytest.fixture
def snapshot(isolated_env: Path) -> Iterator[CatalogSnapshot]:
    with isolated_imports(isolated_env.parent):
        project = FixtureProject(isolated_env).write({'app/__init__.py': '', 'app/agents.py': AGENTS})
        yield Catalog(['app.agents'], project.root).scan()


def agent(snapshot: CatalogSnapshot, name: str) -> DiscoveredAgent:
    [found] = [a for a in snapshot.agents if a.name == name]
    return found


def test_a_dataclass_or_model_whose_fields_all_have_defaults_is_built_without_a_factory(
    snapshot: CatalogSnapshot,
) -> None:
    built = agent(snapshot, 'built')
    assert built.info.problems == []
    assert built.deps_factory is not None
    first, second = built.deps_factory(), built.deps_factory()
    assert (type(first).__name__, first.region, first.tags) == ('Settings', 'eu', [])
    assert first is not second, 'a new value for each build'
    assert (built.info.deps.source, built.info.deps.factory) == ('default', 'app.agents:Settings')
    modelled = agent(snapshot, 'modelled')
    assert modelled.info.problems == [] and modelled.deps_factory is not None
    assert modelled.deps_factory().plan == 'free'


def test_a_named_factory_wins_over_the_default(snapshot: CatalogSnapshot) -> None:
    named = agent(snapshot, 'named')
    assert named.deps_factory is not None and named.deps_factory().region == 'named'
    assert named.info.deps.source == 'metadata'


def test_the_hint_names_the_exact_key_to_configure(snapshot: CatalogSnapshot) -> None:
    for name in ('needs', 'mapping'):
        found = agent(snapshot, name)
        assert found.deps_factory is None
        [problem] = found.info.problems
        assert problem.code == 'deps_factory_missing'
        assert f'"app.agents:{name}" = "your.module:make_deps"' in problem.message, problem.message
        assert '[tool.synapse.deps]' in problem.message
    assert 'Account' in agent(snapshot, 'needs').info.problems[0].message
