"""Generate a short string that matches a JSON-schema ``pattern``, for the common subset of regexes.

Schemas use patterns for ids, codes and postcodes (``^[A-Z]{3}-\\d{3}$``). This covers literals,
escapes (``\\d \\w \\s`` and escaped punctuation), character classes with ranges, ``.``, groups,
alternation (the first branch is taken) and the quantifiers ``? * + {n} {n,} {n,m}`` (the
minimum is used, at least one for ``+``). Anything else gives ``None`` and the caller falls back.
"""

from __future__ import annotations

import re
import warnings

_ESCAPES = {'d': '7', 'w': 'a', 's': ' ', 'D': 'x', 'W': '-', 'S': 'x'}
_QUANTIFIER = re.compile(r'\{(\d+)(,(\d*))?\}')


def sample_for_pattern(pattern: str) -> str | None:
    """A string matching ``pattern`` (checked with ``re.search``), or ``None`` when it can't build one."""
    try:
        text, _ = _sequence(pattern, 0)
    except (IndexError, ValueError):
        return None
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # e.g. FutureWarning for a pattern Python may read differently later
        try:
            return text if re.search(pattern, text) else None
        except re.error:
            return None


def _sequence(pattern: str, position: int) -> tuple[str, int]:
    """Generate from ``position`` until the end, a ``)`` or a ``|`` (then skip the other branches)."""
    out: list[str] = []
    while position < len(pattern):
        char = pattern[position]
        if char == ')':
            return ''.join(out), position
        if char == '|':
            return ''.join(out), _skip_branches(pattern, position)
        atom, position = _atom(pattern, position)
        repeat, position = _repeat(pattern, position)
        out.append(atom * repeat)
    return ''.join(out), position


def _atom(pattern: str, position: int) -> tuple[str, int]:
    char = pattern[position]
    if char in '^$':
        return '', position + 1
    if char == '\\':
        escaped = pattern[position + 1]
        if escaped in 'bBAZz':
            return '', position + 2
        return _ESCAPES.get(escaped, escaped), position + 2
    if char == '[':
        end = pattern.index(']', position + 2)
        return _class_member(pattern[position + 1 : end]), end + 1
    if char == '(':
        start = position + 1
        if pattern.startswith('?:', start):
            start += 2
        elif pattern.startswith('?P<', start) or pattern.startswith('?<', start):
            start = pattern.index('>', start) + 1
        elif pattern.startswith('?', start):
            raise ValueError('lookarounds and flags are not supported')
        text, end = _sequence(pattern, start)
        return text, end + 1
    if char == '.':
        return 'x', position + 1
    if char in '*+?{':
        raise ValueError('quantifier without an atom')
    return char, position + 1


def _repeat(pattern: str, position: int) -> tuple[int, int]:
    if position >= len(pattern):
        return 1, position
    char = pattern[position]
    count, end = 1, position
    if char in '*?':
        count, end = 0, position + 1
    elif char == '+':
        count, end = 1, position + 1
    elif match := _QUANTIFIER.match(pattern, position):
        count, end = int(match.group(1)), match.end()
    if end < len(pattern) and pattern[end] in '?+' and end != position:
        end += 1  # lazy or possessive
    return count, end


def _class_member(body: str) -> str:
    if body.startswith('^'):
        excluded = body[1:]
        return next((c for c in 'xa7 -_' if not re.fullmatch(f'[{excluded}]', c)), 'x')
    if body.startswith('\\'):
        return _ESCAPES.get(body[1], body[1])
    return body[0]  # a literal, or the start of a range


def _skip_branches(pattern: str, position: int) -> int:
    """From a ``|``, move to the ``)`` closing the current group (or the end)."""
    depth = 0
    while position < len(pattern):
        char = pattern[position]
        if char == '\\':
            position += 2
            continue
        if char == '(':
            depth += 1
        elif char == ')':
            if depth == 0:
                return position
            depth -= 1
        position += 1
    return position
