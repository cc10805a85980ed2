"""Every private pydantic-ai name Synapse reads, in one place.

pydantic-ai has public API for most of what the info panel shows (`agent.model`, `agent.toolsets`,
`agent.root_capability`, `agent.output_json_schema()`, `Tool.tool_def`, ...). For the facts below it
has none, so they are read here and nowhere else:

- retry budgets (`_max_tool_retries`, `_max_output_retries`) and the default tool timeout;
- the agent's metadata as given (`_metadata`);
- instructions and system prompts as registered (`_instructions`, `_system_prompts`,
  `_system_prompt_functions`, `_cap_instructions`), without running any of them;
- model settings contributed by capabilities (`_cap_model_settings`);
- the output mode (`_output_schema.mode`);
- which capabilities pydantic-ai injects into every agent (`_AUTO_INJECT_CAPABILITY_TYPES`);
- the tool schema builder (`pydantic_ai._function_schema.function_schema`, called by `Tool()`),
  which discovery wraps so one tool whose schema cannot be built does not fail its whole module.

`tests/unit/test_discovery_internals.py` checks every name against the installed pydantic-ai, so an
upgrade that renames one fails that test by name instead of silently showing less.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic_ai import Agent

AGENT_ATTRIBUTES: tuple[str, ...] = (
    '_max_tool_retries',
    '_max_output_retries',
    '_tool_timeout',
    '_metadata',
    '_instructions',
    '_system_prompts',
    '_system_prompt_functions',
    '_cap_instructions',
    '_cap_model_settings',
    '_output_schema',
)
"""The private attributes of `pydantic_ai.Agent` read below (checked by the internals test)."""

FUNCTION_SCHEMA_ATTRIBUTES: tuple[str, ...] = ('function_schema', 'FunctionSchema')
"""Names used on the private `pydantic_ai._function_schema` module."""


def retries(agent: Agent[Any, Any]) -> tuple[int, int]:
    """The agent's default (tool, output) retry budgets."""
    return int(agent._max_tool_retries), int(agent._max_output_retries)


def tool_timeout(agent: Agent[Any, Any]) -> float | None:
    """The default timeout of the agent's tools, in seconds."""
    value = agent._tool_timeout
    return None if value is None else float(value)


def metadata(agent: Agent[Any, Any]) -> Any:
    """`Agent(metadata=...)` as given: a dict, a callable computing one per run, or None."""
    return agent._metadata


def instruction_recipes(agent: Agent[Any, Any]) -> list[Any]:
    """The agent's own instructions, in order: each a str, TemplateStr, InstructionPart or function."""
    return [sourced.instruction for sourced in agent._instructions]


def capability_instruction_recipes(agent: Agent[Any, Any]) -> list[Any]:
    """Instructions contributed by the agent's capabilities, in the same forms."""
    return [sourced.instruction for sourced in agent._cap_instructions]


def system_prompts(agent: Agent[Any, Any]) -> tuple[str, ...]:
    """Static `system_prompt=` strings."""
    return tuple(agent._system_prompts)


def system_prompt_functions(agent: Agent[Any, Any]) -> list[Callable[..., Any]]:
    """Functions registered with `@agent.system_prompt`."""
    return [runner.function for runner in agent._system_prompt_functions]


def capability_model_settings(agent: Agent[Any, Any]) -> Any:
    """Model settings contributed by capabilities: a dict, a callable, or None."""
    return agent._cap_model_settings


def output_mode(agent: Agent[Any, Any]) -> str | None:
    """How the output is requested: 'text', 'tool', 'native', 'prompted', 'auto', 'image'..."""
    mode = getattr(agent._output_schema, 'mode', None)
    return None if mode is None else str(mode)


def auto_capability_types() -> tuple[type[Any], ...]:
    """Capability classes pydantic-ai adds to every agent (infrastructure, not the user's)."""
    from pydantic_ai import agent as agent_module

    types: tuple[type[Any], ...] = agent_module._AUTO_INJECT_CAPABILITY_TYPES
    return types


def function_schema_owner() -> Any:
    """The module whose `function_schema` attribute `Tool.__init__` calls to build a tool schema."""
    from pydantic_ai import _function_schema

    return _function_schema


def function_schema_class() -> type[Any]:
    """`FunctionSchema`, the dataclass `Tool.function_schema` holds."""
    from pydantic_ai._function_schema import FunctionSchema

    return FunctionSchema
