"""Tasks whose run paused on tool calls: the decisions that resume them.

See `synapse_agents.tasks.decisions`.

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


def downgrade() -> None:
    with op.batch_alter_table('agent_tasks') as batch:
        batch.drop_column('decisions')
