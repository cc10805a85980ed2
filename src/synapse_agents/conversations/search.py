"""Substring search over conversation titles and message text, fast on both dialects.

A match is case-insensitive: `term.lower()` is a substring of the text's `lower()`. Each dialect has
an index that finds candidates without reading every row (migrations 0002 and 0003, outside the
SQLAlchemy models):

- SQLite: two external-content FTS5 tables with the `trigram` tokenizer (`conversations_fts` over
  titles, `messages_fts` over message text), kept in step by triggers. A term of three characters
  or more becomes one FTS phrase; the candidates it returns are then checked with the same test a
  walk uses (`LIKE` for an ASCII term, `synapse_icontains` — Python's `lower()`, registered on every
  connection — for any other), so the answer is the same whichever way a row was found. (The one
  difference from `lower()`: for an ASCII term, the few non-ASCII characters whose lowercase is
  ASCII, such as the Kelvin sign, are not folded.)
- PostgreSQL: a `pg_trgm` GIN index on `conversations.title` (for `ILIKE`) and one on
  `translate(lower(messages.content), ' ʒ', 'ʒ ')` (for `LIKE`): swapping the space for a letter
  makes pg_trgm index the trigrams that straddle two words, so a phrase of common words (whose
  every word is in half the messages) is narrowed by its word boundaries instead of read whole.
  Without the extension the same queries answer by scanning.

A list page needs the conversations in `updated_at` order, and every page must be exact whatever
the other filters, so a search is answered in one of two ways (see `conversations/history.py`):

- `probe`: the matches found through the index, at most `SEARCH_CAP` of them. When there are
  fewer, that is every matching conversation, and the other filters and the page apply to them.
- A term with more matches may be common: the page is then found by walking the conversations in
  list order (with every other filter applied) and testing each with `contains_condition` (an
  indexed lookup of its own messages), which stops as soon as the page is full — quick precisely
  because the term is common. Only the total is then a lower bound. When the walk finds the term
  sparse after all, a second probe (`WIDE_CAP`) reads every match through the index instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Integer,
    Select,
    and_,
    column,
    exists,
    func,
    literal_column,
    or_,
    select,
    text,
    union_all,
)
from sqlalchemy.orm import InstrumentedAttribute, Session

from ..store.search_index import WORD_JOIN
from .tables import Conversation, Message

SEARCH_CAP = 2000
"""Most matching messages (and, separately, titles) the first index probe reads. A term with more
is tried as a common one: its page is found by walking the list (see `conversations/history.py`). A term
that is likely in more messages than this skips the probe (`likely_common`)."""

WIDE_CAP = 20_000
"""The second probe's cap, for a term over `SEARCH_CAP` that the walk found sparse: up to this many
matches, reading them all through the index beats walking the list."""


def escape_like(term: str) -> str:
    """`term` with LIKE wildcards escaped (the escape character is a backslash)."""
    return term.replace('\\', '\\\\').replace('%', '\\%').replace('_', '\\_')


def _fts_phrase(term: str) -> str:
    """An FTS5 query matching `term` as a substring: one quoted phrase."""
    return '"' + term.replace('"', '""') + '"'


def _sqlite_contains(
    expression: ColumnElement[str] | InstrumentedAttribute[str], term: str
) -> ColumnElement[bool]:
    """SQLite's own `LIKE` for an ASCII term (it folds ASCII case, in C: several times cheaper per
    row); `synapse_icontains` for any other term, whose letters only Python's `lower()` folds."""
    if term.isascii():
        return expression.like(f'%{escape_like(term)}%', escape='\\')
    return func.synapse_icontains(expression, term.lower()).is_(True)


def _pg_message_contains(term: str) -> ColumnElement[bool]:
    """The indexed form: `translate(lower(content), ...) LIKE '%term%'`."""
    swap: dict[str, str | int | None] = {' ': WORD_JOIN, WORD_JOIN: ' '}
    swapped = term.lower().translate(str.maketrans(swap))
    key = func.translate(func.lower(Message.content), f' {WORD_JOIN}', f'{WORD_JOIN} ')
    return key.like(f'%{escape_like(swapped)}%', escape='\\')


@dataclass
class SearchProbe:
    """Conversations found through the index for a term, and whether that is all of them."""

    ids: list[str]
    complete: bool
    """False when the probe stopped at `SEARCH_CAP` messages or titles: the term is common."""


def _fts_candidates(table: str, term: str, limit: int) -> Any:
    """Rowids of an FTS table matching `term`, at most `limit`, in the index's own order (the
    cheapest: no sort, and reading stops at the limit)."""
    return (
        text(f'SELECT rowid FROM {table} WHERE {table} MATCH :phrase LIMIT :limit')
        .bindparams(phrase=_fts_phrase(term), limit=limit)
        .columns(column('rowid', Integer))
    )


def _sqlite_probe(id_column: Any, text: Any, table: str, term: str, limit: int) -> Select[str, Any]:
    """(id, matched) of at most `limit` rows of `table` whose `text` may contain `term`: through
    its FTS index (`<table>_fts`) for a term of three characters or more, else by scanning."""
    matched = _sqlite_contains(text, term)
    if len(term) < 3:
        return select(id_column.label('id'), matched.label('matched')).where(matched).limit(limit)
    rowid: ColumnElement[int] = literal_column(f'{table}.rowid', Integer)
    return select(id_column.label('id'), matched.label('matched')).where(
        rowid.in_(_fts_candidates(f'{table}_fts', term, limit))
    )


def _message_probe(dialect: str, term: str, limit: int) -> Select[str, Any]:
    """(conversation id, matched) of at most `limit` messages that may contain `term`."""
    if dialect == 'sqlite':
        return _sqlite_probe(Message.conversation_id, Message.content, 'messages', term, limit)
    # No ORDER BY: sorting would let the planner walk the primary key filtering every row, which
    # never ends for a rare term; unordered, a rare term is read through the index and a common one
    # stops a sequential scan early.
    return (
        select(Message.conversation_id.label('id'), literal_column('true').label('matched'))
        .where(_pg_message_contains(term))
        .limit(limit)
    )


def _title_probe(dialect: str, term: str, limit: int) -> Select[str, Any]:
    """(conversation id, matched) of at most `limit` conversations whose title may contain `term`."""
    if dialect == 'sqlite':
        return _sqlite_probe(Conversation.id, Conversation.title, 'conversations', term, limit)
    return (
        select(Conversation.id.label('id'), literal_column('true').label('matched'))
        .where(Conversation.title.ilike(f'%{escape_like(term)}%', escape='\\'))
        .limit(limit)
    )


def probe(connection: Connection | Session, dialect: str, term: str, cap: int | None = None) -> SearchProbe:
    """The conversations whose title or message text contains `term`, read through the index; one
    statement. Complete unless more than `cap` (default `SEARCH_CAP`) messages or titles match."""
    over = (SEARCH_CAP if cap is None else cap) + 1
    # One statement: each probe keeps its own LIMIT inside a subquery (planned as on its own).
    arms = []
    for kind, probed in (
        ('m', _message_probe(dialect, term, over)),
        ('t', _title_probe(dialect, term, over)),
    ):
        found = probed.subquery()
        arms.append(select(literal_column(f"'{kind}'").label('kind'), *found.c))
    rows = connection.execute(union_all(*arms)).all()
    messages = sum(1 for row in rows if row[0] == 'm')
    complete = messages < over and len(rows) - messages < over
    ids = dict.fromkeys(row[1] for row in rows if row[2])
    return SearchProbe(list(ids), complete)


def likely_common(connection: Connection | Session, dialect: str, term: str) -> bool:
    """Whether `term` is probably in more than `SEARCH_CAP` messages, asked without reading them.

    - SQLite: the FTS index alone counts its candidates up to `SEARCH_CAP + 1` (no message row
      is read; the candidates are a superset of the matches, so "not common" is certain).
    - PostgreSQL: the planner's `EXPLAIN` estimate, from the trigram statistics (no row is read).
      Reading a common term's matches there is a sequential scan that lowercases every message on
      its way.

    A likely common term goes straight to the walk; any other is probed (`probe`). Terms under
    three characters have no trigram to count: never likely common (their probe scans anyway)."""
    if dialect == 'sqlite':
        if len(term) < 3:
            return False
        candidates = _fts_candidates('messages_fts', term, SEARCH_CAP + 1).subquery()
        return (connection.scalar(select(func.count()).select_from(candidates)) or 0) > SEARCH_CAP
    bound = connection.connection() if isinstance(connection, Session) else connection
    compiled = (
        select(Message.conversation_id).where(_pg_message_contains(term)).compile(dialect=bound.dialect)
    )
    # exec_driver_sql: the statement goes to the driver as compiled, parameters bound by it.
    plan = bound.exec_driver_sql(f'EXPLAIN (FORMAT JSON) {compiled}', compiled.params).scalar_one()
    return float(plan[0]['Plan']['Plan Rows']) > SEARCH_CAP


def contains_condition(dialect: str, term: str) -> ColumnElement[bool]:
    """Whether a conversation's title or one of its messages contains `term`, tested per
    conversation through the `(conversation_id, id)` index: for walking the list in order."""
    if dialect == 'sqlite':
        in_messages = exists().where(
            Message.conversation_id == Conversation.id, _sqlite_contains(Message.content, term)
        )
        return or_(_sqlite_contains(Conversation.title, term), in_messages)
    lowered = term.lower()
    content: Any = Message.content
    title: Any = Conversation.title
    if term.isascii():
        # Lowercasing ASCII only (the C collation) is twice as fast, and an ASCII term needs no more.
        content, title = content.collate('C'), title.collate('C')
    # OFFSET 0 keeps PostgreSQL from turning the EXISTS into a semi-join over every message that
    # matches (which reads all of them): it is probed per conversation, and the walk stops early.
    in_messages = (
        select(literal_column('1'))
        .where(
            and_(Message.conversation_id == Conversation.id, func.strpos(func.lower(content), lowered) > 0)
        )
        .offset(0)
        .exists()
    )
    return or_(func.strpos(func.lower(title), lowered) > 0, in_messages)
