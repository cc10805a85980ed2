"""Eval datasets and their versions (see `synapse_agents.evals`).

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from synapse_agents.store.schema import JsonType, UtcDateTime

revision = '0019'
down_revision = '0018'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'eval_datasets',
        sa.Column('key', sa.String(100), primary_key=True),
        sa.Column('name', sa.String(200), nullable=False),
        sa.Column('description', sa.Text),
        sa.Column('tags', JsonType, nullable=False),
        sa.Column('version', sa.Integer, nullable=False),
        sa.Column('case_count', sa.Integer, nullable=False),
        sa.Column('created_at', UtcDateTime(), nullable=False),
        sa.Column('updated_at', UtcDateTime(), nullable=False),
    )
    op.create_table(
        'eval_dataset_versions',
        sa.Column('dataset_key', sa.String(100), primary_key=True),
        sa.Column('version', sa.Integer, primary_key=True),
        sa.Column('name', sa.String(200), nullable=False),
        sa.Column('description', sa.Text),
        sa.Column('tags', JsonType, nullable=False),
        sa.Column('cases', JsonType, nullable=False),
        sa.Column('evaluators', JsonType, nullable=False),
        sa.Column('change', sa.String(200), nullable=False),
        sa.Column('created_at', UtcDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table('eval_dataset_versions')
    op.drop_table('eval_datasets')
