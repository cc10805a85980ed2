"""History summaries: what `Compression` sends for a conversation's older turns.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from synapse_agents.store.schema import UtcDateTime

revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'history_summaries',
        sa.Column('conversation_id', sa.String(36), primary_key=True),
        sa.Column('summary', sa.Text),
        sa.Column('covered_messages', sa.Integer, nullable=False),
        sa.Column('last_run_id', sa.String(64)),
        sa.Column('summary_calls', sa.Integer, nullable=False),
        sa.Column('model', sa.String(255)),
        sa.Column('failures', sa.Integer, nullable=False),
        sa.Column('last_error', sa.Text),
        sa.Column('retry_after_turns', sa.Integer),
        sa.Column('created_at', UtcDateTime(), nullable=False),
        sa.Column('updated_at', UtcDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table('history_summaries')
