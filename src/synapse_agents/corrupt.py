"""Rows Synapse cannot read as it wrote them (edited by hand, or damaged): named, never fatal.

A value that cannot be read is kept as what it is rather than raised while a query fetches it, so
one damaged row never stops the others of a listing from loading: a JSON column's text that is not
JSON reads as `NotJson` (the store's JSON reader, `read_json`), an amount that is not a number as
`Decimal('NaN')` (`store.schema.Money`). The code reading the row then checks the value's shape
(`json_problem`) and either marks the row in a listing (a `corrupt` field holding `note(...)`) or
raises `CorruptRow`, which the web layer answers with a 409 `corrupt_row` and the CLI prints as one
line.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from pydantic_core import from_json

from .errors import CorruptRow

__all__ = ['CorruptRow', 'NotJson', 'json_problem', 'note', 'read_json', 'unreadable_amount']


def note(table: str, row_id: str, detail: str) -> str:
    """The words naming a damaged row: `agent_tasks 0193...: context is not JSON (...)`."""
    return CorruptRow.words(table, row_id, detail)


@dataclass(frozen=True, slots=True)
class NotJson:
    """What a JSON column holds when its stored text is not JSON."""

    text: str
    problem: str


def read_json(text: str | bytes) -> Any:
    """The store's JSON reader: the value, or `NotJson` for text that is not JSON."""
    try:
        return from_json(text)
    except ValueError as exc:
        shown = text if isinstance(text, str) else text.decode(errors='replace')
        return NotJson(shown, str(exc).splitlines()[0][:120])


_KINDS = {dict: 'an object', list: 'a list', str: 'a string', bool: 'a boolean', int: 'a number'}


def _kind(value: Any) -> str:
    for kind, name in _KINDS.items():
        if isinstance(value, kind):
            return name
    return 'a number' if isinstance(value, float) else type(value).__name__


def json_problem(column: str, value: Any, expected: type) -> str | None:
    """What is wrong with a JSON column's stored value (`expected` or null), or None when nothing is."""
    if value is None or isinstance(value, expected):
        return None
    if isinstance(value, NotJson):
        return f'{column} is not JSON ({value.problem})'
    return f'{column} holds {_kind(value)}, not {_KINDS.get(expected, expected.__name__)}'


def unreadable_amount(value: Decimal | None) -> bool:
    """Whether a stored amount could not be read as a number (it reads as NaN)."""
    return value is not None and value.is_nan()
