"""Vector memories: remembered texts of a tenant, for a person or a conversation, with their vectors
(see `synapse_agents.retrieval.vector_memory`).

On PostgreSQL where the memories' embedding column is pgvector's `vector` (0016 made it so when
pgvector was available), this one is too: one index for both, as `store.vectors.index_of` reads it
off `memory_vectors`. Otherwise the column is bytes, searched exactly in Python.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from synapse_agents.store.schema import JsonType, UtcDateTime

revision = '0024'
down_revision = '0023'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'vector_memories',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('tenant', sa.String(511), nullable=False),
        sa.Column('person', sa.String(511)),
        sa.Column('scope', sa.String(16), nullable=False),
        sa.Column('conversation_id', sa.String(36)),
        sa.Column('source_type', sa.String(16), nullable=False),
        sa.Column('content', sa.Text, nullable=False),
        sa.Column('meta', JsonType, nullable=False),
        sa.Column('embedder', sa.String(255)),
        sa.Column('dimensions', sa.Integer),
        sa.Column('embedding', sa.LargeBinary),
        sa.Column('created_at', UtcDateTime(), nullable=False),
    )
    op.create_index('ix_vector_memories_person', 'vector_memories', ['tenant', 'person', 'id'])
    op.create_index('ix_vector_memories_conversation', 'vector_memories', ['conversation_id'])
    op.create_index('ix_vector_memories_embedder', 'vector_memories', ['tenant', 'embedder', 'dimensions'])
    if _memories_on_pgvector():
        op.execute('ALTER TABLE vector_memories ALTER COLUMN embedding TYPE vector USING NULL')


def downgrade() -> None:
    op.drop_index('ix_vector_memories_embedder', table_name='vector_memories')
    op.drop_index('ix_vector_memories_conversation', table_name='vector_memories')
    op.drop_index('ix_vector_memories_person', table_name='vector_memories')
    op.drop_table('vector_memories')


def _memories_on_pgvector() -> bool:
    bind = op.get_bind()
    if bind.dialect.name != 'postgresql':
        return False
    found = bind.execute(
        sa.text(
            'SELECT format_type(a.atttypid, a.atttypmod) FROM pg_attribute a '
            "WHERE a.attrelid = to_regclass('memory_vectors') AND a.attname = 'embedding'"
        )
    ).scalar()
    return found is not None and str(found).startswith('vector')
