"""Conversations, messages, tool invocations and the LLM call ledger.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from synapse_agents.store.schema import JsonType, UtcDateTime

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'conversations',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('agent_key', sa.String(255), nullable=False),
        sa.Column('agent_name', sa.String(255), nullable=False),
        sa.Column('title', sa.String(200), nullable=False),
        sa.Column('origin', sa.String(20), nullable=False),
        sa.Column('tenant_type', sa.String(255)),
        sa.Column('tenant_id', sa.String(255)),
        sa.Column('actor_type', sa.String(255)),
        sa.Column('actor_id', sa.String(255)),
        sa.Column('subject_type', sa.String(255)),
        sa.Column('subject_id', sa.String(255)),
        sa.Column('has_error', sa.Boolean, nullable=False),
        sa.Column('message_count', sa.Integer, nullable=False),
        sa.Column('tool_count', sa.Integer, nullable=False),
        sa.Column('input_tokens', sa.BigInteger, nullable=False),
        sa.Column('output_tokens', sa.BigInteger, nullable=False),
        sa.Column('cost', sa.Double),
        sa.Column('created_at', UtcDateTime(), nullable=False),
        sa.Column('updated_at', UtcDateTime(), nullable=False),
    )
    op.create_index('ix_conversations_updated_at', 'conversations', ['updated_at'])
    op.create_index('ix_conversations_created_at', 'conversations', ['created_at'])
    op.create_index('ix_conversations_agent_updated', 'conversations', ['agent_key', 'updated_at'])
    op.create_index('ix_conversations_error_updated', 'conversations', ['has_error', 'updated_at'])

    op.create_table(
        'messages',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('conversation_id', sa.String(36), nullable=False),
        sa.Column('run_id', sa.String(36)),
        sa.Column('role', sa.String(16), nullable=False),
        sa.Column('status', sa.String(16), nullable=False),
        sa.Column('content', sa.Text, nullable=False),
        sa.Column('attachments', JsonType, nullable=False),
        sa.Column('model_messages', JsonType),
        sa.Column('usage', JsonType),
        sa.Column('input_tokens', sa.Integer),
        sa.Column('output_tokens', sa.Integer),
        sa.Column('cost', sa.Double),
        sa.Column('duration_ms', sa.Integer),
        sa.Column('meta', JsonType, nullable=False),
        sa.Column('details', JsonType, nullable=False),
        sa.Column('created_at', UtcDateTime(), nullable=False),
    )
    op.create_index('ix_messages_conversation_id', 'messages', ['conversation_id', 'id'])
    op.create_index('ix_messages_status', 'messages', ['status'])

    op.create_table(
        'tool_invocations',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('conversation_id', sa.String(36), nullable=False),
        sa.Column('message_id', sa.String(36)),
        sa.Column('run_id', sa.String(36)),
        sa.Column('tool_call_id', sa.String(255), nullable=False),
        sa.Column('kind', sa.String(16), nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('arguments', JsonType),
        sa.Column('result', JsonType),
        sa.Column('status', sa.String(16), nullable=False),
        sa.Column('provider_status', sa.String(64)),
        sa.Column('error', sa.Text),
        sa.Column('duration_ms', sa.Integer),
        sa.Column('started_at', UtcDateTime(), nullable=False),
        sa.Column('finished_at', UtcDateTime()),
    )
    op.create_index('ix_tool_invocations_conversation', 'tool_invocations', ['conversation_id', 'started_at'])
    op.create_index('ix_tool_invocations_name_conversation', 'tool_invocations', ['name', 'conversation_id'])
    op.create_index('ix_tool_invocations_run_call', 'tool_invocations', ['run_id', 'tool_call_id'])
    op.create_index('ix_tool_invocations_status', 'tool_invocations', ['status'])

    op.create_table(
        'llm_calls',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('run_id', sa.String(36)),
        sa.Column('parent_run_id', sa.String(36)),
        sa.Column('conversation_id', sa.String(36)),
        sa.Column('module', sa.String(32), nullable=False),
        sa.Column('agent_key', sa.String(255)),
        sa.Column('provider', sa.String(64)),
        sa.Column('model', sa.String(255)),
        sa.Column('input_tokens', sa.Integer, nullable=False),
        sa.Column('output_tokens', sa.Integer, nullable=False),
        sa.Column('cache_read_tokens', sa.Integer, nullable=False),
        sa.Column('cache_write_tokens', sa.Integer, nullable=False),
        sa.Column('reasoning_tokens', sa.Integer, nullable=False),
        sa.Column('cost', sa.Double),
        sa.Column('currency', sa.String(8)),
        sa.Column('price_source', sa.String(64)),
        sa.Column('duration_ms', sa.Integer),
        sa.Column('user', sa.String(255)),
        sa.Column('created_at', UtcDateTime(), nullable=False),
    )
    op.create_index('ix_llm_calls_conversation', 'llm_calls', ['conversation_id'])
    op.create_index('ix_llm_calls_created_at', 'llm_calls', ['created_at'])
    op.create_index('ix_llm_calls_agent_created', 'llm_calls', ['agent_key', 'created_at'])
    op.create_index('ix_llm_calls_run', 'llm_calls', ['run_id'])


def downgrade() -> None:
    op.drop_table('llm_calls')
    op.drop_table('tool_invocations')
    op.drop_table('messages')
    op.drop_table('conversations')
