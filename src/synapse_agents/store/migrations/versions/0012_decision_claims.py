"""Decisions held by a server: a decided tool call names the instance whose turn carries it, so a
sweep gives the decisions of a server that died back (the calls wait again).

See `synapse_agents.conversations.decisions`.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('tool_invocations') as batch:
        batch.add_column(sa.Column('claimed_by', sa.String(36)))
    op.create_index('ix_tool_invocations_claimed_by', 'tool_invocations', ['claimed_by'])


def downgrade() -> None:
    op.drop_index('ix_tool_invocations_claimed_by', table_name='tool_invocations')
    with op.batch_alter_table('tool_invocations') as batch:
        batch.drop_column('claimed_by')
