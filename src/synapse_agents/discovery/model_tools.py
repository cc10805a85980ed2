"""The tools a model receives, resolved by pydantic-ai itself: `model_tools(agent, deps)`.

The info panel reads an agent's toolsets without running anything, so prefixes, renames, filters,
`prepare=` functions, `PreparedToolset`s, the `PrepareTools` capability and `@agent.toolset`
functions are not applied there. This view runs the agent once, up to its first model request,
with a `FunctionModel` that keeps the tool definitions it is handed (`AgentInfo.function_tools` and
`output_tools`) and stops the run: the first request of a new conversation, with the given deps.
No tool runs (a tool call would be refused before its function), and the run records no spans
(its `Instrumentation` capability writes to no-op providers). What a first request runs does run:
instruction functions, `prepare` functions, dynamic toolset functions, capability hooks.

Native tools are listed once each (`native_tools`), as the request carries them. The capturing
model supports every native tool, so a local fallback of one (`WebSearch(local=...)`, stamped
`unless_native`) is dropped, as it is for a real model that has the native tool.

Not shown, and why:

- the tools of MCP servers: nothing connects to a server, so each MCP toolset (also one a dynamic
  toolset returns) is left out and named, once, in `mcp_skipped`;
- what a later request would get: a `prepare` that looks at the step, the history or the retries
  can answer differently then (`dynamic` marks the tools that may change);
- provider adjustments: the schemas are the ones pydantic-ai hands any model, before a provider's
  own strict-mode or schema rewriting; a real model without a native tool gets its local fallback
  instead (or refuses the run).

Each tool's `origin` (the toolset it comes from and the wrappers it went through) is found by
following its name down the run's own toolset tree; it is None when it cannot be told.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from opentelemetry.metrics import NoOpMeterProvider
from opentelemetry.trace import NoOpTracerProvider
from pydantic import BaseModel, ConfigDict, Field
from pydantic_ai import RunContext
from pydantic_ai.agent import AbstractAgent
from pydantic_ai.capabilities import AbstractCapability, Instrumentation
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.tool_manager import ToolManager
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import (
    AbstractToolset,
    ApprovalRequiredToolset,
    CombinedToolset,
    DynamicToolset,
    FilteredToolset,
    FunctionToolset,
    PrefixedToolset,
    PreparedToolset,
    RenamedToolset,
    ToolsetTool,
    WrapperToolset,
)

from . import _pydantic_ai_internals as internals
from ._describe import function_name, native_tool_info
from .agent_info import NativeToolInfo
from .mcp_servers import SkippedServers, strip_mcp

__all__ = ['ModelTool', 'ModelToolsView', 'ToolOrigin', 'WrapperStep', 'model_tools']

PROMPT = 'Hello.'
DYNAMIC_NOTE = (
    'Some tools are built or prepared per request: this is what the first request of a new '
    'conversation gets; a later request can differ.'
)


class _Model(BaseModel):
    model_config = ConfigDict(serialize_by_alias=True, validate_by_name=True, validate_by_alias=True)


class WrapperStep(_Model):
    """One layer a tool went through on its way to the model, outermost first."""

    class_: str = Field(alias='class', description="'PrefixedToolset', 'PrepareTools', 'Tool', ...")
    kind: Literal['toolset', 'capability', 'tool'] = Field(description="'tool': its own `prepare=`.")
    detail: str | None = Field(None, description="e.g. \"prefix 'db'\", 'prepare hide_admin'.")


class ToolOrigin(_Model):
    """The toolset a tool comes from, and the wrappers (and capabilities) that changed it."""

    toolset: str = Field(description="The toolset's class, e.g. 'FunctionToolset', 'ExternalToolset'.")
    id: str | None = Field(description="'<agent>': the agent's own tools, '<output>': output tools.")
    label: str
    name: str = Field(description='The name the tool has in that toolset.')
    wrappers: list[WrapperStep] = Field(default_factory=list)


class ModelTool(_Model):
    """One tool definition as the model receives it."""

    name: str
    description: str | None
    parameters: dict[str, Any] = Field(description='The JSON schema of the arguments.')
    strict: bool | None
    kind: Literal['function', 'output', 'external', 'unapproved']
    sequential: bool
    dynamic: bool = Field(description='Built per run step or changed by a prepare: may differ later.')
    origin: ToolOrigin | None = Field(description='Where it comes from; None when it cannot be told.')


class ModelToolsView(_Model):
    """What the model receives on the first request of a new conversation."""

    tools: list[ModelTool] = Field(description="Function tools ('function', 'external', 'unapproved').")
    output_tools: list[ModelTool]
    native_tools: list[NativeToolInfo] = Field(
        default_factory=list, description='Provider-side tools the request carries, each once.'
    )
    allow_text_output: bool
    output_mode: str | None
    dynamic: bool = Field(description='Whether any tool is built or prepared per request.')
    note: str | None = None
    mcp_skipped: list[str] = Field(default_factory=list, description='MCP toolsets left out (not connected).')


class _Stopped(Exception):
    """Ends the resolving run once the definitions are kept."""


async def model_tools(agent: AbstractAgent[Any, Any], deps: Any = None) -> ModelToolsView:
    """The tool definitions `agent` sends its model on a first request (see the module docstring)."""
    skipped = SkippedServers()
    stripped = [strip_mcp(t, skipped) for t in agent.toolsets if t.id != AGENT_TOOLSET]
    capture = _Capture(_capability_hooks(agent))
    model = FunctionModel(capture.respond, model_name='synapse-model-tools')
    silent = Instrumentation(
        settings=InstrumentationSettings(
            tracer_provider=NoOpTracerProvider(), meter_provider=NoOpMeterProvider(), include_content=False
        )
    )
    # The override keeps the agent's own function toolset and replaces the rest (its user, dynamic
    # and capability toolsets) with the stripped copies, for this context only.
    with agent.override(model=model, toolsets=stripped):
        try:
            await agent.run(PROMPT, model=model, deps=deps, capabilities=[silent, capture], infer_name=False)
        except Exception:
            if capture.view is None:
                raise
    if capture.view is None:
        raise RuntimeError('The run ended before its first model request.')
    return capture.view.model_copy(update={'mcp_skipped': skipped.labels()})


def _capability_hooks(agent: AbstractAgent[Any, Any]) -> dict[str, list[str]]:
    """The agent's capabilities that can change tool definitions, by the hook they override."""
    leaves: list[AbstractCapability[Any]] = []
    root = getattr(agent, 'root_capability', None)
    if root is not None:
        root.apply(leaves.append)
    hooks: dict[str, list[str]] = {'prepare_tools': [], 'prepare_output_tools': [], 'get_wrapper_toolset': []}
    for leaf in leaves:
        for hook, names in hooks.items():
            if getattr(type(leaf), hook) is not getattr(AbstractCapability, hook):
                names.append(type(leaf).__name__)
    return hooks


@dataclass
class _Capture(AbstractCapability[Any]):
    """Keeps the run context of the first request; refuses every tool call of the resolving run."""

    hooks: dict[str, list[str]] = field(default_factory=dict)
    ctx: RunContext[Any] | None = None
    view: ModelToolsView | None = None

    async def before_model_request(self, ctx: RunContext[Any], request_context: Any) -> Any:
        if self.ctx is None:
            self.ctx = ctx
        return request_context

    async def before_tool_execute(self, ctx: RunContext[Any], *, call: Any, tool_def: Any, args: Any) -> Any:
        raise _Stopped(f'the resolving run does not execute tools ({tool_def.name})')

    async def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if self.view is None:
            self.view = await self._view(info)
        raise _Stopped('the tool definitions are kept')

    async def _view(self, info: AgentInfo) -> ModelToolsView:
        manager = self.ctx.tool_manager if self.ctx is not None else None
        origins = None if self.ctx is None or manager is None else Origins(self.ctx, manager, self.hooks)
        tools = [await _tool(d, origins) for d in info.function_tools]
        outputs = [await _tool(d, origins) for d in info.output_tools]
        dynamic = any(t.dynamic for t in [*tools, *outputs])
        parameters = info.model_request_parameters
        mode = getattr(parameters, 'output_mode', None)
        native = [native_tool_info(t) for t in getattr(parameters, 'native_tools', None) or ()]
        return ModelToolsView(
            tools=tools,
            output_tools=outputs,
            native_tools=native,
            allow_text_output=info.allow_text_output,
            output_mode=None if mode is None else str(mode),
            dynamic=dynamic,
            note=DYNAMIC_NOTE if dynamic else None,
        )


async def _tool(d: ToolDefinition, origins: Origins | None) -> ModelTool:
    origin, dynamic = None, False
    try:
        if origins is not None:
            origin, dynamic = await origins.find(d.name)
    except Exception:  # best effort: the definition itself is what matters
        origin, dynamic = None, False
    facts = {'description': d.description, 'strict': d.strict, 'kind': d.kind, 'sequential': d.sequential}
    parameters = dict(d.parameters_json_schema)
    return ModelTool(name=d.name, parameters=parameters, dynamic=dynamic, origin=origin, **facts)


# -- origins: each final name followed down the run's toolset tree -------------------------------

AGENT_TOOLSET = '<agent>'
OUTPUT_TOOLSET = '<output>'
_MAX_DEPTH = 64


class Origins:
    """Finds where a tool of the current run step comes from (`ctx.tool_manager`'s toolset tree).

    Above the toolsets the agent was given, pydantic-ai adds layers of its own (the combined
    toolset, the capabilities' `prepare_tools`, their wrapper toolsets): they are not listed, but
    when they changed a definition the capabilities that can do so are named as `capability` steps.
    Each toolset on the way is listed again (once), so `prepare` functions run a second time.
    """

    def __init__(self, ctx: RunContext[Any], manager: ToolManager[Any], hooks: dict[str, list[str]]) -> None:
        self.ctx = ctx
        self.root = manager.toolset
        self.final = dict(manager.tools or {})
        self.hooks = hooks
        self._listed: dict[int, dict[str, ToolsetTool[Any]]] = {}

    async def _tools(self, node: AbstractToolset[Any]) -> dict[str, ToolsetTool[Any]]:
        key = id(node)
        if key not in self._listed:
            self._listed[key] = await node.get_tools(self.ctx)
        return self._listed[key]

    async def find(self, name: str) -> tuple[ToolOrigin | None, bool]:
        """The origin of the tool `name` (None when it cannot be told) and whether it is dynamic."""
        tool = self.final.get(name)
        if tool is None:
            return None, False
        top, given = tool.tool_def, None
        node: AbstractToolset[Any] = self.root
        steps: list[tuple[bool, WrapperStep]] = []
        for _ in range(_MAX_DEPTH):
            if given is None and (_holds_agent_toolset(node) or node.id == OUTPUT_TOOLSET):
                given = tool.tool_def
            children = _children(node)
            if isinstance(node, CombinedToolset):
                for child in children:
                    if name in (listed := await self._tools(child)):
                        node, tool = child, listed[name]
                        break
                else:
                    return None, False
                continue
            if not children or node.id == OUTPUT_TOOLSET:
                break
            inner_name, inner = await self._inner(node, children[0], name, tool)
            if inner is None:
                if tool.toolset is node:  # a wrapper that makes this tool itself
                    break
                return None, False
            steps.append((given is not None, _step(node, name, inner_name)))
            node, tool, name = children[0], inner, inner_name
        else:
            return None, False
        changed = given is not None and _seen(given) != _seen(top)
        hook = 'prepare_output_tools' if node.id == OUTPUT_TOOLSET else 'prepare_tools'
        shown = [step for own, step in steps if own or given is None]
        own_prepare = _prepare_step(node, name)
        wrappers = [*(self._capability_steps(hook) if changed else []), *shown, *own_prepare]
        dynamic = changed or bool(own_prepare) or any(s.class_ in _PER_REQUEST for s in shown)
        label = 'agent' if node.id == AGENT_TOOLSET else node.label
        cls = _public_name(type(node))
        return ToolOrigin(toolset=cls, id=node.id, label=label, name=name, wrappers=wrappers), dynamic

    async def _inner(
        self, node: AbstractToolset[Any], child: AbstractToolset[Any], name: str, tool: ToolsetTool[Any]
    ) -> tuple[str, ToolsetTool[Any] | None]:
        listed = await self._tools(child)
        candidates = [name]
        if isinstance(node, PrefixedToolset):
            candidates.insert(0, name.removeprefix(f'{node.prefix}_'))
        elif isinstance(node, RenamedToolset):
            candidates.insert(0, node.name_map.get(name, name))
        for candidate in candidates:
            if candidate in listed:
                return candidate, listed[candidate]
        # An unknown renaming wrapper: the same argument validator is the same tool.
        same = [(key, item) for key, item in listed.items() if item.args_validator is tool.args_validator]
        return same[0] if len(same) == 1 else (name, None)

    def _capability_steps(self, hook: str) -> list[WrapperStep]:
        names = [*self.hooks.get(hook, []), *self.hooks.get('get_wrapper_toolset', [])]
        automatic = internals.auto_capability_types() or ()
        own = [n for n in names if n not in {cls.__name__ for cls in automatic}]
        return [
            WrapperStep(**{'class': n}, kind='capability', detail=hook) for n in dict.fromkeys(own or names)
        ]


_PER_REQUEST = frozenset({'DynamicToolset', 'PreparedToolset'})


def _seen(d: ToolDefinition) -> tuple[Any, ...]:
    """What a model is sent of a definition (pydantic-ai stamps other fields on the way up)."""
    return (d.name, d.description, d.parameters_json_schema, d.strict, d.kind, d.sequential)


def _holds_agent_toolset(node: AbstractToolset[Any]) -> bool:
    """The combined toolset of the agent's own toolsets: its own function toolset is among them."""
    return isinstance(node, CombinedToolset) and any(child.id == AGENT_TOOLSET for child in node.toolsets)


def _children(node: AbstractToolset[Any]) -> list[AbstractToolset[Any]]:
    if isinstance(node, CombinedToolset):
        return list(node.toolsets)
    if isinstance(node, WrapperToolset):
        return [node.wrapped]
    if isinstance(node, DynamicToolset):
        # The toolset its function built for this step (not public: a leaf without it).
        built = getattr(node, '_toolset', None)
        return [built] if isinstance(built, AbstractToolset) else []
    return []


def _step(node: AbstractToolset[Any], name: str, inner_name: str) -> WrapperStep:
    detail: str | None = None
    if isinstance(node, PrefixedToolset):
        detail = f'prefix {node.prefix!r}'
    elif isinstance(node, RenamedToolset):
        detail = f'renamed from {inner_name!r}' if inner_name != name else None
    elif isinstance(node, FilteredToolset):
        detail = f'filter {function_name(node.filter_func)}'
    elif isinstance(node, PreparedToolset):
        detail = f'prepare {function_name(node.prepare_func)}'
    elif isinstance(node, DynamicToolset):
        every = 'run step' if node.per_run_step else 'run'
        detail = f'built per {every} by {function_name(node.toolset_func)}'
    elif isinstance(node, ApprovalRequiredToolset):
        detail = 'calls need approval'
    elif inner_name != name:
        detail = f'renamed from {inner_name!r}'
    return WrapperStep(**{'class': _public_name(type(node))}, kind='toolset', detail=detail)


def _prepare_step(node: AbstractToolset[Any], name: str) -> list[WrapperStep]:
    """A function tool's own `prepare=` function, as a step (none without one)."""
    tool = node.tools.get(name) if isinstance(node, FunctionToolset) else None
    prepare = getattr(tool, 'prepare', None)
    if prepare is None:
        return []
    return [WrapperStep(**{'class': 'Tool'}, kind='tool', detail=f'prepare {function_name(prepare)}')]


def _public_name(cls: type) -> str:
    """The first class in the MRO whose name is not private (`_AgentFunctionToolset` → `FunctionToolset`)."""
    return next((c.__name__ for c in cls.__mro__ if not c.__name__.startswith('_')), cls.__name__)
