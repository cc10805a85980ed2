"""Search snippets: where a history search term matched, as a short excerpt with the match positions.

A conversation matches a search when its title or one of its messages contains the term, ignoring
case (`search.py`). Its snippet is an excerpt of about `SNIPPET_LENGTH` characters around the first
match: the title's when the title matches, else the first matching message's (in the order the
messages were written). Runs of whitespace become one space, the excerpt is cut at word boundaries
and "…" marks a cut; `matches` are the `[start, end)` offsets, in Unicode code points, of every
occurrence of the term inside it.

`page_snippets` reads the matching message text for a whole page of results in one statement (none
when every title matches); only a window of each message around its first match is read on
PostgreSQL and for an ASCII term on SQLite (whose `instr` finds the same match as its `LIKE`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, literal, select

from .search import _sqlite_contains
from .tables import Conversation, Message

if TYPE_CHECKING:
    from ..store.repository import Store
    from .rows import ConversationSummary

SNIPPET_LENGTH = 160
"""About how many characters a snippet holds (the "…" marks come on top)."""

_WINDOW = 4 * SNIPPET_LENGTH
"""Characters of a message read on each side of its first match (the excerpt needs far fewer,
but collapsing whitespace can shorten the text)."""

ELLIPSIS = '…'


@dataclass(frozen=True)
class Snippet:
    """An excerpt and the `[start, end)` code-point offsets of the term inside it."""

    text: str
    matches: list[tuple[int, int]] = field(default_factory=list)


def _folded(text: str) -> tuple[str, list[int]]:
    """`text` lowercased as Python does, and for each of its characters the index it came from
    (a few characters lowercase to two, such as 'İ')."""
    pieces: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        lowered = char.lower()
        pieces.append(lowered)
        origin.extend([index] * len(lowered))
    return ''.join(pieces), origin


def find_matches(text: str, term: str) -> list[tuple[int, int]]:
    """Every non-overlapping occurrence of `term` in `text`, ignoring case, as `[start, end)` offsets."""
    needle = term.lower()
    if not needle:
        return []
    folded, origin = _folded(text)
    spans: list[tuple[int, int]] = []
    at = folded.find(needle)
    while at >= 0:
        spans.append((origin[at], origin[at + len(needle) - 1] + 1))
        at = folded.find(needle, at + len(needle))
    return spans


def make_snippet(
    text: str, term: str, *, cut_before: bool = False, cut_after: bool = False
) -> Snippet | None:
    """The excerpt of `text` around the first occurrence of `term`; None when it does not occur.

    `cut_before` / `cut_after` say that `text` is itself a window of a longer text.
    """
    flat = ' '.join(text.split())
    spans = find_matches(flat, ' '.join(term.split()))
    if not spans:
        return None
    first_start, first_end = spans[0]
    begin, end = 0, len(flat)
    if end > SNIPPET_LENGTH:
        room = max(SNIPPET_LENGTH - (first_end - first_start), 0)
        begin = max(0, first_start - room // 3)
        end = min(len(flat), max(begin + SNIPPET_LENGTH, first_end))
        begin = max(0, min(begin, end - SNIPPET_LENGTH))
    # A cut falls between words unless the match itself leaves no room (a window read from the
    # database may start or stop inside a word too).
    if begin > 0 or cut_before:
        space = flat.find(' ', max(begin - 1, 0), first_start)
        if space >= 0:
            begin = space + 1
    if end < len(flat) or cut_after:
        space = flat.rfind(' ', first_end, end + 1)
        if space >= 0:
            end = space
    prefix = ELLIPSIS if begin > 0 or cut_before else ''
    suffix = ELLIPSIS if end < len(flat) or cut_after else ''
    shift = len(prefix) - begin
    matches = [(start + shift, stop + shift) for start, stop in spans if start >= begin and stop <= end]
    return Snippet(prefix + flat[begin:end] + suffix, matches)


def _first_match_window(dialect: str, term: str, ids: list[str]) -> Any:
    """(conversation id, text, offset of the text in its message, message length) of the first
    message of each conversation in `ids` that contains `term`."""
    if dialect == 'sqlite':
        contains = _sqlite_contains(Message.content, term)
    else:
        contains = func.strpos(func.lower(Message.content), term.lower()) > 0
    first = (
        select(Message.id)
        .where(Message.conversation_id == Conversation.id, contains)
        .order_by(Message.id)
        .limit(1)
        .scalar_subquery()
    )
    chosen = (
        select(Conversation.id.label('cid'), first.label('mid')).where(Conversation.id.in_(ids)).subquery()
    )
    length = func.length(Message.content)
    if dialect == 'sqlite' and not term.isascii():
        start: Any = literal(1)
        piece: Any = Message.content
    else:
        position = (func.instr if dialect == 'sqlite' else func.strpos)(
            func.lower(Message.content), term.lower()
        )
        # SQLite has no GREATEST; its two-argument max() is the same thing.
        start = (func.max if dialect == 'sqlite' else func.greatest)(position - _WINDOW, 1)
        piece = func.substr(Message.content, start, 2 * _WINDOW + len(term))
    return select(chosen.c.cid, piece.label('piece'), start.label('start'), length.label('length')).join(
        Message, Message.id == chosen.c.mid
    )


def page_snippets(store: Store, rows: Sequence[ConversationSummary], term: str) -> dict[str, Snippet | None]:
    """The snippet of each conversation on a page of search results, by id; one statement at most.

    Blocking: call it from a thread.
    """
    snippets: dict[str, Snippet | None] = {row.id: make_snippet(row.title, term) for row in rows}
    missing = [conversation_id for conversation_id, found in snippets.items() if found is None]
    if not missing:
        return snippets
    with store.read() as session:
        found_rows = session.execute(_first_match_window(store.dialect, term, missing)).all()
    for row in found_rows:
        start = int(row.start)
        snippets[row.cid] = make_snippet(
            row.piece, term, cut_before=start > 1, cut_after=start - 1 + len(row.piece) < int(row.length)
        )
    return snippets
