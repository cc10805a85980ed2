"""AgentInfo from an agent: everything it will send to its model, read without running anything.

Public pydantic-ai API wherever one exists (`agent.model`, `agent.model_settings`,
`agent.end_strategy`, `agent.output_type`, `agent.output_json_schema()`, `agent.deps_type`,
`agent.toolsets` and each `Tool.tool_def`, `agent.root_capability` and each capability's
`get_native_tools()`); the rest through `_pydantic_ai_internals`. Each section is read on its own:
one that raises becomes an `inspect_error` (with its traceback) and the others still show. A tool
whose schema cannot be produced shows `parameters: null` with `schema_error`, for that tool only.
MCP toolsets are named and described from their transport, each once (see `mcp_servers`); nothing
connects to a server. Native tools are listed once per `unique_id`, as pydantic-ai sends them. A
fact the installed pydantic-ai does not let Synapse read is left empty and named in `unavailable`.
"""

from __future__ import annotations

import traceback
import typing
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.models import Model
from pydantic_ai.template import TemplateStr
from pydantic_ai.toolsets import AbstractToolset, FilteredToolset, FunctionToolset

from ..tools import SelectedTools
from . import _pydantic_ai_internals as internals
from ._describe import (
    checked_json,
    function_name,
    jsonable,
    location,
    model_ref,
    native_tool_info,
    referenced_agents,
    type_name,
)
from ._tool_schemas import schema_failure
from .agent_info import (
    AgentInfo,
    CapabilityInfo,
    Counts,
    DepsInfo,
    InstructionInfo,
    ModelRef,
    NativeToolInfo,
    OutputInfo,
    RetriesInfo,
    ToolInfo,
    ToolsetInfo,
)
from .mcp_servers import is_mcp, mcp_servers, native_fallback_of, toolset_leaves
from .output_info import read_output

AGENT_TOOLSET_ID = '<agent>'
"""The id pydantic-ai gives an agent's own function toolset (`AbstractToolset.id`)."""


@dataclass
class SectionFailure:
    """One part of an agent that could not be read."""

    section: str
    error: BaseException
    traceback: str


@dataclass
class SubagentRef:
    """An agent a tool of this agent calls (the slug is filled in by the catalog)."""

    agent: Agent[Any, Any]
    name: str
    via_tool: str


@dataclass
class Inspection:
    """The info (slug and sub-agent slugs still empty) and what could not be read."""

    info: AgentInfo
    subagents: list[SubagentRef] = field(default_factory=list)
    failures: list[SectionFailure] = field(default_factory=list)


class _Reader:
    def __init__(self) -> None:
        self.failures: list[SectionFailure] = []

    @contextmanager
    def section(self, name: str) -> Iterator[None]:
        try:
            yield
        except Exception as exc:
            self.failures.append(SectionFailure(name, exc, traceback.format_exc()))


def inspect_agent(
    agent: Agent[Any, Any], *, name: str, module: str, attribute: str, file: str | None, project_root: Path
) -> Inspection:
    """Read everything the info panel shows about `agent`."""
    read = _Reader()
    model: ModelRef | None = None
    settings: dict[str, Any] | None = None
    settings_dynamic: str | None = None
    retries = RetriesInfo()
    output = OutputInfo(type='str')
    deps = DepsInfo(type=None)
    instructions: list[InstructionInfo] = []
    tools: list[ToolInfo] = []
    toolsets: list[ToolsetInfo] = []
    native: list[NativeToolInfo] = []
    capabilities: list[CapabilityInfo] = []
    subagents: list[SubagentRef] = []
    metadata: dict[str, Any] | None = None
    description: str | None = None
    end_strategy: str | None = None
    tool_timeout: float | None = None

    with read.section('description'):
        description = agent.description
    with read.section('model'):
        model = model_ref(_own_model(agent))
    with read.section('model settings'):
        settings, settings_dynamic = _model_settings(agent.model_settings)
    with read.section('retries'):
        tool_retries, output_retries = internals.retries(agent)
        retries = RetriesInfo(tools=tool_retries, output=output_retries)
        end_strategy = str(agent.end_strategy)
        tool_timeout = internals.tool_timeout(agent)
    with read.section('output'):
        output = read_output(agent, project_root)
    with read.section('deps'):
        deps = DepsInfo(type=None if deps_optional(agent.deps_type) else type_name(agent.deps_type))
    with read.section('instructions'):
        instructions = _instructions(agent, project_root)
    with read.section('toolsets'):
        tools, toolsets, subagents = _toolsets(agent, project_root)
    leaves: list[AbstractCapability[Any]] = []
    with read.section('capabilities'):
        leaves = _user_capabilities(agent)
        capabilities = [
            CapabilityInfo(**{'class': type(c).__name__}, module=type(c).__module__, id=_cap_id(c))
            for c in leaves
        ]
    with read.section('native tools'):
        native = _native_tools(leaves)
    with read.section('metadata'):
        raw = internals.metadata(agent)
        metadata = jsonable(raw) if isinstance(raw, dict) else None

    info = AgentInfo(
        slug='',
        name=name,
        module=module,
        attribute=attribute,
        file=file,
        description=description,
        model=model,
        counts=Counts(
            tools=len(tools),
            native_tools=len(native),
            toolsets=len(toolsets),
            mcp_toolsets=sum(t.kind == 'mcp' for t in toolsets),
            capabilities=len(capabilities),
            subagents=len(subagents),
        ),
        structured_output=output.mode not in (None, 'text'),
        tools=tools,
        model_settings=settings,
        model_settings_dynamic=settings_dynamic,
        retries=retries,
        end_strategy=end_strategy,
        tool_timeout=tool_timeout,
        output=output,
        deps=deps,
        instructions=instructions,
        toolsets=toolsets,
        native_tools=native,
        capabilities=capabilities,
        metadata=metadata,
        unavailable=internals.unavailable_facts(),
    )
    return Inspection(info, subagents, read.failures)


def _own_model(agent: Agent[Any, Any]) -> Model | str | None:
    model = agent.model
    if model is None:
        contributed = agent.root_capability.get_model()
        if isinstance(contributed, Model | str):
            return contributed
    return model


def _model_settings(value: Any) -> tuple[dict[str, Any] | None, str | None]:
    if value is None:
        return None, None
    if callable(value):
        return None, function_name(value)
    return {key: jsonable(item) for key, item in dict(value).items() if item is not None}, None


def deps_optional(deps_type: Any) -> bool:
    """Whether an agent can run without deps: no deps type, or one that admits None."""
    if deps_type in (object, type(None), None, Any):
        return True
    return type(None) in typing.get_args(deps_type)


def _instructions(agent: Agent[Any, Any], project_root: Path) -> list[InstructionInfo]:
    found: list[InstructionInfo] = []
    for text in internals.system_prompts(agent):
        found.append(InstructionInfo(kind='static', source='system_prompt', text=text))
    for function in internals.system_prompt_functions(agent):
        found.append(_dynamic(function, 'system_prompt', project_root))
    for recipe in internals.instruction_recipes(agent):
        found.append(_instruction(recipe, 'instructions', project_root))
    for recipe in internals.capability_instruction_recipes(agent):
        found.append(_instruction(recipe, 'capability', project_root))
    return found


def _instruction(recipe: Any, source: Any, project_root: Path) -> InstructionInfo:
    if isinstance(recipe, TemplateStr):
        return InstructionInfo(kind='static', source=source, text=str(recipe), template=True)
    if isinstance(recipe, str):
        return InstructionInfo(kind='static', source=source, text=recipe)
    content = getattr(recipe, 'content', None)
    if isinstance(content, str):  # an InstructionPart
        return InstructionInfo(kind='static', source=source, text=content, name=getattr(recipe, 'name', None))
    return _dynamic(recipe, source, project_root)


def _dynamic(function: Callable[..., Any], source: Any, project_root: Path) -> InstructionInfo:
    return InstructionInfo(
        kind='dynamic', source=source, name=function_name(function), location=location(function, project_root)
    )


def _toolsets(
    agent: Agent[Any, Any], project_root: Path
) -> tuple[list[ToolInfo], list[ToolsetInfo], list[SubagentRef]]:
    tools: list[ToolInfo] = []
    toolsets: list[ToolsetInfo] = []
    subagents: list[SubagentRef] = []
    servers = mcp_servers(agent)
    listed: set[int] = set()
    for found in toolset_leaves(agent):
        leaf, capability = found.toolset, found.capability
        fallback = native_fallback_of(capability)
        owner = type(capability).__name__ if capability is not None else None
        if isinstance(leaf, FunctionToolset):
            only = _chosen_names(found.top)
            own = leaf.id == AGENT_TOOLSET_ID
            label = 'agent' if own else leaf.label
            names: list[str] = []
            for tool in leaf.tools.values():
                if only is not None and tool.name not in only:
                    continue
                tools.append(_tool(tool, label, project_root, leaf, fallback))
                names.append(tool.name)
                subagents.extend(
                    SubagentRef(ref, ref_name, tool.name)
                    for ref_name, ref in referenced_agents(tool.function)
                    if ref is not agent and all(s.agent is not ref for s in subagents)
                )
            if names or not own:
                cls = {'class': _public_name(type(leaf))}
                toolsets.append(
                    ToolsetInfo(
                        kind='function',
                        **cls,
                        label=label,
                        tools=names,
                        capability=owner,
                        native_fallback=fallback,
                    )
                )
        elif is_mcp(leaf):
            if id(leaf) in listed:  # given in toolsets= and through a capability: one server
                continue
            listed.add(id(leaf))
            index = next(i for i, server in enumerate(servers) if server.toolset is leaf)
            server = servers[index]
            toolsets.append(
                ToolsetInfo(
                    kind='mcp',
                    **{'class': type(leaf).__name__},
                    label=server.label,
                    description=server.description,
                    index=index,
                    capability=type(server.capability).__name__ if server.capability is not None else None,
                    native_fallback=native_fallback_of(server.capability),
                )
            )
        else:
            toolsets.append(_other_toolset(leaf, found.top).model_copy(update={'capability': owner}))
    return tools, toolsets, subagents


def _chosen_names(top: AbstractToolset[Any]) -> frozenset[str] | None:
    """The tools a toolset filtered to a registry selection lets through (None: no such filter)."""
    if isinstance(top, FilteredToolset) and isinstance(top.filter_func, SelectedTools):
        return top.filter_func.names
    return None


def _tool(
    tool: Any, toolset: str, project_root: Path, owner: FunctionToolset[Any], fallback: str | None
) -> ToolInfo:
    description = getattr(tool, 'description', None)
    parameters: dict[str, Any] | None = None
    error: str | None = None
    failure = schema_failure(getattr(tool, 'function_schema', None))
    if failure is not None:
        error = failure.error
    else:
        try:
            tool_def = tool.tool_def
            parameters = checked_json(tool_def.parameters_json_schema)
            description = tool_def.description
        except Exception as exc:
            error = f'{type(exc).__name__}: {exc}'.strip()
    required = parameters.get('required', []) if parameters else []
    return ToolInfo(
        name=str(tool.name),
        description=description,
        parameters=parameters,
        required=[str(name) for name in required] if isinstance(required, list) else [],
        schema_error=error,
        toolset=toolset,
        takes_ctx=bool(getattr(tool, 'takes_ctx', False)),
        requires_approval=bool(getattr(tool, 'requires_approval', False)),
        location=location(tool.function, project_root) if callable(getattr(tool, 'function', None)) else None,
        max_retries=_retries(getattr(tool, 'max_retries', None), owner.max_retries),
        prepare=function_name(tool.prepare) if getattr(tool, 'prepare', None) is not None else None,
        native_fallback=fallback,
    )


def _retries(*budgets: Any) -> int | None:
    """The first retry budget that is set (the tool's, then its toolset's)."""
    return next((int(budget) for budget in budgets if isinstance(budget, int)), None)


def _other_toolset(leaf: AbstractToolset[Any], top: AbstractToolset[Any]) -> ToolsetInfo:
    cls = type(leaf)
    description = None
    function = getattr(leaf, 'toolset_func', None)
    if function is not None:
        description = f'built per run by {function_name(function)}()'
    elif top is not leaf and type(top).__name__ != 'CombinedToolset':
        description = f'wrapped by {type(top).__name__}'
    return ToolsetInfo(kind='other', **{'class': cls.__name__}, label=leaf.label, description=description)


def _public_name(cls: type) -> str:
    """The first class in the MRO whose name is not private (`_AgentFunctionToolset` → `FunctionToolset`)."""
    return next((c.__name__ for c in cls.__mro__ if not c.__name__.startswith('_')), cls.__name__)


def _user_capabilities(agent: Agent[Any, Any]) -> list[AbstractCapability[Any]]:
    leaves: list[AbstractCapability[Any]] = []
    agent.root_capability.apply(leaves.append)
    automatic = internals.auto_capability_types()
    if automatic is None:
        raise LookupError("pydantic-ai's own capabilities cannot be told from the agent's")
    return [leaf for leaf in leaves if not isinstance(leaf, automatic)]


def _cap_id(capability: AbstractCapability[Any]) -> str | None:
    value = getattr(capability, 'id', None)
    return value if isinstance(value, str) else None


def _native_tools(capabilities: list[AbstractCapability[Any]]) -> list[NativeToolInfo]:
    """The capabilities' native tools, one per `unique_id` (pydantic-ai sends each id once)."""
    native: list[NativeToolInfo] = []
    seen: set[str] = set()
    for capability in capabilities:
        for tool in capability.get_native_tools():
            key = getattr(tool, 'unique_id', None)
            if isinstance(key, str):
                if key in seen:
                    continue
                seen.add(key)
            native.append(native_tool_info(tool))
    return native
