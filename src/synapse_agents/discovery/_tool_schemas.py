"""A tool whose parameter schema cannot be built fails that tool only, not its whole module.

`Tool()` (and so `@agent.tool`) builds the tool's JSON schema at once; a parameter type pydantic
cannot describe raises there and the module would fail to import. In discovery mode (see `_mode`),
the schema builder's error becomes a `BrokenSchema` placeholder: the agent is discovered, the tool
shows "schema unavailable" with the error, and calling the tool raises that error instead of
running the function with arguments nobody validated.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic_ai.exceptions import UserError
from pydantic_core import SchemaValidator, core_schema

from . import _mode
from . import _pydantic_ai_internals as internals

_install_lock = threading.Lock()
_installed: list[Callable[..., Any]] = []


@dataclass(frozen=True)
class SchemaFailure:
    """Why a tool's schema could not be built."""

    tool: str
    error: str


def _broken_schema(function: Callable[..., Any], tool_name: str, exc: Exception) -> Any:
    message = str(exc).strip().split('\n\n', 1)[0]
    error = f'{type(exc).__name__}: {message}'.strip()
    failure = SchemaFailure(tool_name, error)

    def unavailable(**_: Any) -> Any:
        raise UserError(
            f'Tool {tool_name!r} is unavailable: its parameter schema could not be built ({error}).'
        )

    schema_class = internals.function_schema_class()
    schema = schema_class(
        function=unavailable,
        name=tool_name,
        description=_first_paragraph(function),
        validator=SchemaValidator(core_schema.any_schema()),
        json_schema={'type': 'object', 'properties': {}},
        takes_ctx=False,
        is_async=False,
    )
    schema.synapse_schema_failure = failure
    return schema


def _first_paragraph(function: Callable[..., Any]) -> str | None:
    doc = inspect.getdoc(function)
    return doc.split('\n\n', 1)[0].strip() if doc else None


def schema_failure(function_schema: object) -> SchemaFailure | None:
    """The failure recorded on a placeholder schema, or None for a real one."""
    failure = getattr(function_schema, 'synapse_schema_failure', None)
    return failure if isinstance(failure, SchemaFailure) else None


def install() -> None:
    """Wrap the tool schema builder once; the wrapper acts only in discovery mode, for tools only."""
    with _install_lock:
        if _installed:
            return
        owner = internals.function_schema_owner()
        original = owner.function_schema

        def function_schema(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
            tool_name = kwargs.get('tool_name')
            if not _mode.active() or tool_name is None:
                return original(function, *args, **kwargs)
            try:
                return original(function, *args, **kwargs)
            except Exception as exc:
                return _broken_schema(function, str(tool_name), exc)

        functools.update_wrapper(function_schema, original)
        owner.function_schema = function_schema
        _installed.append(original)
