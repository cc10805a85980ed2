"""What filled each prompt: one row per model request (see `conversations.prompt_contexts`).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from synapse_agents.store.schema import JsonType

revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'prompt_contexts',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('conversation_id', sa.String(36), nullable=False),
        sa.Column('message_id', sa.String(36), nullable=False),
        sa.Column('run_id', sa.String(64)),
        sa.Column('position', sa.Integer, nullable=False),
        sa.Column('data', JsonType, nullable=False),
    )
    op.create_index('ix_prompt_contexts_conversation_id', 'prompt_contexts', ['conversation_id'])
    op.create_index('ix_prompt_contexts_message_id', 'prompt_contexts', ['message_id'])


def downgrade() -> None:
    op.drop_index('ix_prompt_contexts_message_id', table_name='prompt_contexts')
    op.drop_index('ix_prompt_contexts_conversation_id', table_name='prompt_contexts')
    op.drop_table('prompt_contexts')
