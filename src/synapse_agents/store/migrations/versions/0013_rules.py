"""Rules: hard directives written by people (see `synapse_agents.rules`).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from synapse_agents.store.schema import UtcDateTime

revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'rules',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('tenant', sa.String(511), nullable=False),
        sa.Column('subject', sa.String(511)),
        sa.Column('applies_to', sa.String(511)),
        sa.Column('text', sa.Text, nullable=False),
        sa.Column('priority', sa.Integer, nullable=False),
        sa.Column('enabled', sa.Boolean, nullable=False),
        sa.Column('created_by', sa.String(511)),
        sa.Column('created_at', UtcDateTime(), nullable=False),
        sa.Column('updated_at', UtcDateTime(), nullable=False),
    )
    op.create_index('ix_rules_tenant_subject', 'rules', ['tenant', 'subject'])


def downgrade() -> None:
    op.drop_index('ix_rules_tenant_subject', table_name='rules')
    op.drop_table('rules')
