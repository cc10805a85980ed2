"""The tool registry: the tools configured agents may use, found by discovery.

Two kinds of entries, both found at module level in the discovery targets (docs/registry.md):

- a plain function marked with `@synapse_agents.tool(tags=[...])` (it stays a plain function: the
  mark is an attribute, nothing is registered globally);
- every tool of a `pydantic_ai.FunctionToolset`; its tags are the `tags` of the toolset's (or the
  tool's) `metadata`.

A configured agent names tools by name or `tag:<tag>` (every tool with that tag). This module
imports nothing of the store or the web app: tool modules import `synapse_agents.tool` cheaply.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, TypeVar, overload

from pydantic_ai import FunctionToolset, Tool
from pydantic_ai.toolsets import AbstractToolset

TAG_PREFIX = 'tag:'
"""A configured agent's tool entry that selects every tool with a tag: `tag:search`."""

MARK = '__synapse_tool__'
"""The attribute `@tool` sets on a function."""

_NAME = re.compile(r'^[A-Za-z_][A-Za-z0-9_.-]{0,63}$')
_TAG = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$')

Function = TypeVar('Function', bound=Callable[..., Any])


@dataclass(frozen=True)
class ToolMark:
    """What `@tool` records on a function."""

    name: str | None
    tags: tuple[str, ...]
    description: str | None


@overload
def tool(function: Function, /) -> Function: ...


@overload
def tool(
    *, name: str | None = None, tags: Sequence[str] = (), description: str | None = None
) -> Callable[[Function], Function]: ...


def tool(
    function: Function | None = None,
    /,
    *,
    name: str | None = None,
    tags: Sequence[str] = (),
    description: str | None = None,
) -> Function | Callable[[Function], Function]:
    """Mark a plain function as a registry tool (`@tool` or `@tool(tags=['search'])`).

    The function is returned unchanged; discovery finds it at module level. `name` defaults to the
    function's name, `description` to its docstring (as pydantic-ai reads it)."""
    if isinstance(tags, str):
        raise TypeError("tags: expected a list of tags, got a string (write tags=['...']).")
    for tag in tags:
        if not isinstance(tag, str) or not _TAG.match(tag):
            raise ValueError(f'tags: {tag!r:.80} is not a tag (letters, digits, _ . -, up to 64).')
    if name is not None and not _NAME.match(name):
        raise ValueError(
            f'name: {name!r:.80} is not a tool name (a letter or _, then letters, digits, _ . -).'
        )
    mark = ToolMark(name, tuple(dict.fromkeys(tags)), description)

    def apply(target: Function) -> Function:
        if not callable(target):
            raise TypeError(f'@tool marks a function, not a {type(target).__name__}.')
        setattr(target, MARK, mark)
        return target

    return apply(function) if function is not None else apply


def mark_of(value: Any) -> ToolMark | None:
    """The `@tool` mark of a function, or None."""
    found = getattr(value, MARK, None) if callable(value) else None
    return found if isinstance(found, ToolMark) else None


@dataclass(frozen=True)
class RegistryTool:
    """One tool of the registry, and where it comes from."""

    name: str
    tags: tuple[str, ...]
    description: str | None
    module: str
    attribute: str
    """The module attribute: the function, or the toolset holding the tool."""
    tool: Tool[Any]
    toolset: FunctionToolset[Any] | None = None
    """The toolset the tool belongs to (None for a marked function)."""

    def as_json(self) -> dict[str, Any]:
        """The `GET /api/registry/tools` entry."""
        return {
            'name': self.name,
            'tags': list(self.tags),
            'description': self.description,
            'module': self.module,
        }


def tools_in(
    module: ModuleType, *, imported: frozenset[str] = frozenset()
) -> tuple[list[RegistryTool], list[tuple[str, Exception]]]:
    """The registry tools defined at module level in `module` (names bound by an import are
    skipped), and the marked functions that could not become a tool, with the error."""
    found: list[RegistryTool] = []
    failed: list[tuple[str, Exception]] = []
    for attribute, value in list(vars(module).items()):
        if attribute in imported or attribute.startswith('__'):
            continue
        mark = mark_of(value)
        if mark is not None and getattr(value, '__module__', None) == module.__name__:
            try:
                built = Tool(value, name=mark.name, description=mark.description)
            except Exception as exc:  # a parameter pydantic cannot describe, a bad docstring, ...
                failed.append((attribute, exc))
                continue
            found.append(
                RegistryTool(built.name, mark.tags, built.description, module.__name__, attribute, built)
            )
        elif isinstance(value, FunctionToolset):
            found.extend(_toolset_tools(value, module.__name__, attribute))
    return found, failed


def _toolset_tools(toolset: FunctionToolset[Any], module: str, attribute: str) -> list[RegistryTool]:
    entries: list[RegistryTool] = []
    for name, member in toolset.tools.items():
        tags = [*_tags(toolset.metadata), *_tags(member.metadata)]
        entries.append(
            RegistryTool(
                name, tuple(dict.fromkeys(tags)), member.description, module, attribute, member, toolset
            )
        )
    return entries


def _tags(metadata: Any) -> list[str]:
    tags = metadata.get('tags') if isinstance(metadata, dict) else None
    if isinstance(tags, str):
        return [tags]
    return [tag for tag in tags if isinstance(tag, str)] if isinstance(tags, list | tuple) else []


class UnknownTool(LookupError):
    """A configured agent names a tool (or a tag) the registry does not have."""


@dataclass(frozen=True)
class SelectedTools:
    """The filter of a toolset of which only some tools were chosen (discovery reads `names`)."""

    names: frozenset[str]

    def __call__(self, ctx: Any, tool_def: Any) -> bool:
        return tool_def.name in self.names


@dataclass
class ToolSelection:
    """What a configured agent's tool entries resolve to: agent tools, toolsets, unknown entries."""

    tools: list[Tool[Any]] = field(default_factory=list)
    toolsets: list[AbstractToolset[Any]] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)

    def check(self) -> None:
        """Raise `UnknownTool` naming the unknown entries, if any."""
        if self.unknown:
            raise UnknownTool(unknown_message(self.unknown))


def unknown_message(unknown: Sequence[str]) -> str:
    """The error for tool entries the registry does not have."""
    shown = ', '.join(repr(entry) for entry in unknown)
    noun = 'entry' if len(unknown) == 1 else 'entries'
    return (
        f'Unknown tool {noun} {shown}: no tool of the registry has that name or tag '
        '(GET /api/registry/tools lists them).'
    )


class ToolRegistry:
    """The tools found by one discovery scan, by name (the first one found wins a shared name)."""

    def __init__(self, entries: Iterable[RegistryTool] = ()) -> None:
        self._by_name: dict[str, RegistryTool] = {}
        self.conflicts: list[tuple[RegistryTool, RegistryTool]] = []
        """(kept, left out) pairs of tools that share a name."""
        for entry in entries:
            kept = self._by_name.get(entry.name)
            if kept is None:
                self._by_name[entry.name] = entry
            elif kept.tool is not entry.tool:
                self.conflicts.append((kept, entry))

    def entries(self) -> list[RegistryTool]:
        """Every tool, ordered by name."""
        return [self._by_name[name] for name in sorted(self._by_name)]

    def get(self, name: str) -> RegistryTool | None:
        return self._by_name.get(name)

    def tagged(self, tag: str) -> list[RegistryTool]:
        """The tools with `tag`, ordered by name."""
        return [entry for entry in self.entries() if tag in entry.tags]

    def select(self, wanted: Sequence[Any]) -> ToolSelection:
        """Resolve tool names and `tag:<tag>` entries (a tag no tool has is unknown)."""
        chosen: dict[str, RegistryTool] = {}
        unknown: list[str] = []
        for entry in wanted:
            text = str(entry)
            if text.startswith(TAG_PREFIX):
                matches = self.tagged(text[len(TAG_PREFIX) :])
            else:
                one = self._by_name.get(text)
                matches = [one] if one is not None else []
            if not matches:
                unknown.append(text)
            for match in matches:
                chosen.setdefault(match.name, match)
        return _selection(list(chosen.values()), unknown)


def _selection(chosen: list[RegistryTool], unknown: list[str]) -> ToolSelection:
    """Marked functions become agent tools; a toolset is passed whole, or filtered to the chosen tools."""
    selection = ToolSelection(unknown=unknown)
    by_toolset: dict[int, tuple[FunctionToolset[Any], set[str]]] = {}
    for entry in chosen:
        if entry.toolset is None:
            # A copy per agent: an agent's own toolset sets its retry budget on the tools it is given.
            selection.tools.append(copy.copy(entry.tool))
        else:
            by_toolset.setdefault(id(entry.toolset), (entry.toolset, set()))[1].add(entry.name)
    for toolset, names in by_toolset.values():
        if names == set(toolset.tools):
            selection.toolsets.append(toolset)
        else:
            selection.toolsets.append(toolset.filtered(SelectedTools(frozenset(names))))
    return selection


def tool_registry(source: Any) -> list[dict[str, Any]]:
    """The registry's tools as `GET /api/registry/tools` lists them, from a `CatalogSnapshot` (or a
    `ToolRegistry`; None: no tools)."""
    registry = source if isinstance(source, ToolRegistry) else getattr(source, 'tools', None)
    if not isinstance(registry, ToolRegistry):
        return []
    return [entry.as_json() for entry in registry.entries()]
