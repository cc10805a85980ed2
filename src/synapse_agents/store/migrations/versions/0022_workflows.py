"""Workflows and their versions, workflow runs and their steps (see `synapse_agents.workflows`).

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from synapse_agents.store.schema import JsonType, Money, UtcDateTime

revision = '0022'
down_revision = '0021'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'workflows',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('key', sa.String(100), nullable=False, unique=True),
        sa.Column('name', sa.String(200), nullable=False),
        sa.Column('description', sa.Text),
        sa.Column('definition', JsonType, nullable=False),
        sa.Column('version', sa.Integer, nullable=False),
        sa.Column('step_count', sa.Integer, nullable=False),
        sa.Column('is_sandbox', sa.Boolean, nullable=False),
        sa.Column('created_at', UtcDateTime(), nullable=False),
        sa.Column('updated_at', UtcDateTime(), nullable=False),
    )
    op.create_table(
        'workflow_versions',
        sa.Column('workflow_id', sa.String(36), primary_key=True),
        sa.Column('version', sa.Integer, primary_key=True),
        sa.Column('name', sa.String(200), nullable=False),
        sa.Column('description', sa.Text),
        sa.Column('definition', JsonType, nullable=False),
        sa.Column('change', sa.String(200), nullable=False),
        sa.Column('created_at', UtcDateTime(), nullable=False),
    )
    op.create_table(
        'workflow_runs',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('workflow_id', sa.String(36)),
        sa.Column('workflow_key', sa.String(100), nullable=False),
        sa.Column('workflow_version', sa.Integer, nullable=False),
        sa.Column('is_sandbox', sa.Boolean, nullable=False),
        sa.Column('status', sa.String(16), nullable=False),
        sa.Column('current_step_index', sa.Integer, nullable=False),
        sa.Column('step_count', sa.Integer, nullable=False),
        sa.Column('input', JsonType),
        sa.Column('output', JsonType),
        sa.Column('error', sa.Text),
        sa.Column('failed_step', sa.String(100)),
        sa.Column('task_id', sa.String(36)),
        sa.Column('total_tokens', sa.Integer, nullable=False),
        sa.Column('cost', Money()),
        sa.Column('duration_ms', sa.Integer),
        sa.Column('created_at', UtcDateTime(), nullable=False),
        sa.Column('claimed_at', UtcDateTime()),
        sa.Column('started_at', UtcDateTime(), nullable=False),
        sa.Column('completed_at', UtcDateTime()),
    )
    op.create_index('ix_workflow_runs_key', 'workflow_runs', ['workflow_key', 'created_at'])
    op.create_index('ix_workflow_runs_workflow', 'workflow_runs', ['workflow_id'])
    op.create_table(
        'workflow_run_steps',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('run_id', sa.String(36), nullable=False),
        sa.Column('position', sa.Integer, nullable=False),
        sa.Column('name', sa.String(100), nullable=False),
        sa.Column('agent', sa.String(255), nullable=False),
        sa.Column('status', sa.String(16), nullable=False),
        sa.Column('conversation_id', sa.String(36)),
        sa.Column('agent_run_id', sa.String(64)),
        sa.Column('message', sa.Text),
        sa.Column('output', JsonType),
        sa.Column('error', sa.Text),
        sa.Column('total_tokens', sa.Integer, nullable=False),
        sa.Column('cost', Money()),
        sa.Column('duration_ms', sa.Integer),
        sa.Column('started_at', UtcDateTime(), nullable=False),
        sa.Column('completed_at', UtcDateTime()),
    )
    op.create_index('ix_workflow_run_steps_run', 'workflow_run_steps', ['run_id', 'position'], unique=True)


def downgrade() -> None:
    op.drop_index('ix_workflow_run_steps_run', 'workflow_run_steps')
    op.drop_table('workflow_run_steps')
    op.drop_index('ix_workflow_runs_workflow', 'workflow_runs')
    op.drop_index('ix_workflow_runs_key', 'workflow_runs')
    op.drop_table('workflow_runs')
    op.drop_table('workflow_versions')
    op.drop_table('workflows')
