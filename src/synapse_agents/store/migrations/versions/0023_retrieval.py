"""Retrieval: sources, the files indexed from them and their chunks (see `synapse_agents.retrieval`).

On PostgreSQL with pgvector available, the chunks' embedding column is pgvector's `vector` (no fixed
dimensions: an HNSW expression index per dimension is made when a source is first indexed with an
embedder of that dimension, `retrieval/vector_search.py`); without it the column is bytes.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from synapse_agents.store.schema import JsonType, UtcDateTime

revision = '0023'
down_revision = '0022'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'rag_sources',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('slug', sa.String(64), nullable=False, unique=True),
        sa.Column('name', sa.String(200), nullable=False),
        sa.Column('description', sa.Text),
        sa.Column('kind', sa.String(64), nullable=False),
        sa.Column('config', JsonType, nullable=False),
        sa.Column('tenant', sa.String(511)),
        sa.Column('active', sa.Boolean, nullable=False),
        sa.Column('status', sa.String(16), nullable=False),
        sa.Column('last_error', sa.Text),
        sa.Column('total_files', sa.Integer, nullable=False),
        sa.Column('processed_files', sa.Integer, nullable=False),
        sa.Column('current_file', sa.Text),
        sa.Column('document_count', sa.Integer, nullable=False),
        sa.Column('chunk_count', sa.Integer, nullable=False),
        sa.Column('embedder', sa.String(255)),
        sa.Column('last_indexed_at', UtcDateTime()),
        sa.Column('claim', sa.String(36)),
        sa.Column('claimed_at', UtcDateTime()),
        sa.Column('heartbeat_at', UtcDateTime()),
        sa.Column('created_at', UtcDateTime(), nullable=False),
        sa.Column('updated_at', UtcDateTime(), nullable=False),
    )
    op.create_table(
        'rag_files',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('source_id', sa.String(36), nullable=False),
        sa.Column('identifier', sa.String(2000), nullable=False),
        sa.Column('content_hash', sa.String(64)),
        sa.Column('status', sa.String(16), nullable=False),
        sa.Column('error', sa.Text),
        sa.Column('chunk_count', sa.Integer, nullable=False),
        sa.Column('size', sa.Integer, nullable=False),
        sa.Column('indexed_at', UtcDateTime()),
        sa.UniqueConstraint('source_id', 'identifier', name='uq_rag_files_source_identifier'),
    )
    op.create_table(
        'rag_chunks',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('source_id', sa.String(36), nullable=False),
        sa.Column('tenant', sa.String(511)),
        sa.Column('file_identifier', sa.String(2000), nullable=False),
        sa.Column('content', sa.Text, nullable=False),
        sa.Column('meta', JsonType, nullable=False),
        sa.Column('chunk_index', sa.Integer, nullable=False),
        sa.Column('chunk_total', sa.Integer, nullable=False),
        sa.Column('content_hash', sa.String(64), nullable=False),
        sa.Column('embedder', sa.String(255)),
        sa.Column('dimensions', sa.Integer),
        sa.Column('embedding', sa.LargeBinary),
    )
    op.create_index('ix_rag_chunks_file', 'rag_chunks', ['source_id', 'file_identifier', 'content_hash'])
    op.create_index('ix_rag_chunks_search', 'rag_chunks', ['source_id', 'embedder', 'dimensions'])
    op.create_index('ix_rag_chunks_tenant', 'rag_chunks', ['tenant', 'source_id'])
    if _pgvector_available():
        op.execute('CREATE EXTENSION IF NOT EXISTS vector')
        op.execute('ALTER TABLE rag_chunks ALTER COLUMN embedding TYPE vector USING NULL')


def downgrade() -> None:
    op.drop_index('ix_rag_chunks_tenant', table_name='rag_chunks')
    op.drop_index('ix_rag_chunks_search', table_name='rag_chunks')
    op.drop_index('ix_rag_chunks_file', table_name='rag_chunks')
    op.drop_table('rag_chunks')  # the HNSW indexes made at run time go with it
    op.drop_table('rag_files')
    op.drop_table('rag_sources')


def _pgvector_available() -> bool:
    bind = op.get_bind()
    if bind.dialect.name != 'postgresql':
        return False
    found = bind.execute(sa.text("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")).scalar()
    return found is not None
