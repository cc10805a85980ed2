"""The tool registry: `@synapse_agents.tool` functions and `FunctionToolset`s that discovery finds."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic_ai import FunctionToolset
from pydantic_ai.toolsets import FilteredToolset

import synapse_agents
from fixtures.projects import FixtureProject, isolated_imports
from synapse_agents.discovery import Catalog
from synapse_agents.tools import MARK, SelectedTools, ToolRegistry, tool_registry

TOOLS = '''
import synapse_agents


@synapse_agents.tool(tags=['math'])
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@synapse_agents.tool
def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


def helper() -> None:
    """Not marked: not a registry tool."""
'''

TOOLSET = '''
from pydantic_ai import FunctionToolset


def reverse(text: str) -> str:
    """Reverse a text."""
    return text[::-1]


def count(text: str) -> int:
    """Count the characters of a text."""
    return len(text)


text_tools = FunctionToolset([reverse, count], metadata={'tags': ['text']})
'''


@pytest.fixture
def project(isolated_env: Path) -> Iterator[FixtureProject]:
    with isolated_imports(isolated_env.parent):
        yield FixtureProject(isolated_env)


def test_the_decorator_marks_the_function_and_leaves_it_as_it_was() -> None:
    def lookup(q: str) -> str:
        return q

    marked = synapse_agents.tool(tags=['search', 'search'], name='find')(lookup)
    assert marked is lookup and marked('x') == 'x'
    assert getattr(lookup, MARK).tags == ('search',) and getattr(lookup, MARK).name == 'find'
    assert synapse_agents.tool(lookup) is lookup
    with pytest.raises(TypeError, match='expected a list of tags'):
        synapse_agents.tool(tags='search')
    with pytest.raises(ValueError, match="tags: 'two words' is not a tag"):
        synapse_agents.tool(tags=['two words'])
    with pytest.raises(ValueError, match="name: '1st' is not a tool name"):
        synapse_agents.tool(name='1st')


def test_discovery_finds_marked_functions_and_toolsets_once(project: FixtureProject) -> None:
    project.write(
        {
            'agents/tools.py': TOOLS,
            # No "agent" in it: the folder scan still imports a file that makes a FunctionToolset.
            'agents/texts.py': TOOLSET,
            'agents/reexport.py': 'from agents.tools import add\nfrom agents.texts import text_tools\n',
        }
    )
    snapshot = Catalog([], project.root).scan()
    assert snapshot.problems == []
    assert tool_registry(snapshot) == [
        {'name': 'add', 'tags': ['math'], 'description': 'Add two numbers.', 'module': 'agents.tools'},
        {
            'name': 'count',
            'tags': ['text'],
            'description': 'Count the characters of a text.',
            'module': 'agents.texts',
        },
        {'name': 'reverse', 'tags': ['text'], 'description': 'Reverse a text.', 'module': 'agents.texts'},
        {'name': 'shout', 'tags': [], 'description': 'Upper-case a text.', 'module': 'agents.tools'},
    ]


def test_selection_by_name_and_tag_and_what_is_unknown(project: FixtureProject) -> None:
    project.write({'agents/tools.py': TOOLS, 'agents/texts.py': TOOLSET})
    registry = Catalog([], project.root).scan().tools
    chosen = registry.select(['add', 'tag:text', 'tag:math'])
    assert [t.name for t in chosen.tools] == ['add'] and chosen.unknown == []
    [whole] = chosen.toolsets
    assert isinstance(whole, FunctionToolset) and set(whole.tools) == {'count', 'reverse'}
    partial = registry.select(['reverse'])
    [filtered] = partial.toolsets
    assert isinstance(filtered, FilteredToolset) and filtered.filter_func == SelectedTools(
        frozenset({'reverse'})
    )
    missing = registry.select(['shout', 'nope', 'tag:none'])
    assert missing.unknown == ['nope', 'tag:none']
    with pytest.raises(LookupError, match="Unknown tool entries 'nope', 'tag:none'"):
        missing.check()
    # Each agent gets its own copy of a marked function's tool (agents set their retry budget on it).
    assert registry.select(['add']).tools[0] is not registry.select(['add']).tools[0]


def test_a_shared_name_and_an_unusable_function_are_problems_not_failures(project: FixtureProject) -> None:
    project.write(
        {
            'agents/a_tools.py': TOOLS,
            'agents/b_tools.py': '''
                import synapse_agents

                @synapse_agents.tool
                def add(x: float) -> float:
                    """Another add."""
                    return x

                class Thing:
                    pass

                @synapse_agents.tool
                def broken(thing: Thing) -> int:
                    """A parameter pydantic cannot describe."""
                    return 1

                @synapse_agents.tool(description='bad', name='fine')
                def fine() -> str:
                    return 'ok'
            ''',
        }
    )
    snapshot = Catalog([], project.root).scan()
    kinds = {(p.kind, p.module) for p in snapshot.problems}
    assert kinds == {('tool_conflict', 'agents.b_tools'), ('tool_error', 'agents.b_tools')}
    error = next(p for p in snapshot.problems if p.kind == 'tool_error')
    assert error.message.startswith('agents.b_tools:broken: not a usable tool:')
    assert error.exception == 'PydanticSchemaGenerationError'
    conflict = next(p for p in snapshot.problems if p.kind == 'tool_conflict')
    assert 'agents.a_tools:add has a tool with that name' in conflict.message
    registry = snapshot.tools
    entry = registry.get('add')
    assert entry is not None and entry.module == 'agents.a_tools'
    fine = registry.get('fine')
    assert fine is not None and fine.description == 'bad' and registry.get('broken') is None


def test_a_registry_without_a_catalog_is_empty() -> None:
    assert tool_registry(None) == [] and tool_registry(ToolRegistry()) == []
