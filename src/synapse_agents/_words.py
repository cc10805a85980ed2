"""Counted nouns in messages: "1 agent", "2 agents" (never "1 agents")."""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None) -> str:
    """`count` and `word`, with `many` (default `word` + "s") unless there is exactly one."""
    return f'{count:,} {word if count == 1 else many or word + "s"}'
