"""Every private pydantic-ai name Synapse reads or patches, in one place, each behind a guard.

pydantic-ai has public API for most of what the info panel shows (`agent.model`, `agent.toolsets`,
`agent.root_capability`, `agent.output_json_schema()`, `Tool.tool_def`, ...). For the facts below it
has none, so they are read here and nowhere else:

- retry budgets (`_max_tool_retries`, `_max_output_retries`) and the default tool timeout;
- the agent's metadata as given (`_metadata`);
- instructions and system prompts as registered (`_instructions`, `_system_prompts`,
  `_system_prompt_functions`, `_cap_instructions`), without running any of them;
- the output mode (`_output_schema.mode`) and the output tools pydantic-ai built for the output
  type (`_output_schema.toolset`, and the definitions it holds, `OutputToolset._tool_defs`);
- the output validators as registered (`_output_validators`);
- which capabilities pydantic-ai injects into every agent (`_AUTO_INJECT_CAPABILITY_TYPES`;
  without it, the ones a bare agent has);
- the tool schema builder (`pydantic_ai._function_schema.function_schema`, called by `Tool()`),
  which discovery wraps so one tool whose schema cannot be built does not fail its whole module;
- `pydantic_ai.models.infer_model`, public, but wrapped by `keys` for agents without a provider key;
- the helpers that build a model request span's attributes (`pydantic_ai._instrumentation`), with
  which trace rows recorded from hooks carry what the spans would.

Each name is checked once, at first use (agent attributes on a probe agent), and the result is
cached. A missing name turns off only the feature that needs it: the reader returns "unknown", the
fact is listed in `AgentInfo.unavailable`, and the feature is recorded in `degraded` (see
`degraded_features()`). `tests/unit/test_discovery_internals.py` checks every name against the
installed pydantic-ai; `tests/unit/test_discovery_degraded.py` hides each one in turn.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pydantic_ai
from pydantic_ai import Agent

from . import degraded
from .degraded import DegradedFeature

AGENT = 'pydantic_ai.Agent'
"""Owner of the agent attributes: they are instance attributes, checked on a probe agent."""
OUTPUT_TOOLSET = 'pydantic_ai._output.OutputToolset'
"""Owner of the output toolset's attributes: instance attributes, checked on a probe toolset."""


@dataclass(frozen=True)
class PrivateName:
    """One pydantic-ai name discovery depends on, and what is lost without it."""

    owner: str
    """`AGENT` or `OUTPUT_TOOLSET` for an instance attribute, else the dotted module holding the name."""
    name: str
    feature: str
    lost: str
    facts: tuple[str, ...] = ()
    """The `AgentInfo` facts it feeds, listed in `AgentInfo.unavailable` when it is missing."""
    item: str | None = None
    """An attribute each element of the value must have (a list attribute), checked too."""
    member: str | None = None
    """An attribute the value itself must have, checked too."""

    @property
    def qualified(self) -> str:
        """`pydantic_ai.Agent._metadata`, `pydantic_ai.models.infer_model`, ..."""
        return f'{self.owner}.{self.name}'


_INSTRUCTIONS = 'instructions as registered'
_SCHEMA_FALLBACK = 'tool schema fallback'

MAX_TOOL_RETRIES = PrivateName(
    AGENT,
    '_max_tool_retries',
    'retry budgets',
    'the default tool retry budget is not shown',
    ('retries.tools',),
)
MAX_OUTPUT_RETRIES = PrivateName(
    AGENT,
    '_max_output_retries',
    'retry budgets',
    'the output retry budget is not shown',
    ('retries.output',),
)
TOOL_TIMEOUT = PrivateName(
    AGENT, '_tool_timeout', 'default tool timeout', 'the default tool timeout is not shown', ('tool_timeout',)
)
METADATA = PrivateName(
    AGENT,
    '_metadata',
    'agent metadata',
    'metadata is not shown and the Synapse options in it (synapse.stateless, synapse.deps_factory) '
    'are ignored',
    ('metadata', 'stateless'),
)
INSTRUCTIONS = PrivateName(
    AGENT,
    '_instructions',
    _INSTRUCTIONS,
    'instructions= and @agent.instructions are not listed',
    ('instructions.instructions',),
    item='instruction',
)
SYSTEM_PROMPTS = PrivateName(
    AGENT,
    '_system_prompts',
    _INSTRUCTIONS,
    'system_prompt= strings are not listed',
    ('instructions.system_prompt.static',),
)
SYSTEM_PROMPT_FUNCTIONS = PrivateName(
    AGENT,
    '_system_prompt_functions',
    _INSTRUCTIONS,
    '@agent.system_prompt functions are not listed',
    ('instructions.system_prompt.dynamic',),
    item='function',
)
CAPABILITY_INSTRUCTIONS = PrivateName(
    AGENT,
    '_cap_instructions',
    _INSTRUCTIONS,
    'instructions contributed by capabilities are not listed',
    ('instructions.capability',),
    item='instruction',
)
OUTPUT_SCHEMA = PrivateName(
    AGENT,
    '_output_schema',
    'output mode',
    'the output mode, the output schema and the output tools are not shown',
    ('output.mode', 'output.schema', 'output.tools', 'structured_output'),
    member='mode',
)
OUTPUT_TOOL_DEFS = PrivateName(
    OUTPUT_TOOLSET,
    '_tool_defs',
    'output tools',
    'the output tools (their names and argument schemas) are not listed',
    ('output.tools',),
)
OUTPUT_VALIDATORS = PrivateName(
    AGENT,
    '_output_validators',
    'output validators',
    '@agent.output_validator functions are not listed',
    ('output.validators',),
    item='function',
)
AUTO_CAPABILITY_TYPES = PrivateName(
    'pydantic_ai.agent',
    '_AUTO_INJECT_CAPABILITY_TYPES',
    "pydantic-ai's own capabilities",
    'they are recognised as the ones a bare agent has, so one pydantic-ai adds to some agents only '
    "would be listed as the agent's own",
)
FUNCTION_SCHEMA = PrivateName(
    'pydantic_ai._function_schema',
    'function_schema',
    _SCHEMA_FALLBACK,
    "a tool whose parameter schema cannot be built fails its module's import again",
)
FUNCTION_SCHEMA_CLASS = PrivateName(
    'pydantic_ai._function_schema',
    'FunctionSchema',
    _SCHEMA_FALLBACK,
    "a tool whose parameter schema cannot be built fails its module's import again",
)
INFER_MODEL = PrivateName(
    'pydantic_ai.models',
    'infer_model',
    'model placeholders',
    "a module whose agent's provider package is not installed fails to import, and one whose "
    'provider key is missing is imported twice (the second time with a placeholder key)',
)

_TRACE_HOOKS = 'trace trees from hooks'
_TRACE_HOOKS_LOST = (
    "runs are traced through pydantic-ai's OpenTelemetry instrumentation instead, which cost a turn "
    'about 2.5 ms more (docs/benchmarks.md)'
)
INSTRUMENTATION_HELPERS: tuple[PrivateName, ...] = (
    *(
        PrivateName('pydantic_ai._instrumentation', name, _TRACE_HOOKS, _TRACE_HOOKS_LOST)
        for name in (
            'model_attributes',
            'model_request_parameters_attributes',
            'model_settings_attributes',
            'build_tool_definitions',
            'response_attributes',
            'response_price_calculation',
        )
    ),
    PrivateName('pydantic_ai._unsupported_settings', 'suppress_warnings', _TRACE_HOOKS, _TRACE_HOOKS_LOST),
)
"""The helpers pydantic-ai builds a model request span's attributes with, and the switch it prepares
the request under for them without warning twice: the trace rows recorded from capability hooks
(`traces.hooks`) carry the same attributes as the spans would."""

NAMES: tuple[PrivateName, ...] = (
    MAX_TOOL_RETRIES,
    MAX_OUTPUT_RETRIES,
    TOOL_TIMEOUT,
    METADATA,
    INSTRUCTIONS,
    SYSTEM_PROMPTS,
    SYSTEM_PROMPT_FUNCTIONS,
    CAPABILITY_INSTRUCTIONS,
    OUTPUT_SCHEMA,
    OUTPUT_TOOL_DEFS,
    OUTPUT_VALIDATORS,
    AUTO_CAPABILITY_TYPES,
    FUNCTION_SCHEMA,
    FUNCTION_SCHEMA_CLASS,
    INFER_MODEL,
    *INSTRUMENTATION_HELPERS,
)
"""Every guarded name (the degraded-features test hides each in turn)."""

AGENT_ATTRIBUTES: tuple[str, ...] = tuple(n.name for n in NAMES if n.owner == AGENT)
"""The private attributes of `pydantic_ai.Agent` read below."""

FUNCTION_SCHEMA_ATTRIBUTES: tuple[str, ...] = (FUNCTION_SCHEMA.name, FUNCTION_SCHEMA_CLASS.name)
"""Names used on the private `pydantic_ai._function_schema` module."""

_MISSING: Any = object()
_lock = threading.RLock()
_checked: dict[PrivateName, bool] = {}
_probe: list[Agent[Any, Any] | None] = []
_probe_outputs: list[Any] = []
_helpers: list[dict[str, Callable[..., Any]] | None] = []
"""`instrumentation_helpers()`'s answer, once found (every traced turn and model call asks)."""


# -- checks -----------------------------------------------------------------------------------


def available(private: PrivateName) -> bool:
    """Whether the installed pydantic-ai has `private` (checked once; a miss is recorded)."""
    with _lock:
        known = _checked.get(private)
        if known is None:
            missing = _find_missing(private)
            known = _checked[private] = missing is None
            if missing is not None:
                _record(private, missing)
        return known


def _record(private: PrivateName, missing: str) -> None:
    version = str(getattr(pydantic_ai, '__version__', 'unknown'))
    degraded.record(DegradedFeature(private.feature, private.lost, missing, version))


def _find_missing(private: PrivateName) -> str | None:
    """None when the name (and the shape discovery relies on) is there, else what is missing."""
    if private.owner == AGENT:
        holder: Any = _probe_agent()
        if holder is None:  # pydantic-ai cannot build an agent at all: nothing to learn here
            return None
    elif private.owner == OUTPUT_TOOLSET:
        holder = _probe_output_toolset()
        if holder is None:
            return OUTPUT_TOOLSET
    else:
        try:
            holder = importlib.import_module(private.owner)
        except ImportError:
            return private.owner
    value = getattr(holder, private.name, _MISSING)
    if value is _MISSING:
        return private.qualified
    if private.member is not None and not hasattr(value, private.member):
        return f'{private.qualified}.{private.member}'
    if private.item is not None and not all(hasattr(entry, private.item) for entry in value):
        return f'{private.qualified}[].{private.item}'
    return None


def _probe_prompt() -> str:
    return 'Probe.'


def _probe_validator(output: str) -> str:
    return output


def _probe_agent() -> Agent[Any, Any] | None:
    """An agent with one entry in each list attribute and no capability of its own, built once."""
    if not _probe:
        try:
            agent: Agent[Any, Any] = Agent('test', instructions='Probe.', system_prompt='Probe.')
            agent.system_prompt(_probe_prompt)
            agent.output_validator(_probe_validator)
        except Exception:
            _probe.append(None)
        else:
            _probe.append(agent)
    return _probe[0]


def _probe_output_toolset() -> Any:
    """The output toolset pydantic-ai builds for an `int` output, built once (None if it cannot be)."""
    if not _probe_outputs:
        try:
            module, _, name = OUTPUT_TOOLSET.rpartition('.')
            _probe_outputs.append(getattr(importlib.import_module(module), name).build([int]))
        except Exception:
            _probe_outputs.append(None)
    return _probe_outputs[0]


def check_all() -> None:
    """Check every name now (the results are cached)."""
    for private in NAMES:
        available(private)


def degraded_features() -> list[DegradedFeature]:
    """What discovery cannot do with the installed pydantic-ai; empty when everything works."""
    check_all()
    return degraded.recorded()


def unavailable_facts() -> list[str]:
    """The `AgentInfo` facts no agent can show with the installed pydantic-ai."""
    return [fact for private in NAMES if private.facts and not available(private) for fact in private.facts]


def reset() -> None:
    """Forget every check and recorded feature, so the next use checks again."""
    with _lock:
        _checked.clear()
        _probe.clear()
        _probe_outputs.clear()
        _helpers.clear()
        degraded.clear()


def _read(holder: Any, private: PrivateName) -> Any:
    """The attribute, or `_MISSING` (recorded) when this pydantic-ai does not have it."""
    if not available(private):
        return _MISSING
    value = getattr(holder, private.name, _MISSING)
    if value is _MISSING:  # the probe had it, this object does not
        with _lock:
            _checked[private] = False
        _record(private, private.qualified)
    return value


# -- readers: None (or empty) when the name is missing ----------------------------------------


def retries(agent: Agent[Any, Any]) -> tuple[int | None, int | None]:
    """The agent's default (tool, output) retry budgets."""
    tools, output = _read(agent, MAX_TOOL_RETRIES), _read(agent, MAX_OUTPUT_RETRIES)
    return (None if tools is _MISSING else int(tools)), (None if output is _MISSING else int(output))


def tool_timeout(agent: Agent[Any, Any]) -> float | None:
    """The default timeout of the agent's tools, in seconds."""
    value = _read(agent, TOOL_TIMEOUT)
    return None if value is _MISSING or value is None else float(value)


def metadata(agent: Agent[Any, Any]) -> Any:
    """`Agent(metadata=...)` as given: a dict, a callable computing one per run, or None."""
    value = _read(agent, METADATA)
    return None if value is _MISSING else value


def instruction_recipes(agent: Agent[Any, Any]) -> list[Any]:
    """The agent's own instructions, in order: each a str, TemplateStr, InstructionPart or function."""
    value = _read(agent, INSTRUCTIONS)
    return [] if value is _MISSING else [sourced.instruction for sourced in value]


def capability_instruction_recipes(agent: Agent[Any, Any]) -> list[Any]:
    """Instructions contributed by the agent's capabilities, in the same forms."""
    value = _read(agent, CAPABILITY_INSTRUCTIONS)
    return [] if value is _MISSING else [sourced.instruction for sourced in value]


def system_prompts(agent: Agent[Any, Any]) -> tuple[str, ...]:
    """Static `system_prompt=` strings."""
    value = _read(agent, SYSTEM_PROMPTS)
    return () if value is _MISSING else tuple(value)


def system_prompt_functions(agent: Agent[Any, Any]) -> list[Callable[..., Any]]:
    """Functions registered with `@agent.system_prompt`."""
    value = _read(agent, SYSTEM_PROMPT_FUNCTIONS)
    return [] if value is _MISSING else [runner.function for runner in value]


def output_mode(agent: Agent[Any, Any]) -> str | None:
    """How the output is requested: 'text', 'tool', 'native', 'prompted', 'auto', 'image'..."""
    schema = _read(agent, OUTPUT_SCHEMA)
    mode = None if schema is _MISSING else getattr(schema, 'mode', None)
    return None if mode is None else str(mode)


def output_tool_definitions(agent: Agent[Any, Any]) -> tuple[list[Any], dict[str, Any]]:
    """The output tools' `ToolDefinition`s pydantic-ai built for the output type, and each tool's
    processor (`processors`, whose `object_def` names the type or function it builds); empty when the
    output is not requested through tools."""
    schema = _read(agent, OUTPUT_SCHEMA)
    toolset = None if schema is _MISSING else getattr(schema, 'toolset', None)
    if toolset is None:
        return [], {}
    definitions = _read(toolset, OUTPUT_TOOL_DEFS)
    if definitions is _MISSING:
        return [], {}
    return list(definitions), dict(getattr(toolset, 'processors', None) or {})


def output_validator_functions(agent: Agent[Any, Any]) -> list[Callable[..., Any]]:
    """Functions registered with `@agent.output_validator`, in order."""
    value = _read(agent, OUTPUT_VALIDATORS)
    return [] if value is _MISSING else [validator.function for validator in value]


def _module_attribute(private: PrivateName) -> Any:
    if not available(private):
        return _MISSING
    return getattr(importlib.import_module(private.owner), private.name, _MISSING)


def auto_capability_types() -> tuple[type[Any], ...] | None:
    """Capability classes pydantic-ai adds to every agent (infrastructure, not the user's).

    Without the private name: the classes of a bare agent's capabilities; None if none can be built.
    """
    value = _module_attribute(AUTO_CAPABILITY_TYPES)
    if value is not _MISSING:
        return tuple(value)
    probe = _probe_agent()
    if probe is None:
        return None
    leaves: list[Any] = []
    probe.root_capability.apply(leaves.append)
    return tuple({type(leaf) for leaf in leaves})


def function_schema_owner() -> Any:
    """The module whose `function_schema` attribute `Tool.__init__` calls to build a tool schema
    (`pydantic_ai._function_schema`), or None when it has no such attribute."""
    if not available(FUNCTION_SCHEMA):
        return None
    return importlib.import_module(FUNCTION_SCHEMA.owner)


def instrumentation_helpers() -> dict[str, Callable[..., Any]] | None:
    """pydantic-ai's span attribute helpers by name (`INSTRUMENTATION_HELPERS`); None when any is missing."""
    if _helpers:
        return _helpers[0]
    found = {private.name: _module_attribute(private) for private in INSTRUMENTATION_HELPERS}
    helpers = None if any(v is _MISSING or not callable(v) for v in found.values()) else found
    with _lock:
        _helpers[:] = [helpers]
    return helpers


def function_schema_class() -> type[Any] | None:
    """`FunctionSchema`, the dataclass `Tool.function_schema` holds."""
    value = _module_attribute(FUNCTION_SCHEMA_CLASS)
    return None if value is _MISSING else value
