"""A tool whose parameter schema cannot be built fails that tool only, not its whole module.

`Tool()` (and so `@agent.tool`) builds the tool's JSON schema at once; a parameter type pydantic
cannot describe raises there and the module would fail to import. In discovery mode (see `_mode`),
the schema builder's error becomes a `BrokenSchema` placeholder: the agent is discovered, the tool
shows "schema unavailable" with the error, and calling the tool raises that error instead of
running the function with arguments nobody validated.

Both pydantic-ai names this needs are private (`_pydantic_ai_internals`): without either, the
wrapper is not installed and the feature is listed as degraded; discovery itself is unaffected.
"""

from __future__ import annotations

import functools
import importlib
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


def _broken_schema(
    function: Callable[..., Any], tool_name: str, exc: Exception, schema_class: type[Any]
) -> Any:
    message = str(exc).strip().split('\n\n', 1)[0]
    error = f'{type(exc).__name__}: {message}'.strip()
    failure = SchemaFailure(tool_name, error)

    def unavailable(**_: Any) -> Any:
        raise UserError(
            f'Tool {tool_name!r} is unavailable: its parameter schema could not be built ({error}).'
        )

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
    """Wrap the tool schema builder once; the wrapper acts only in discovery mode, for tools only.

    Does nothing (the feature is recorded as degraded) when this pydantic-ai lacks either name.
    """
    owner = internals.function_schema_owner()
    schema_class = internals.function_schema_class()
    if owner is None or schema_class is None:
        return
    with _install_lock:
        if _installed:
            return
        original = owner.function_schema

        def function_schema(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
            tool_name = kwargs.get('tool_name')
            if not _mode.active() or tool_name is None:
                return original(function, *args, **kwargs)
            try:
                return original(function, *args, **kwargs)
            except Exception as exc:
                return _broken_schema(function, str(tool_name), exc, schema_class)

        functools.update_wrapper(function_schema, original)
        owner.function_schema = function_schema
        _installed.append(original)


def uninstall() -> None:
    """Put the original schema builder back (for tests that change what pydantic-ai offers)."""
    with _install_lock:
        if not _installed:
            return
        original = _installed.pop()
        owner: Any = importlib.import_module(internals.FUNCTION_SCHEMA.owner)
        if getattr(getattr(owner, 'function_schema', None), '__wrapped__', None) is original:
            owner.function_schema = original
