"""The public API is what docs/runtime.md says it is: its modules' `__all__`, its errors' one home,
and no name that pydantic-ai also exports."""

from __future__ import annotations

import ast
import builtins
import re
from importlib import import_module
from pathlib import Path
from types import ModuleType

import pydantic_ai
import pytest

import synapse_agents
from synapse_agents import errors

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / 'src' / 'synapse_agents'

# The modules whose raise sites an app meets through `Synapse` and `AppConversation`.
API_MODULES = (
    'synapse_agents.runtime.synapse',
    'synapse_agents.runtime.conversation',
    'synapse_agents.runtime.blocking',
    'synapse_agents.chat.engine',
    'synapse_agents.chat.service',
    'synapse_agents.conversations.deferred',
    'synapse_agents.conversations.forks',
    'synapse_agents.scope',
    'synapse_agents.targets.target',
    'synapse_agents.targets.deps_values',
    'synapse_agents.store.setup',
    'synapse_agents.accounting.capability',
    'synapse_agents.capabilities',
    'synapse_agents.tasks.events',
)


def documented() -> dict[str, list[str]]:
    """The table under docs/runtime.md's `## The public API`: module -> names."""
    text = (ROOT / 'docs' / 'runtime.md').read_text()
    section = text.split('## The public API', 1)[1].split('\n## ', 1)[0]
    table: dict[str, list[str]] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip('|').split('|')]
        if len(cells) == 2 and cells[0].startswith('`synapse_agents'):
            table[cells[0].strip('`')] = re.findall(r'`([^`]+)`', cells[1])
    return table


def test_the_public_modules_export_exactly_what_the_docs_list() -> None:
    table = documented()
    assert list(table) == ['synapse_agents', 'synapse_agents.errors', 'synapse_agents.capabilities']
    for name, names in table.items():
        module = import_module(name)
        assert sorted(module.__all__) == sorted(names), name
        for public in names:
            assert getattr(module, public) is not None, f'{name}.{public}'


def test_no_public_name_is_also_pydantic_ais() -> None:
    exported = {name for names in documented().values() for name in names} - {'__version__'}
    assert exported & set(dir(pydantic_ai)) == set()
    assert not hasattr(synapse_agents, 'Conversation')


def test_every_error_lives_in_errors_and_the_package_re_exports_the_same_class() -> None:
    for name in errors.__all__:
        error = getattr(errors, name)
        assert issubclass(error, errors.SynapseError) and error.__module__ == 'synapse_agents.errors', name
    for name in synapse_agents.__all__:
        if name in errors.__all__:
            assert getattr(synapse_agents, name) is getattr(errors, name), name


def raised_names(module: ModuleType) -> set[str]:
    """The names each `raise Name(...)`, `raise Name.maker(...)` or `raise Name` of `module` uses."""
    tree = ast.parse(Path(module.__file__ or '').read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Raise) or node.exc is None:
            continue
        target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        if isinstance(target, ast.Attribute):
            target = target.value
        if isinstance(target, ast.Name):
            names.add(target.id)
    return names


@pytest.mark.parametrize('module_name', API_MODULES)
def test_every_synapse_error_the_api_raises_is_one_of_errors(module_name: str) -> None:
    module = import_module(module_name)
    for name in raised_names(module):
        if hasattr(builtins, name):
            continue  # an argument error: TypeError, ValueError, FileNotFoundError, ...
        raised: object = getattr(module, name, None)
        if not (isinstance(raised, type) and issubclass(raised, BaseException)):
            continue  # a variable holding an exception, or a function building one
        if raised.__module__.startswith('synapse_agents'):
            class_name = raised.__name__
            assert class_name in errors.__all__, f'{module_name} raises {name}'
            assert getattr(errors, class_name) is raised, f'{module_name} raises {name}'


def test_the_raise_walk_sees_the_apis_errors() -> None:
    seen = set().union(*(raised_names(import_module(name)) for name in API_MODULES))
    assert {'ConversationNotFound', 'WrongAgent', 'ApprovalPending', 'NotAwaiting', 'UnknownAgent'} <= seen
