"""`module:Class.method` names resolve by importing the module and walking the attributes, everywhere."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures.projects import FixtureProject, isolated_imports
from synapse_agents.discovery import Catalog
from synapse_agents.import_path import (
    AttributeMissing,
    ModuleNotImported,
    NotAnImportPath,
    resolve_import_path,
)
from synapse_agents.settings import load_settings
from synapse_agents.tasks.placers import load_placer

MODULE = """
from pydantic_ai import Agent


class Factory:
    @classmethod
    def make(cls):
        return {'made_by': cls.__name__}

    @staticmethod
    def plain():
        return {'made_by': 'plain'}

    @staticmethod
    def place(obj):
        return {'event': 'placed', 'context': {'obj': obj}}


class Holder:
    billing = Agent('test', name='billing', deps_type=dict)
"""


@pytest.fixture
def project(isolated_env: Path) -> Iterator[FixtureProject]:
    with isolated_imports(isolated_env.parent):
        project = FixtureProject(isolated_env).write({'shop/__init__.py': '', 'shop/mod.py': MODULE})
        sys.path.insert(0, str(project.root))  # isolated_imports restores sys.path
        yield project


def test_a_dotted_attribute_after_the_colon_is_walked_from_the_module(project: FixtureProject) -> None:
    module, made = resolve_import_path('shop.mod:Factory.make')
    assert module.__name__ == 'shop.mod' and made() == {'made_by': 'Factory'}
    assert resolve_import_path('shop.mod:Factory.plain')[1]() == {'made_by': 'plain'}
    with pytest.raises(AttributeMissing, match=r"shop\.mod\.Factory has no attribute 'nope'"):
        resolve_import_path('shop.mod:Factory.nope')
    with pytest.raises(ModuleNotImported, match=r'shop\.missing'):
        resolve_import_path('shop.missing:Factory.make')
    with pytest.raises(NotAnImportPath):
        resolve_import_path('shop.mod.Factory.make')


def test_a_deps_table_and_a_target_may_name_class_attributes(project: FixtureProject) -> None:
    project.write(
        {
            'pyproject.toml': """
                [tool.synapse]
                agents = ['shop.mod:Holder.billing']

                [tool.synapse.deps]
                "shop.mod:Holder.billing" = "shop.mod:Factory.make"
            """
        }
    )
    loaded = load_settings(cwd=project.root)
    snapshot = Catalog(loaded.settings.agents, loaded.project_root, deps=loaded.settings.deps).scan()
    assert [p.message for p in snapshot.problems] == []
    [billing] = snapshot.agents
    assert billing.name == 'billing' and billing.info.problems == []
    assert billing.deps_factory is not None and billing.deps_factory() == {'made_by': 'Factory'}


def test_a_placer_may_be_a_staticmethod(project: FixtureProject) -> None:
    placer = load_placer('placed', {'placed': 'shop.mod:Factory.place'})
    assert placer('file') == {'event': 'placed', 'context': {'obj': 'file'}}
