"""The regular expressions of a deps schema: which are refused, and matching them within a deadline.

`pattern_problem` is the rule applied when a schema is saved or loaded: a pattern must compile (with
`re`, as jsonschema reads it, and with `regex`, which matches it here) and must not nest unbounded
quantifiers, the shape of catastrophic backtracking (`(a+)+`, `(\\w+\\s?)*`, `((ab)*c*)+`). An
unbounded repetition holding a variable one is allowed only when each turn of the outer repetition
starts with a fixed character that no inner variable repetition can match (`[a-z]+(-[a-z]+)*`,
`(\\.[0-9]+)+`): then the turns cannot be split in more than one way.

The rule does not catch every slow pattern (`(a|aa)+` is exponential too), so matching is bounded
as well: `search` uses the `regex` package with a timeout, and raises `TimeoutError` past it.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import regex

# The parser behind `re`: the standard library's own reading of a pattern (a private module with no
# public twin; `sre_parse` is its deprecated alias).
_parser: Any = importlib.import_module('re._parser')
_c: Any = importlib.import_module('re._constants')

_REPEATS = (_c.MAX_REPEAT, _c.MIN_REPEAT)
_CATEGORIES = {
    _c.CATEGORY_DIGIT: r'\d',
    _c.CATEGORY_NOT_DIGIT: r'\D',
    _c.CATEGORY_SPACE: r'\s',
    _c.CATEGORY_NOT_SPACE: r'\S',
    _c.CATEGORY_WORD: r'\w',
    _c.CATEGORY_NOT_WORD: r'\W',
}


@lru_cache(maxsize=256)
def pattern_problem(pattern: str) -> str | None:
    """Why a schema may not use `pattern` (see the module docstring), or None."""
    try:
        re.compile(pattern)
        regex.compile(pattern)
        parsed = _parser.parse(pattern)
    except (re.error, regex.error, ValueError, OverflowError, RecursionError) as exc:
        return f'not a valid regular expression ({exc})'
    if _nested(list(parsed)):
        return (
            'nested quantifiers (a repeated group holding a repetition, as in `(a+)+`) can take '
            'exponential time; write the group so each turn starts with a character the inner '
            'repetition cannot match, or without the inner repetition'
        )
    return None


def search(pattern: str, text: str, seconds: float) -> bool:
    """Whether `pattern` matches somewhere in `text`; `TimeoutError` after `seconds`."""
    return regex.search(pattern, text, timeout=max(seconds, 0.001)) is not None


def _children(op: Any, av: Any) -> Iterator[list[Any]]:
    """The sub-sequences of one parsed item (atomic groups and possessive repeats cannot backtrack)."""
    if op in _REPEATS:
        yield list(av[2])
    elif op is _c.SUBPATTERN:
        yield list(av[3])
    elif op is _c.BRANCH:
        yield from (list(branch) for branch in av[1])
    elif op in (_c.ASSERT, _c.ASSERT_NOT):
        yield list(av[1])
    elif op is _c.GROUPREF_EXISTS:
        yield from (list(part) for part in av[1:] if part is not None)


def _nested(items: list[Any]) -> bool:
    for op, av in items:
        if op in _REPEATS and av[1] == _c.MAXREPEAT:
            body = list(av[2])
            inner = list(_variable_repeats(body))
            if inner and not _delimited(body, inner):
                return True
        if any(_nested(child) for child in _children(op, av)):
            return True
    return False


def _variable_repeats(items: list[Any]) -> Iterator[list[Any]]:
    """The bodies of the repetitions of variable length (`+`, `*`, `?`, `{1,3}`) in `items`."""
    for op, av in items:
        if op in _REPEATS and av[1] != av[0]:
            yield list(av[2])
        for child in _children(op, av):
            yield from _variable_repeats(child)


def _delimited(body: list[Any], inner: list[list[Any]]) -> bool:
    """Whether `body` starts with a fixed character that none of the `inner` repetitions can match."""
    first = body[0] if body else None
    while first is not None and first[0] is _c.SUBPATTERN and first[1][3]:
        first = first[1][3][0]
    if first is None or first[0] is not _c.LITERAL:
        return False
    char = chr(first[1])
    return not any(_can_match(repeated, char) for repeated in inner)


def _can_match(items: list[Any], char: str) -> bool:
    """Whether any item of `items` may match `char` (True when unsure)."""
    for op, av in items:
        if op is _c.LITERAL:
            if chr(av) == char:
                return True
        elif op is _c.NOT_LITERAL:
            if chr(av) != char:
                return True
        elif op is _c.IN:
            if _in_set(av, char):
                return True
        elif op is _c.AT:
            continue
        else:
            children = list(_children(op, av))
            if not children or any(_can_match(child, char) for child in children):
                return True
    return False


def _in_set(members: list[Any], char: str) -> bool:
    negate = False
    found = False
    for op, av in members:
        if op is _c.NEGATE:
            negate = True
        elif op is _c.LITERAL:
            found = found or chr(av) == char
        elif op is _c.RANGE:
            found = found or av[0] <= ord(char) <= av[1]
        elif op is _c.CATEGORY:
            code = _CATEGORIES.get(av)
            found = found or code is None or re.fullmatch(code, char) is not None
        else:
            return True
    return found != negate
