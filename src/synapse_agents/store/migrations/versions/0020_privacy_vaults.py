"""Privacy vaults: each conversation's placeholders (encrypted) and its `anonymize_pii` flag.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from synapse_agents.store.schema import UtcDateTime

revision = '0020'
down_revision = '0019'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'privacy_vaults',
        sa.Column('conversation_id', sa.String(36), primary_key=True),
        sa.Column('tenant', sa.String(511)),
        sa.Column('anonymize_pii', sa.Boolean, nullable=False),
        sa.Column('sealed', sa.Text),
        sa.Column('entries', sa.Integer, nullable=False),
        sa.Column('created_at', UtcDateTime(), nullable=False),
        sa.Column('updated_at', UtcDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table('privacy_vaults')
