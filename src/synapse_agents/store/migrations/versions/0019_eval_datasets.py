"""Eval datasets and their versions, eval runs and their cases' results (see `synapse_agents.evals`).

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from synapse_agents.store.schema import JsonType, Money, UtcDateTime

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
    op.create_table(
        'eval_runs',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('dataset_key', sa.String(100), nullable=False),
        sa.Column('dataset_version', sa.Integer, nullable=False),
        sa.Column('agent_key', sa.String(255), nullable=False),
        sa.Column('model', sa.String(255)),
        sa.Column('label', sa.String(200)),
        sa.Column('status', sa.String(16), nullable=False),
        sa.Column('concurrency', sa.Integer, nullable=False),
        sa.Column('task_id', sa.String(36)),
        sa.Column('case_count', sa.Integer, nullable=False),
        sa.Column('passed', sa.Integer, nullable=False),
        sa.Column('failed', sa.Integer, nullable=False),
        sa.Column('errored', sa.Integer, nullable=False),
        sa.Column('pass_rate', sa.Float),
        sa.Column('scores', JsonType, nullable=False),
        sa.Column('cost', Money()),
        sa.Column('input_tokens', sa.Integer, nullable=False),
        sa.Column('output_tokens', sa.Integer, nullable=False),
        sa.Column('duration_ms', sa.Integer, nullable=False),
        sa.Column('error', sa.Text),
        sa.Column('created_at', UtcDateTime(), nullable=False),
        sa.Column('started_at', UtcDateTime()),
        sa.Column('finished_at', UtcDateTime()),
    )
    op.create_index('ix_eval_runs_dataset', 'eval_runs', ['dataset_key', 'created_at'])
    op.create_table(
        'eval_case_results',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('run_id', sa.String(36), nullable=False),
        sa.Column('position', sa.Integer, nullable=False),
        sa.Column('case_name', sa.String(200), nullable=False),
        sa.Column('conversation_id', sa.String(36)),
        sa.Column('output', JsonType),
        sa.Column('passed', sa.Boolean, nullable=False),
        sa.Column('assertions', JsonType, nullable=False),
        sa.Column('scores', JsonType, nullable=False),
        sa.Column('labels', JsonType, nullable=False),
        sa.Column('error', sa.Text),
        sa.Column('cost', Money()),
        sa.Column('input_tokens', sa.Integer, nullable=False),
        sa.Column('output_tokens', sa.Integer, nullable=False),
        sa.Column('duration_ms', sa.Integer, nullable=False),
        sa.Column('created_at', UtcDateTime(), nullable=False),
    )
    op.create_index('ix_eval_case_results_run', 'eval_case_results', ['run_id', 'position'], unique=True)


def downgrade() -> None:
    op.drop_table('eval_case_results')
    op.drop_table('eval_runs')
    op.drop_table('eval_dataset_versions')
    op.drop_table('eval_datasets')
