"""Safe imports: a module or spec file that fails becomes a problem, never a failed discovery.

Every import runs in discovery mode (see `_mode`, `keys`, `_tool_schemas`). Any exception a module
raises while it is executed — `SystemExit` included, `KeyboardInterrupt` excepted — is caught and
returned with its traceback, trimmed of importlib's and Synapse's own frames. When the exception
names a missing provider key, the module is imported again with a placeholder for it (`keys`,
layer 2).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic_ai import Agent, AgentSpec

from . import _mode, _tool_schemas, keys
from .reload import module_file

MAX_PLACEHOLDER_KEYS = 8
_OWN_FOLDER = str(Path(__file__).resolve().parent)


@contextmanager
def discovery_mode() -> Iterator[None]:
    """Install discovery's pydantic-ai hooks (once) and turn them on for this thread."""
    keys.install()
    _tool_schemas.install()
    with _mode.discovering():
        yield


@dataclass(frozen=True)
class ImportOutcome:
    """The module, or the exception that stopped it."""

    module: ModuleType | None
    error: BaseException | None = None
    traceback: str = ''
    placeholder_vars: tuple[str, ...] = ()
    executed: bool = False
    new_modules: tuple[str, ...] = ()
    """Modules this call added to sys.modules (the module and what it imported for the first time)."""


class ModuleMismatchError(ImportError):
    """The dotted name imported a different file than the one discovery found."""


def import_module(name: str, *, path: Path | None = None, standalone: bool = False) -> ImportOutcome:
    """Import `name` unless it is already imported.

    With `path`, the module must come from that file; `standalone` loads the file directly under
    `name` (for a file outside any importable folder, or whose name is not a valid module name).
    """
    existing = sys.modules.get(name)
    if existing is not None and (path is None or module_file(existing) in (None, path)):
        return ImportOutcome(existing)
    placeholders: list[str] = []
    while True:
        before = set(sys.modules)
        try:
            with discovery_mode(), keys.placeholder_env(placeholders):
                module = _import_standalone(name, path) if standalone and path else _import(name, path)
            added = tuple(sorted(set(sys.modules) - before))
            return ImportOutcome(
                module, placeholder_vars=tuple(placeholders), executed=True, new_modules=added
            )
        except (KeyboardInterrupt, GeneratorExit):
            raise
        except BaseException as exc:
            env_var = keys.missing_env_from_error(exc)
            if (
                env_var is not None
                and env_var not in placeholders
                and env_var not in os.environ
                and len(placeholders) < MAX_PLACEHOLDER_KEYS
            ):
                placeholders.append(env_var)
                continue
            return ImportOutcome(None, exc, format_traceback(exc), tuple(placeholders))


def _import(name: str, path: Path | None) -> ModuleType:
    module = importlib.import_module(name)
    if path is not None:
        loaded = module_file(module)
        if loaded is not None and loaded != path:
            raise ModuleMismatchError(
                f'Importing {name!r} loaded {loaded}, not {path}: another module or package named '
                f'{name.split(".")[0]!r} comes first on sys.path. Rename the folder or add an __init__.py.'
            )
    return module


def _import_standalone(name: str, path: Path) -> ModuleType:
    """A file whose name is not a valid module name, loaded from its location."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f'cannot load {path} as a Python module')
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def load_spec(path: Path) -> tuple[Agent[Any, Any] | None, BaseException | None, str]:
    """`Agent.from_file(path)` in discovery mode: the agent, or the error and its traceback."""
    try:
        with discovery_mode():
            agent = Agent.from_file(path)
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException as exc:
        return None, exc, format_traceback(exc)
    return agent, None, ''


_SPEC_KEYS = frozenset((field.alias or name) for name, field in AgentSpec.model_fields.items())


def looks_like_spec(path: Path) -> bool:
    """Whether a JSON/YAML file found by a folder scan is an agent spec (not any other config)."""
    try:
        text = path.read_text(encoding='utf-8')
        if path.suffix.lower() == '.json':
            import json

            data = json.loads(text)
        else:
            data = importlib.import_module('yaml').safe_load(text)
    except Exception:
        return False
    if not isinstance(data, dict) or not data or not all(isinstance(key, str) for key in data):
        return False
    return set(data) <= _SPEC_KEYS and bool({'model', 'instructions', 'capabilities'} & set(data))


def format_traceback(exc: BaseException) -> str:
    """The traceback without importlib's frames and Synapse's discovery frames."""
    summary = traceback.TracebackException.from_exception(exc)
    _trim(summary, set())
    return ''.join(summary.format())


def _trim(summary: traceback.TracebackException, seen: set[int]) -> None:
    if id(summary) in seen:
        return
    seen.add(id(summary))
    kept = [
        frame
        for frame in summary.stack
        if not frame.filename.startswith('<frozen importlib') and not frame.filename.startswith(_OWN_FOLDER)
    ]
    summary.stack = traceback.StackSummary.from_list(kept)
    for chained in (summary.__cause__, summary.__context__):
        if chained is not None:
            _trim(chained, seen)


def exception_message(exc: BaseException) -> str:
    """`str(exc)`, or the class name when the message is empty."""
    text = str(exc).strip()
    return text or type(exc).__name__
