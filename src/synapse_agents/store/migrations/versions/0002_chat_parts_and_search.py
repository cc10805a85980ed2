"""Chat turns: the assistant's display parts, a combined history index, and search indexes.

- `messages.parts`: what the replay shows for an assistant answer (reasoning, text, tool references,
  structured output), so the thread never has to ship or parse `model_messages`.
- `ix_conversations_agent_error_updated`: the history list filtered by agent and status.
- Search (see `synapse_agents.conversations.search`): FTS5 trigram tables kept in step by triggers on SQLite;
  pg_trgm GIN indexes on PostgreSQL, when the extension can be created.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from synapse_agents.store.schema import JsonType

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None

_SQLITE_UP = [
    "CREATE VIRTUAL TABLE conversations_fts USING fts5(title, content='conversations', content_rowid='rowid', tokenize='trigram')",
    "CREATE VIRTUAL TABLE messages_fts USING fts5(content, content='messages', content_rowid='rowid', tokenize='trigram')",
    "INSERT INTO conversations_fts(conversations_fts) VALUES ('rebuild')",
    "INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')",
    """CREATE TRIGGER conversations_fts_insert AFTER INSERT ON conversations BEGIN
        INSERT INTO conversations_fts(rowid, title) VALUES (new.rowid, new.title);
    END""",
    """CREATE TRIGGER conversations_fts_delete AFTER DELETE ON conversations BEGIN
        INSERT INTO conversations_fts(conversations_fts, rowid, title) VALUES ('delete', old.rowid, old.title);
    END""",
    """CREATE TRIGGER conversations_fts_update AFTER UPDATE OF title ON conversations BEGIN
        INSERT INTO conversations_fts(conversations_fts, rowid, title) VALUES ('delete', old.rowid, old.title);
        INSERT INTO conversations_fts(rowid, title) VALUES (new.rowid, new.title);
    END""",
    """CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
        INSERT INTO messages_fts(rowid, content) VALUES (new.rowid, new.content);
    END""",
    """CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
    END""",
    """CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
        INSERT INTO messages_fts(rowid, content) VALUES (new.rowid, new.content);
    END""",
]

_SQLITE_DOWN = [
    'DROP TRIGGER IF EXISTS conversations_fts_insert',
    'DROP TRIGGER IF EXISTS conversations_fts_delete',
    'DROP TRIGGER IF EXISTS conversations_fts_update',
    'DROP TRIGGER IF EXISTS messages_fts_insert',
    'DROP TRIGGER IF EXISTS messages_fts_delete',
    'DROP TRIGGER IF EXISTS messages_fts_update',
    'DROP TABLE IF EXISTS conversations_fts',
    'DROP TABLE IF EXISTS messages_fts',
]


def _postgres_has_trigram(bind: sa.Connection) -> bool:
    """Create pg_trgm if this role may; the search still works (by scanning) without it."""
    installed = bind.execute(sa.text("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'")).scalar()
    if installed:
        return True
    available = bind.execute(sa.text("SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm'")).scalar()
    if not available:
        return False
    with bind.begin_nested() as savepoint:
        try:
            bind.execute(sa.text('CREATE EXTENSION IF NOT EXISTS pg_trgm'))
        except sa.exc.DBAPIError:
            savepoint.rollback()
            return False
    return True


def upgrade() -> None:
    with op.batch_alter_table('messages') as batch:
        batch.add_column(sa.Column('parts', JsonType))
    op.create_index(
        'ix_conversations_agent_error_updated', 'conversations', ['agent_key', 'has_error', 'updated_at']
    )
    bind = op.get_bind()
    if bind.dialect.name == 'sqlite':
        for statement in _SQLITE_UP:
            op.execute(statement)
    elif bind.dialect.name == 'postgresql' and _postgres_has_trigram(bind):
        op.execute('CREATE INDEX ix_conversations_title_trgm ON conversations USING gin (title gin_trgm_ops)')
        op.execute('CREATE INDEX ix_messages_content_trgm ON messages USING gin (content gin_trgm_ops)')


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == 'sqlite':
        for statement in _SQLITE_DOWN:
            op.execute(statement)
    else:
        op.execute('DROP INDEX IF EXISTS ix_messages_content_trgm')
        op.execute('DROP INDEX IF EXISTS ix_conversations_title_trgm')
    op.drop_index('ix_conversations_agent_error_updated', 'conversations')
    with op.batch_alter_table('messages') as batch:
        batch.drop_column('parts')
