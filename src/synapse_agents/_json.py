"""One conversion of arbitrary Python values to plain JSON data, for everything Synapse stores or shows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic_core import to_jsonable_python


def jsonable(value: Any, *, unknown: Callable[[Any], Any] = str) -> Any:
    """`value` as plain JSON data (pydantic models, dataclasses and dates included).

    A value pydantic cannot describe becomes `unknown(value)`: its `str` by default (tool results,
    usage), its `repr` where the shape of the object is the point (the info panel's settings).
    """
    return to_jsonable_python(value, fallback=unknown, serialize_unknown=True)
