"""Agents that run themselves: standing agents, the events they listen to, tasks and task logs.

See `synapse_agents.tasks.tables`.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from synapse_agents.store.schema import JsonType, Money, UtcDateTime

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'standing_agents',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('name', sa.String(100), nullable=False),
        sa.Column('agent_key', sa.String(255), nullable=False),
        sa.Column('instruction', sa.Text, nullable=False),
        sa.Column('tenant_type', sa.String(255)),
        sa.Column('tenant_id', sa.String(255)),
        sa.Column('subject_type', sa.String(255)),
        sa.Column('subject_id', sa.String(255)),
        sa.Column('cron', sa.String(100)),
        sa.Column('timezone', sa.String(64), nullable=False),
        sa.Column('events', JsonType, nullable=False),
        sa.Column('debounce_seconds', sa.Integer, nullable=False),
        sa.Column('enabled', sa.Boolean, nullable=False),
        sa.Column('next_fire_at', UtcDateTime()),
        sa.Column('last_fired_at', UtcDateTime()),
        sa.Column('created_at', UtcDateTime(), nullable=False),
        sa.Column('updated_at', UtcDateTime(), nullable=False),
    )
    op.create_index('ix_standing_agents_due', 'standing_agents', ['enabled', 'next_fire_at'])
    op.create_table(
        'standing_agent_events',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('standing_agent_id', sa.String(36), nullable=False),
        sa.Column('event', sa.String(100), nullable=False),
        sa.Column('tenant_key', sa.String(512), nullable=False),
    )
    op.create_index('ix_standing_agent_events_event', 'standing_agent_events', ['event', 'tenant_key'])
    op.create_index('ix_standing_agent_events_agent', 'standing_agent_events', ['standing_agent_id'])
    op.create_table(
        'agent_tasks',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('standing_agent_id', sa.String(36)),
        sa.Column('agent_key', sa.String(255), nullable=False),
        sa.Column('instruction', sa.Text, nullable=False),
        sa.Column('trigger', sa.String(16), nullable=False),
        sa.Column('event', sa.String(100)),
        sa.Column('context', JsonType),
        sa.Column('fires', sa.Integer, nullable=False),
        sa.Column('slot_at', UtcDateTime()),
        sa.Column('tenant_type', sa.String(255)),
        sa.Column('tenant_id', sa.String(255)),
        sa.Column('subject_type', sa.String(255)),
        sa.Column('subject_id', sa.String(255)),
        sa.Column('subject_key', sa.String(512), nullable=False),
        sa.Column('status', sa.String(16), nullable=False),
        sa.Column('not_before', UtcDateTime(), nullable=False),
        sa.Column('worker', sa.String(255)),
        sa.Column('cancel_requested', sa.Boolean, nullable=False),
        sa.Column('queued_at', UtcDateTime(), nullable=False),
        sa.Column('started_at', UtcDateTime()),
        sa.Column('heartbeat_at', UtcDateTime()),
        sa.Column('finished_at', UtcDateTime()),
        sa.Column('duration_ms', sa.Integer),
        sa.Column('input_tokens', sa.BigInteger, nullable=False),
        sa.Column('output_tokens', sa.BigInteger, nullable=False),
        sa.Column('cost', Money()),
        sa.Column('output', JsonType),
        sa.Column('error', sa.Text),
        sa.Column('conversation_id', sa.String(36)),
        sa.Column('run_id', sa.String(36)),
        sa.Column('created_at', UtcDateTime(), nullable=False),
    )
    op.create_index('ix_agent_tasks_standing', 'agent_tasks', ['standing_agent_id', 'id'])
    op.create_index('ix_agent_tasks_status', 'agent_tasks', ['status', 'not_before'])
    op.create_index(
        'ix_agent_tasks_debounce', 'agent_tasks', ['standing_agent_id', 'event', 'subject_key', 'status']
    )
    op.create_index('ix_agent_tasks_created', 'agent_tasks', ['created_at'])
    op.create_table(
        'agent_logs',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('task_id', sa.String(36), nullable=False),
        sa.Column('seq', sa.Integer, nullable=False),
        sa.Column('kind', sa.String(32), nullable=False),
        sa.Column('message', sa.Text, nullable=False),
        sa.Column('data', JsonType),
        sa.Column('created_at', UtcDateTime(), nullable=False),
    )
    op.create_index('ix_agent_logs_task', 'agent_logs', ['task_id', 'seq'])


def downgrade() -> None:
    op.drop_table('agent_logs')
    op.drop_table('agent_tasks')
    op.drop_table('standing_agent_events')
    op.drop_table('standing_agents')
