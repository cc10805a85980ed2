"""`module:attribute` names, as settings and agent metadata give them, resolved to the object.

One resolver for every place Synapse reads such a name (deps factories, placers, the usage
recorder, discovery targets): the part before the colon is imported as a module, the part after
it is walked attribute by attribute, so `pkg.mod:Factory.build` names a classmethod or
staticmethod of `pkg.mod.Factory`. This module imports nothing but the standard library.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any


class ImportPathError(ValueError):
    """A `module:attribute` name that names nothing; the subclasses say why."""


class NotAnImportPath(ImportPathError):
    """The text is not `module:attribute` (no colon, or an empty side)."""


class ModuleNotImported(ImportPathError):
    """The module could not be imported (missing, or it raised); `__cause__` is the original error."""


class AttributeMissing(ImportPathError):
    """The module imported, but has no such attribute (at some step of the dotted path)."""


def split_import_path(spec: str) -> tuple[str, str]:
    """`('pkg.mod', 'Class.method')` for `'pkg.mod:Class.method'`; `NotAnImportPath` otherwise."""
    module_name, colon, attribute = spec.strip().partition(':')
    if not colon or not module_name.strip() or not attribute.strip():
        raise NotAnImportPath(f'{spec!r} is not module:attribute')
    return module_name.strip(), attribute.strip()


def is_attribute_path(text: str) -> bool:
    """Whether `text` is a dotted attribute path such as `Class.method` (each part an identifier)."""
    return bool(text) and all(part.isidentifier() for part in text.split('.'))


def walk_attributes(owner: Any, attribute: str) -> Any:
    """`owner.<a>.<b>` for `attribute='a.b'`; `AttributeMissing` naming the step that is absent."""
    found = owner
    walked: list[str] = []
    for part in attribute.split('.'):
        if not hasattr(found, part):
            where = getattr(owner, '__name__', type(owner).__name__)
            step = f'{where}.{".".join(walked)}' if walked else where
            raise AttributeMissing(f'{step} has no attribute {part!r}')
        found = getattr(found, part)
        walked.append(part)
    return found


def resolve_import_path(
    spec: str, *, import_module: Callable[[str], ModuleType] = importlib.import_module
) -> tuple[ModuleType, Any]:
    """The module `spec` names and the object at its attribute path.

    Raises `NotAnImportPath`, `ModuleNotImported` (from the import's own error) or `AttributeMissing`.
    """
    module_name, attribute = split_import_path(spec)
    try:
        module = import_module(module_name)
    except Exception as exc:  # missing, or the module itself failed (a syntax error, a raise)
        raise ModuleNotImported(f'{module_name} cannot be imported: {type(exc).__name__}: {exc}') from exc
    return module, walk_attributes(module, attribute)
