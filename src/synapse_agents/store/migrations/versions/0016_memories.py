"""Memories, their vectors, where distilling resumes, and who shares (see `synapse_agents.memory`).

On PostgreSQL with pgvector available, the `vector` extension is created and the embedding column
is pgvector's `vector` (searched in SQL); without it the column is bytes and searched exactly in
Python (`store/vectors.py`).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from synapse_agents.store.schema import JsonType, UtcDateTime

revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'memories',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('tenant', sa.String(511), nullable=False),
        sa.Column('subject', sa.String(511)),
        sa.Column('applies_to', sa.String(511)),
        sa.Column('content', sa.Text, nullable=False),
        sa.Column('source', sa.String(16), nullable=False),
        sa.Column('created_by', sa.String(511)),
        sa.Column('agent_key', sa.String(255)),
        sa.Column('conversation_id', sa.String(36)),
        sa.Column('source_message_ids', JsonType, nullable=False),
        sa.Column('fingerprint', sa.String(64), nullable=False),
        sa.Column('created_at', UtcDateTime(), nullable=False),
        sa.Column('updated_at', UtcDateTime(), nullable=False),
    )
    op.create_index('ix_memories_scope', 'memories', ['tenant', 'subject', 'applies_to', 'id'])
    op.create_index('ix_memories_applies_to', 'memories', ['applies_to', 'tenant'])
    op.create_index('ix_memories_fingerprint', 'memories', ['tenant', 'fingerprint'])
    op.create_table(
        'memory_vectors',
        sa.Column('memory_id', sa.String(36), primary_key=True),
        sa.Column('tenant', sa.String(511), nullable=False),
        sa.Column('embedder', sa.String(255), nullable=False),
        sa.Column('dimensions', sa.Integer, nullable=False),
        sa.Column('embedding', sa.LargeBinary, nullable=False),
    )
    op.create_index('ix_memory_vectors_tenant', 'memory_vectors', ['tenant', 'embedder'])
    if _pgvector_available():
        op.execute('CREATE EXTENSION IF NOT EXISTS vector')
        op.execute('ALTER TABLE memory_vectors ALTER COLUMN embedding TYPE vector USING NULL')
    op.create_table(
        'memory_cursors',
        sa.Column('conversation_id', sa.String(36), primary_key=True),
        sa.Column('distilled_until', sa.String(36)),
        sa.Column('last_distilled_at', UtcDateTime()),
        sa.Column('memories_written', sa.Integer, nullable=False),
        sa.Column('last_error', sa.Text),
    )
    op.create_table(
        'memory_sharing',
        sa.Column('actor', sa.String(511), primary_key=True),
        sa.Column('share', sa.Boolean, nullable=False),
        sa.Column('updated_at', UtcDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table('memory_sharing')
    op.drop_table('memory_cursors')
    op.drop_index('ix_memory_vectors_tenant', table_name='memory_vectors')
    op.drop_table('memory_vectors')
    op.drop_index('ix_memories_fingerprint', table_name='memories')
    op.drop_index('ix_memories_applies_to', table_name='memories')
    op.drop_index('ix_memories_scope', table_name='memories')
    op.drop_table('memories')


def _pgvector_available() -> bool:
    bind = op.get_bind()
    if bind.dialect.name != 'postgresql':
        return False
    found = bind.execute(sa.text("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")).scalar()
    return found is not None
