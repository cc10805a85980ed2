"""Conversations are listed by origin and scope, forks know their source, and pydantic-ai's log store.

- `conversations.forked_from_id`, `forked_at_message_id`: a fork made at a user message of another
  conversation holds copies of the turns before it; `messages.copied_from_id` names the row a copy
  was made from.
- Indexes for the history list's `origin`, `tenant`, `actor` and `subject` filters, and for a
  conversation's forks.
- `log_conversations`, `log_entries`: `SqlConversationStore`, pydantic-ai's `ConversationStore`
  protocol on Synapse's database.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

from synapse_agents.store.schema import UtcDateTime

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None

_JSON = sa.JSON().with_variant(JSONB(), 'postgresql')

_INDEXES = {
    'ix_conversations_origin_updated': ('origin', 'updated_at'),
    'ix_conversations_tenant_updated': ('tenant_type', 'tenant_id', 'updated_at'),
    'ix_conversations_actor_updated': ('actor_type', 'actor_id', 'updated_at'),
    'ix_conversations_subject_updated': ('subject_type', 'subject_id', 'updated_at'),
    'ix_conversations_forked_from': ('forked_from_id',),
}


def upgrade() -> None:
    op.add_column('conversations', sa.Column('forked_from_id', sa.String(36)))
    op.add_column('conversations', sa.Column('forked_at_message_id', sa.String(36)))
    op.add_column('messages', sa.Column('copied_from_id', sa.String(36)))
    for name, columns in _INDEXES.items():
        op.create_index(name, 'conversations', list(columns))
    op.create_table(
        'log_conversations',
        sa.Column('conversation_id', sa.String(255), primary_key=True),
        sa.Column('head_id', sa.String(255)),
        sa.Column('usage', _JSON, nullable=False),
        sa.Column('deferred_tool_requests', _JSON),
        sa.Column('scope', sa.String(255)),
        sa.Column('forked_from', sa.String(255)),
        sa.Column('forked_at', sa.String(255)),
        sa.Column('branches', _JSON, nullable=False),
        sa.Column('revision', sa.String(64), nullable=False),
        sa.Column('format_version', sa.Integer, nullable=False),
        sa.Column('updated_at', UtcDateTime(), nullable=False),
    )
    op.create_index('ix_log_conversations_updated', 'log_conversations', ['updated_at'])
    op.create_index('ix_log_conversations_scope_updated', 'log_conversations', ['scope', 'updated_at'])
    op.create_table(
        'log_entries',
        sa.Column('id', sa.String(255), primary_key=True),
        sa.Column('parent_id', sa.String(255)),
        sa.Column('kind', sa.String(16), nullable=False),
        sa.Column('message', _JSON, nullable=False),
        sa.Column('created_at', UtcDateTime(), nullable=False),
    )
    op.create_index('ix_log_entries_parent', 'log_entries', ['parent_id'])


def downgrade() -> None:
    op.drop_table('log_entries')
    op.drop_table('log_conversations')
    for name in _INDEXES:
        op.drop_index(name, 'conversations')
    op.drop_column('messages', 'copied_from_id')
    op.drop_column('conversations', 'forked_at_message_id')
    op.drop_column('conversations', 'forked_from_id')
