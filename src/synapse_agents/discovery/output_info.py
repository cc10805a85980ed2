"""The output section of an agent's info: what the model is asked to produce, and how.

The output type as written (`agent.output_type`), the mode and JSON schema pydantic-ai derives
(`agent.output_json_schema()`), and, when the output is requested through tools, the output tools
exactly as pydantic-ai built them for the agent: their names (`final_result`, `final_result_Card`,
a `ToolOutput(name=...)`), descriptions and argument schemas, with the output function each one's
arguments are passed to. `TextOutput(fn)` names the function the text is passed to, and the output
validators are listed by name. Reading them needs private names (`_pydantic_ai_internals`): without
one, that fact is left empty.

`DeferredToolRequests` (and `DeferredToolResults`) in an output type, as in
`output_type=[str, DeferredToolRequests]`, only say that a run may pause for tool approval or
external execution: the type and schema shown are those of the rest (the answer the model gives),
as for an agent whose output type is only that, and `deferred` carries the note.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults
from pydantic_ai.output import TextOutput

from . import _pydantic_ai_internals as internals
from ._describe import checked_json, function_name, location, type_name
from .agent_info import OutputInfo, OutputToolInfo, OutputValidatorInfo


def read_output(agent: Agent[Any, Any], project_root: Path) -> OutputInfo:
    """The output section of an agent's info: type, mode, schema, output tools and validators."""
    mode = internals.output_mode(agent)
    shown, deferred = without_deferred(agent.output_type)
    schema: dict[str, Any] | None = None
    error: str | None = None
    if mode not in (None, 'text'):
        try:
            schema = checked_json(agent.output_json_schema(shown))
        except Exception as exc:
            error = f'{type(exc).__name__}: {exc}'
    functions = list(_output_functions(agent.output_type))
    text = [item.output_function for item in _output_items(agent.output_type) if isinstance(item, TextOutput)]
    validators = [
        OutputValidatorInfo(
            name=function_name(function),
            takes_ctx=_validator_takes_ctx(function),
            location=location(function, project_root),
        )
        for function in internals.output_validator_functions(agent)
    ]
    return OutputInfo(
        type=type_name(shown),
        mode=mode,
        schema=schema,
        schema_error=error,
        tools=_output_tools(agent, functions),
        text_function=function_name(text[0]) if text else None,
        validators=validators,
        deferred=_deferred_note(deferred),
    )


DEFERRED_TYPES: tuple[type[Any], ...] = (DeferredToolRequests, DeferredToolResults)


def without_deferred(spec: Any) -> tuple[Any, list[type[Any]]]:
    """`spec` without its `DeferredToolRequests`/`DeferredToolResults` members (list items or union
    members), and the ones it had; `spec` itself when nothing else would be left."""
    members = _members(spec)
    found = [member for member in members if member in DEFERRED_TYPES]
    rest = [member for member in members if member not in DEFERRED_TYPES]
    if not found or not rest:
        return spec, []
    return (rest[0] if len(rest) == 1 else rest), list(dict.fromkeys(found))


def _members(spec: Any) -> list[Any]:
    """The top-level alternatives of an output spec: list items and union members, flattened."""
    if isinstance(spec, list | tuple):
        return [member for item in spec for member in _members(item)]
    if isinstance(spec, types.UnionType) or typing.get_origin(spec) is typing.Union:
        return [member for item in typing.get_args(spec) for member in _members(item)]
    return [spec]


def _deferred_note(found: list[type[Any]]) -> str | None:
    if DeferredToolRequests in found:
        return (
            'A run may also pause before this output, with DeferredToolRequests: tool calls that wait '
            'for approval or for their result from outside the run.'
        )
    if DeferredToolResults in found:
        return 'A run may also end with DeferredToolResults instead of this output.'
    return None


def _output_tools(agent: Agent[Any, Any], functions: list[Callable[..., Any]]) -> list[OutputToolInfo]:
    """The output tools pydantic-ai built for the output type, each with the function it calls."""
    definitions, processors = internals.output_tool_definitions(agent)
    tools: list[OutputToolInfo] = []
    for definition in definitions:
        built = getattr(getattr(processors.get(definition.name), 'object_def', None), 'name', None)
        function = next((f for f in functions if getattr(f, '__name__', None) == built), None)
        tools.append(
            OutputToolInfo(
                name=definition.name,
                description=definition.description,
                parameters=checked_json(definition.parameters_json_schema),
                strict=definition.strict,
                function=function_name(function) if function is not None else None,
            )
        )
    return tools


def _output_items(spec: Any) -> Iterator[Any]:
    """The parts of an output spec: list members, and what `ToolOutput`/`NativeOutput`/... wrap."""
    yield spec
    if isinstance(spec, list | tuple):
        for item in spec:
            yield from _output_items(item)
    elif type(spec).__module__ == 'pydantic_ai.output':
        for attribute in ('output', 'outputs'):
            if hasattr(spec, attribute):
                yield from _output_items(getattr(spec, attribute))


def _output_functions(spec: Any) -> Iterator[Callable[..., Any]]:
    for item in _output_items(spec):
        if inspect.isfunction(item) or inspect.ismethod(item):
            yield item


def _validator_takes_ctx(function: Callable[..., Any]) -> bool:
    """pydantic-ai's rule: a validator with two parameters gets the RunContext first."""
    try:
        return len(inspect.signature(function).parameters) > 1
    except (TypeError, ValueError):
        return False
