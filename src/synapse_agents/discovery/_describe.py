"""Small readers that turn pydantic-ai objects into plain, JSON-safe descriptions."""

from __future__ import annotations

import functools
import inspect
import json
import re
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic_ai import Agent
from pydantic_ai.models import Model, parse_model_id

from .._json import jsonable as to_jsonable
from ..redaction import redact, redact_args
from .agent_info import ModelRef, NativeToolInfo

DEMO_PROVIDER = 'synapse'
_QUALIFIER = re.compile(r'\b(?:[A-Za-z_]\w*\.)+(?=[A-Za-z_]\w*)')


def jsonable(value: Any) -> Any:
    """`value` as JSON-compatible data; anything unknown becomes its repr."""
    return to_jsonable(value, unknown=repr)


def checked_json(schema: Any) -> dict[str, Any]:
    """`schema` itself when it is a JSON object that serialises, else a TypeError saying what it is."""
    if not isinstance(schema, dict):
        raise TypeError(f'the schema is a {type(schema).__name__}, not a JSON object')
    json.dumps(schema)
    return schema


def model_ref(model: Model | str | None) -> ModelRef | None:
    """Provider, name and id of a model object or model-id string."""
    if model is None:
        return None
    if isinstance(model, str):
        provider, name = parse_model_id(model)
        return ModelRef(provider=provider, name=name, id=model, is_demo=provider == DEMO_PROVIDER)
    members = getattr(model, 'models', None)
    if type(model).__name__ == 'FallbackModel' and isinstance(members, list) and members:
        primary = model_ref(members[0])
        if primary is not None:
            return primary.model_copy(update={'fallbacks': [_model_id(m) for m in members[1:]]})
    return ModelRef(
        provider=model.system, name=model.model_name, id=model.model_id, is_demo=model.system == DEMO_PROVIDER
    )


def _model_id(model: object) -> str:
    return model if isinstance(model, str) else str(getattr(model, 'model_id', repr(model)))


def type_name(spec: Any) -> str:
    """An output or deps type as a reader would write it: `str`, `TriageResult | str`, `ToolOutput(X)`."""
    if isinstance(spec, list | tuple):
        return ' | '.join(type_name(item) for item in spec)
    for attribute in ('output', 'outputs', 'output_function'):
        if type(spec).__module__ == 'pydantic_ai.output' and hasattr(spec, attribute):
            return f'{type(spec).__name__}({type_name(getattr(spec, attribute))})'
    if isinstance(spec, type) and not isinstance(spec, types.GenericAlias):
        return spec.__name__
    if inspect.isfunction(spec) or inspect.ismethod(spec):
        return spec.__qualname__
    return _QUALIFIER.sub('', str(spec))


def location(function: Callable[..., Any], project_root: Path) -> str | None:
    """`path/to/file.py:31` for a function, the path relative to the project when inside it."""
    try:
        unwrapped = inspect.unwrap(function)
    except ValueError:
        return None
    code = getattr(unwrapped, '__code__', None)
    if code is None:
        return None
    return f'{display_path(Path(code.co_filename), project_root)}:{code.co_firstlineno}'


def display_path(path: Path, project_root: Path) -> str:
    """A path relative to the project when it is inside it, else absolute."""
    return _display_path(str(path), project_root)


@functools.lru_cache(maxsize=4096)
def _display_path(path: str, project_root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(project_root).as_posix()
    except (ValueError, OSError):
        return path


def function_name(function: object) -> str:
    """A function's qualified name, or its class name for other callables."""
    name = getattr(function, '__qualname__', None) or getattr(function, '__name__', None)
    return str(name) if name else type(function).__name__


def referenced_agents(function: Callable[..., Any]) -> Iterator[tuple[str, Agent[Any, Any]]]:
    """Agents a tool function can reach by name: closure variables, globals and module attributes.

    Best effort: the names the function's code (nested functions and lambdas included) looks up are
    resolved in its closure and its module's globals; a global that is a module is searched for the
    same names (`agents.summariser.run(...)`). An agent reached through deps or a call is not seen.
    """
    try:
        function = inspect.unwrap(function)
    except ValueError:
        return
    code = getattr(function, '__code__', None)
    if code is None:
        return
    names = set(_code_names(code))
    closure = getattr(function, '__closure__', None) or ()
    for name, cell in zip(code.co_freevars, closure, strict=False):
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if isinstance(value, Agent):
            yield name, value
    namespace = getattr(function, '__globals__', {})
    for name in sorted(names):
        value = namespace.get(name)
        if isinstance(value, Agent):
            yield name, value
        elif isinstance(value, types.ModuleType):
            for attribute in sorted(names):
                member = getattr(value, attribute, None)
                if isinstance(member, Agent):
                    yield attribute, member


def _code_names(code: types.CodeType) -> Iterator[str]:
    yield from code.co_names
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _code_names(constant)


def native_tool_info(tool: Any) -> NativeToolInfo:
    """A native tool (or the function that builds one per run) with its options, secrets masked."""
    if callable(tool) and not hasattr(tool, 'kind'):
        return NativeToolInfo(kind='dynamic', **{'class': function_name(tool)})
    data = jsonable(tool)
    options = (
        {k: v for k, v in data.items() if k != 'kind' and v is not None} if isinstance(data, dict) else {}
    )
    return NativeToolInfo(
        kind=str(getattr(tool, 'kind', 'unknown')), **{'class': type(tool).__name__}, options=redact(options)
    )


def transport_description(toolset: object) -> str | None:
    """How an MCP toolset reaches its server, without connecting: a command line or a URL."""
    transport = getattr(getattr(toolset, 'client', None), 'transport', None)
    if transport is None:
        return None
    command = getattr(transport, 'command', None)
    if isinstance(command, str):
        args = getattr(transport, 'args', None) or []
        return ' '.join(redact_args([command, *(str(arg) for arg in args)]))
    url = getattr(transport, 'url', None)
    if url is not None:
        return safe_url(str(url))
    server = getattr(transport, 'server', None)
    if server is not None:
        return f'in-process server {getattr(server, "name", type(server).__name__)!r}'
    return type(transport).__name__


def mcp_label(toolset: Any, transport: str | None) -> str:
    """An MCP toolset's label; one without an id whose label is the client's repr is named by its
    transport instead (`MCPToolset 'npx -y @modelcontextprotocol/server-github'`)."""
    label = str(getattr(toolset, 'label', '') or type(toolset).__name__)
    if ' object at 0x' not in label:
        return label
    if not transport:
        return type(toolset).__name__
    shown = transport if len(transport) <= 60 else transport[:59] + '…'
    return f"{type(toolset).__name__} '{shown}'"


def safe_url(url: str) -> str:
    """The URL without credentials or query string."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    host = parts.hostname or ''
    netloc = f'{host}:{parts.port}' if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, '', ''))
