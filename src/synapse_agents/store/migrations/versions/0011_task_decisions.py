"""Tool calls that wait for a person: the decisions that resume a task, and an index that finds a
conversation's waiting calls without reading all its calls.

See `synapse_agents.tasks.decisions` and `synapse_agents.conversations.decisions`.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from synapse_agents.store.schema import JsonType

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('agent_tasks') as batch:
        batch.add_column(sa.Column('decisions', JsonType))
    op.create_index(
        'ix_tool_invocations_conversation_status',
        'tool_invocations',
        ['conversation_id', 'status', 'started_at'],
    )


def downgrade() -> None:
    op.drop_index('ix_tool_invocations_conversation_status', table_name='tool_invocations')
    with op.batch_alter_table('agent_tasks') as batch:
        batch.drop_column('decisions')
