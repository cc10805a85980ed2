"""Deps built without a factory: a `deps_type` that is a dataclass or pydantic model whose fields
all have defaults is its own factory (`Settings()` for each build).

Only those two kinds qualify: a plain class or a builtin (`dict`) built without arguments says
nothing about whether its empty value is what the agent expects, so those still need a factory.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel


def default_factory(deps_type: Any) -> Callable[[], Any] | None:
    """`deps_type` itself when it builds without arguments (see above), else None."""
    if not isinstance(deps_type, type):
        return None
    if dataclasses.is_dataclass(deps_type):
        fields = [field for field in dataclasses.fields(deps_type) if field.init]
        if all(
            field.default is not dataclasses.MISSING or field.default_factory is not dataclasses.MISSING
            for field in fields
        ):
            return deps_type
        return None
    if issubclass(deps_type, BaseModel) and not any(
        field.is_required() for field in deps_type.model_fields.values()
    ):
        return deps_type
    return None


def factory_name(deps_type: type) -> str:
    """`module:QualifiedName` of the type, as the agent info shows a factory."""
    return f'{deps_type.__module__}:{deps_type.__qualname__}'
