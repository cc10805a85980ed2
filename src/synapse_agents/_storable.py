"""What no database can store: text holding NUL characters or lone UTF-16 surrogates, JSON too deep.

A JSON text may spell a lone surrogate (`"\\ud800"`); Python decodes it into a `str` that cannot be
encoded as UTF-8, so PostgreSQL refuses it and an answer holding it cannot be written. PostgreSQL
cannot store a NUL character in text or JSON either. `flaw` finds the first such value in plain
data without recursion, so any depth is safe to inspect; `loads` reads JSON text into data that
has none, or says why not.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

MAX_DEPTH = 32
"""How deep the JSON a form field sends may nest (the registry's fields allow as much)."""

_SURROGATE = re.compile('[\ud800-\udfff]')
SURROGATE_MESSAGE = 'lone UTF-16 surrogates (\\ud800 to \\udfff) are not accepted'
NUL_MESSAGE = 'NUL characters are not accepted'


@dataclass(frozen=True)
class Flaw:
    """Where (`path`, the keys and indexes from the top) and why a value cannot be stored."""

    path: tuple[str | int, ...]
    message: str

    def location(self, prefix: str) -> str:
        """The dotted location of the value, e.g. `body.options.headers.0`."""
        return '.'.join([prefix, *(str(part) for part in self.path)])


def text_flaw(text: str, *, nul: bool = True) -> str | None:
    """Why `text` cannot be stored (a lone surrogate, a NUL character when `nul`), or None."""
    if _SURROGATE.search(text):
        return SURROGATE_MESSAGE
    if nul and '\x00' in text:
        return NUL_MESSAGE
    return None


def flaw(value: Any, *, nul: bool = True, max_depth: int | None = None) -> Flaw | None:
    """The first string (value or key) that cannot be stored, or nesting deeper than `max_depth`."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if max_depth is not None and len(path) > max_depth:
            return Flaw(path, f'nested deeper than {max_depth} levels')
        if isinstance(item, str):
            problem = text_flaw(item, nul=nul)
            if problem is not None:
                return Flaw(path, problem)
        elif isinstance(item, dict):
            for key, child in reversed(list(item.items())):
                problem = text_flaw(key, nul=nul) if isinstance(key, str) else None
                if problem is not None:
                    return Flaw((*path, key), f'a key: {problem}')
                stack.append((child, (*path, key)))
        elif isinstance(item, list | tuple):
            stack.extend((child, (*path, index)) for index, child in reversed(list(enumerate(item))))
    return None


class Unreadable(ValueError):
    """JSON text that is not JSON, nests too deep, or holds what cannot be stored (`flaw`)."""

    def __init__(self, message: str, found: Flaw | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.flaw = found


def loads(text: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """`text` read as JSON with nothing in it a database cannot store; `Unreadable` otherwise."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise Unreadable(f'nested deeper than {max_depth} levels') from None
    except ValueError as exc:
        raise Unreadable(f'not valid JSON ({exc})') from None
    found = flaw(value, max_depth=max_depth)
    if found is not None:
        raise Unreadable(found.message, found)
    return value
