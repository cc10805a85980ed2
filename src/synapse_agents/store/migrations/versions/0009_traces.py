"""Traces of nested runs: agent runs, debug logs (one per model call) and tool calls, and the run a
task was queued from.

See `synapse_agents.traces.tables`.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from synapse_agents.store.schema import JsonType, Money, UtcDateTime

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'trace_runs',
        sa.Column('agent_run_id', sa.String(64), primary_key=True),
        sa.Column('parent_run_id', sa.String(64)),
        sa.Column('root_run_id', sa.String(64), nullable=False),
        sa.Column('depth', sa.Integer, nullable=False),
        sa.Column('is_root', sa.Boolean, nullable=False),
        sa.Column('origin', sa.String(20), nullable=False),
        sa.Column('module', sa.String(100), nullable=False),
        sa.Column('agent_name', sa.String(255)),
        sa.Column('agent_key', sa.String(255)),
        sa.Column('workflow_run_id', sa.String(36)),
        sa.Column('conversation_id', sa.String(36)),
        sa.Column('message_id', sa.String(36)),
        sa.Column('trace_id', sa.String(32), nullable=False),
        sa.Column('span_id', sa.String(16), nullable=False),
        sa.Column('parent_span_id', sa.String(16)),
        sa.Column('model', sa.String(255)),
        sa.Column('status', sa.String(16), nullable=False),
        sa.Column('error', sa.Text),
        sa.Column('input_tokens', sa.BigInteger, nullable=False),
        sa.Column('output_tokens', sa.BigInteger, nullable=False),
        sa.Column('cost', Money()),
        sa.Column('model_calls', sa.Integer, nullable=False),
        sa.Column('tool_calls', sa.Integer, nullable=False),
        sa.Column('output', JsonType),
        sa.Column('started_at', UtcDateTime(), nullable=False),
        sa.Column('finished_at', UtcDateTime(), nullable=False),
        sa.Column('duration_ms', sa.Integer, nullable=False),
    )
    op.create_index('ix_trace_runs_roots', 'trace_runs', ['is_root', 'started_at', 'agent_run_id'])
    op.create_index('ix_trace_runs_root', 'trace_runs', ['root_run_id'])
    op.create_index(
        'ix_trace_runs_agent', 'trace_runs', ['agent_key', 'is_root', 'started_at', 'agent_run_id']
    )
    op.create_index('ix_trace_runs_conversation', 'trace_runs', ['conversation_id'])
    op.create_index('ix_trace_runs_message', 'trace_runs', ['message_id'])
    op.create_table(
        'debug_logs',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('agent_run_id', sa.String(64), nullable=False),
        sa.Column('parent_run_id', sa.String(64)),
        sa.Column('root_run_id', sa.String(64), nullable=False),
        sa.Column('depth', sa.Integer, nullable=False),
        sa.Column('origin', sa.String(20), nullable=False),
        sa.Column('workflow_run_id', sa.String(36)),
        sa.Column('conversation_id', sa.String(36)),
        sa.Column('module', sa.String(100), nullable=False),
        sa.Column('action', sa.String(100), nullable=False),
        sa.Column('model', sa.String(255)),
        sa.Column('provider', sa.String(100)),
        sa.Column('input_tokens', sa.BigInteger, nullable=False),
        sa.Column('output_tokens', sa.BigInteger, nullable=False),
        sa.Column('total_tokens', sa.BigInteger, nullable=False),
        sa.Column('cost', Money()),
        sa.Column('finish_reason', sa.String(64)),
        sa.Column('error', sa.Text),
        sa.Column('span_id', sa.String(16), nullable=False),
        sa.Column('parent_span_id', sa.String(16)),
        sa.Column('data', sa.LargeBinary, nullable=False),
        sa.Column('data_bytes', sa.Integer, nullable=False),
        sa.Column('truncated', sa.Boolean, nullable=False),
        sa.Column('started_at', UtcDateTime(), nullable=False),
        sa.Column('duration_ms', sa.Integer, nullable=False),
        sa.Column('created_at', UtcDateTime(), nullable=False),
    )
    op.create_index('ix_debug_logs_root', 'debug_logs', ['root_run_id'])
    op.create_index('ix_debug_logs_run', 'debug_logs', ['agent_run_id'])
    op.create_index('ix_debug_logs_conversation', 'debug_logs', ['conversation_id'])
    op.create_index('ix_debug_logs_created', 'debug_logs', ['created_at'])
    op.create_table(
        'trace_tools',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('agent_run_id', sa.String(64), nullable=False),
        sa.Column('root_run_id', sa.String(64), nullable=False),
        sa.Column('conversation_id', sa.String(36)),
        sa.Column('tool_call_id', sa.String(255)),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('arguments', JsonType),
        sa.Column('result', JsonType),
        sa.Column('status', sa.String(16), nullable=False),
        sa.Column('error', sa.Text),
        sa.Column('span_id', sa.String(16), nullable=False),
        sa.Column('parent_span_id', sa.String(16)),
        sa.Column('started_at', UtcDateTime(), nullable=False),
        sa.Column('duration_ms', sa.Integer, nullable=False),
    )
    op.create_index('ix_trace_tools_root', 'trace_tools', ['root_run_id'])
    op.create_index('ix_trace_tools_conversation', 'trace_tools', ['conversation_id'])
    with op.batch_alter_table('agent_tasks') as batch:
        batch.add_column(sa.Column('trace_parent', JsonType))


def downgrade() -> None:
    with op.batch_alter_table('agent_tasks') as batch:
        batch.drop_column('trace_parent')
    op.drop_table('trace_tools')
    op.drop_table('debug_logs')
    op.drop_table('trace_runs')
