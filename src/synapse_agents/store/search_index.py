"""The search structures the migrations own, named for the store's own machinery.

SQLite keeps FTS5 trigram tables beside `conversations` and `messages` (filled by triggers) and
PostgreSQL pg_trgm indexes (migrations 0002 and 0003); Alembic's comparisons leave them out
(`include_name`). Every SQLite connection gets `synapse_icontains` (`icontains`), the match for a
term whose letters only Python's `lower()` folds. The queries over them are the conversations
area's (`conversations/search.py`).
"""

from __future__ import annotations

from typing import Any

FTS_TABLES = ('conversations_fts', 'messages_fts')
"""The SQLite FTS5 tables; each also owns shadow tables named `<table>_<suffix>`."""

TRIGRAM_INDEXES = (
    'ix_conversations_title_trgm',
    'ix_messages_content_trgm',
    'ix_messages_content_words_trgm',
)
"""The PostgreSQL pg_trgm indexes (the content one was replaced by the word-boundary one in 0003)."""

WORD_JOIN = 'ʒ'
"""The letter that stands for a space in PostgreSQL's word-boundary trigram index (and back)."""

_FTS_SHADOW_SUFFIXES = ('data', 'idx', 'docsize', 'config', 'content')


def include_name(name: str | None, type_: str, parent_names: Any = None) -> bool:
    """Alembic name filter: leave the search structures (owned by migrations) out of comparisons."""
    if name is None:
        return True
    if type_ == 'table':
        shadows = {f'{table}_{suffix}' for table in FTS_TABLES for suffix in _FTS_SHADOW_SUFFIXES}
        return name not in FTS_TABLES and name not in shadows
    if type_ == 'index':
        return name not in TRIGRAM_INDEXES
    return True


def icontains(text_value: str | None, lowered_term: str | None) -> bool | None:
    """`synapse_icontains(text, lowered_term)` on SQLite: whether the term is in the text, ignoring case."""
    if text_value is None or lowered_term is None:
        return None
    return lowered_term in text_value.lower()
