"""PostgreSQL: index message text with the trigrams that straddle word boundaries.

pg_trgm splits text into words before taking trigrams, so its index of `messages.content` (0002)
knows nothing of which words are neighbours: a phrase of common words ("refund shipping invoice",
each word in half of a million messages) made every query read and recheck a third of the table
(1.4 s). This index is over `translate(lower(content), ' ʒ', 'ʒ ')`: the space becomes a letter
(and that letter a space, so the swap loses nothing), a whole line of text is one "word" to
pg_trgm, and `d ʒ s`-like trigrams narrow a phrase down to the messages that have its words side by
side. Search queries this expression with `LIKE` (see `synapse_agents.conversations.search`). SQLite's FTS5
trigram tables (0002) already index spaces, so nothing changes there.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None

_WORDS = "translate(lower(content), ' ʒ', 'ʒ ')"


def _has_trigram(bind: sa.Connection) -> bool:
    return bool(bind.execute(sa.text("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'")).scalar())


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != 'postgresql' or not _has_trigram(bind):
        return
    op.execute('DROP INDEX IF EXISTS ix_messages_content_trgm')
    op.execute(f'CREATE INDEX ix_messages_content_words_trgm ON messages USING gin (({_WORDS}) gin_trgm_ops)')


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != 'postgresql' or not _has_trigram(bind):
        return
    op.execute('DROP INDEX IF EXISTS ix_messages_content_words_trgm')
    op.execute('CREATE INDEX ix_messages_content_trgm ON messages USING gin (content gin_trgm_ops)')
