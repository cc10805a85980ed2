"""Substring search over conversation titles and message text, fast on both dialects.

A plain `LIKE '%x%'` reads every row; at a million messages that is far too slow. So search has an
index of its own on each dialect, created by migration 0002 outside the SQLAlchemy models:

- SQLite: two external-content FTS5 tables with the `trigram` tokenizer (`conversations_fts` over
  titles, `messages_fts` over message text), kept in step by triggers. A trigram phrase query is a
  case-insensitive substring match, answered from the index.
- PostgreSQL: `pg_trgm` GIN indexes on `conversations.title` and `messages.content`, which make
  `ILIKE '%x%'` an index scan. Without the extension (no privilege to create it) the same query
  still answers, by scanning.

Terms shorter than three characters cannot use a trigram index; they fall back to `LIKE` and a scan.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Connection, Integer, Select, column, literal_column, select, text
from sqlalchemy.orm import Session

from .models import Conversation, Message

FTS_TABLES = ('conversations_fts', 'messages_fts')
"""The SQLite FTS5 tables; each also owns shadow tables named `<table>_<suffix>`."""

TRIGRAM_INDEXES = ('ix_conversations_title_trgm', 'ix_messages_content_trgm')
"""The PostgreSQL pg_trgm indexes."""

_FTS_SHADOW_SUFFIXES = ('data', 'idx', 'docsize', 'config', 'content')


def include_name(name: str | None, type_: str, parent_names: Any = None) -> bool:
    """Alembic name filter: leave the search structures (owned by migration 0002) out of comparisons."""
    if name is None:
        return True
    if type_ == 'table':
        shadows = {f'{table}_{suffix}' for table in FTS_TABLES for suffix in _FTS_SHADOW_SUFFIXES}
        return name not in FTS_TABLES and name not in shadows
    if type_ == 'index':
        return name not in TRIGRAM_INDEXES
    return True


def escape_like(term: str) -> str:
    """`term` with LIKE wildcards escaped (the escape character is a backslash)."""
    return term.replace('\\', '\\\\').replace('%', '\\%').replace('_', '\\_')


def _fts_phrase(term: str) -> str:
    """An FTS5 query matching `term` as a substring: one quoted phrase."""
    return '"' + term.replace('"', '""') + '"'


SEARCH_CAP = 1000
"""Most matching messages (and, separately, titles) a search considers: the newest ones (oldest
with `sort=oldest`). A term that matches more is common; its list covers the conversations of those
matches and its total is a lower bound, which keeps a one-word search fast at a million messages."""


def _fts_rowids(table: str, term: str, newest_first: bool, limit: int) -> Any:
    """The newest (or oldest) `limit` rowids of an FTS table matching `term`, in the FTS query itself
    (so SQLite stops reading the index there)."""
    direction = 'DESC' if newest_first else 'ASC'
    return (
        text(f'SELECT rowid FROM {table} WHERE {table} MATCH :phrase ORDER BY rowid {direction} LIMIT :limit')
        .bindparams(phrase=_fts_phrase(term), limit=limit)
        .columns(column('rowid', Integer))
    )


def _message_matches(dialect: str, term: str, newest_first: bool, limit: int) -> Select[Any]:
    """Conversation ids of the newest (or oldest) `limit` matching messages."""
    if dialect == 'sqlite' and len(term) >= 3:
        rowid: ColumnElement[int] = literal_column('messages.rowid', Integer)
        return (
            select(Message.conversation_id)
            .where(rowid.in_(_fts_rowids('messages_fts', term, newest_first, limit)))
            .order_by(rowid.desc() if newest_first else rowid.asc())
        )
    pattern = f'%{escape_like(term)}%'
    return (
        select(Message.conversation_id)
        .where(Message.content.ilike(pattern, escape='\\'))
        .order_by(Message.id.desc() if newest_first else Message.id.asc())
        .limit(limit)
    )


def _title_matches(dialect: str, term: str, newest_first: bool, limit: int) -> Select[Any]:
    """The newest (or oldest) `limit` conversations whose title matches."""
    if dialect == 'sqlite' and len(term) >= 3:
        rowid: ColumnElement[int] = literal_column('conversations.rowid', Integer)
        return (
            select(Conversation.id)
            .where(rowid.in_(_fts_rowids('conversations_fts', term, newest_first, limit)))
            .order_by(rowid.desc() if newest_first else rowid.asc())
        )
    pattern = f'%{escape_like(term)}%'
    return (
        select(Conversation.id)
        .where(Conversation.title.ilike(pattern, escape='\\'))
        .order_by(Conversation.id.desc() if newest_first else Conversation.id.asc())
        .limit(limit)
    )


def matching_conversation_ids(
    connection: Connection | Session, dialect: str, term: str, *, newest_first: bool = True
) -> tuple[list[str], bool]:
    """Ids of conversations whose title or message text contains `term`, and whether the search was
    capped (more than `SEARCH_CAP` matching messages or titles). Two statements; each reads the
    index once."""
    over = SEARCH_CAP + 1
    by_message = list(connection.execute(_message_matches(dialect, term, newest_first, over)).scalars())
    by_title = list(connection.execute(_title_matches(dialect, term, newest_first, over)).scalars())
    capped = len(by_message) > SEARCH_CAP or len(by_title) > SEARCH_CAP
    ids = dict.fromkeys([*by_message[:SEARCH_CAP], *by_title[:SEARCH_CAP]])
    return list(ids), capped
