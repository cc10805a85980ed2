"""The ledger names tenant and preset and keeps a reference-currency cost; spending limits.

- `llm_calls`: `tenant`, `preset`, `cost_reference`, `reference_currency`, `price_version`, and
  indexes for what limits and the spend report sum by (tenant, user, preset over time).
- `spending_limits`, `spending_reservations`, `spending_overruns` (see `accounting.tables`).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from synapse_agents.store.schema import Money, UtcDateTime

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None

_LEDGER_INDEXES = {
    'ix_llm_calls_tenant_created': ('tenant', 'created_at'),
    'ix_llm_calls_user_created': ('user', 'created_at'),
    'ix_llm_calls_preset_created': ('preset', 'created_at'),
}


def upgrade() -> None:
    op.add_column('llm_calls', sa.Column('tenant', sa.String(255)))
    op.add_column('llm_calls', sa.Column('preset', sa.String(100)))
    op.add_column('llm_calls', sa.Column('cost_reference', Money()))
    op.add_column('llm_calls', sa.Column('reference_currency', sa.String(8)))
    op.add_column('llm_calls', sa.Column('price_version', sa.String(64)))
    for name, columns in _LEDGER_INDEXES.items():
        op.create_index(name, 'llm_calls', list(columns))
    op.create_table(
        'spending_limits',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('scope', sa.String(16), nullable=False),
        sa.Column('scope_id', sa.String(255), nullable=False),
        sa.Column('period', sa.String(16), nullable=False),
        sa.Column('amount', Money(), nullable=False),
        sa.Column('currency', sa.String(8), nullable=False),
        sa.Column('timezone', sa.String(64), nullable=False),
        sa.Column('enabled', sa.Boolean, nullable=False),
        sa.Column('created_at', UtcDateTime(), nullable=False),
        sa.Column('updated_at', UtcDateTime(), nullable=False),
    )
    op.create_index('ix_spending_limits_scope', 'spending_limits', ['scope', 'scope_id'])
    op.create_table(
        'spending_reservations',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('run_id', sa.String(36)),
        sa.Column('tenant', sa.String(255)),
        sa.Column('user', sa.String(255)),
        sa.Column('agent_key', sa.String(255)),
        sa.Column('preset', sa.String(100)),
        sa.Column('amount', Money(), nullable=False),
        sa.Column('currency', sa.String(8), nullable=False),
        sa.Column('created_at', UtcDateTime(), nullable=False),
        sa.Column('expires_at', UtcDateTime(), nullable=False),
    )
    op.create_index('ix_spending_reservations_expires', 'spending_reservations', ['expires_at'])
    op.create_table(
        'spending_overruns',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('limit_id', sa.String(36)),
        sa.Column('user', sa.String(255)),
        sa.Column('tenant', sa.String(255)),
        sa.Column('scope', sa.String(16), nullable=False),
        sa.Column('scope_id', sa.String(255), nullable=False),
        sa.Column('period', sa.String(16), nullable=False),
        sa.Column('limit_amount', Money(), nullable=False),
        sa.Column('consumed', Money(), nullable=False),
        sa.Column('estimated', Money(), nullable=False),
        sa.Column('overrun', Money(), nullable=False),
        sa.Column('currency', sa.String(8), nullable=False),
        sa.Column('agent_key', sa.String(255)),
        sa.Column('conversation_id', sa.String(36)),
        sa.Column('run_id', sa.String(36)),
        sa.Column('created_at', UtcDateTime(), nullable=False),
    )
    op.create_index('ix_spending_overruns_created', 'spending_overruns', ['created_at'])


def downgrade() -> None:
    op.drop_table('spending_overruns')
    op.drop_table('spending_reservations')
    op.drop_table('spending_limits')
    for name in _LEDGER_INDEXES:
        op.drop_index(name, 'llm_calls')
    for column in ('price_version', 'reference_currency', 'cost_reference', 'preset', 'tenant'):
        op.drop_column('llm_calls', column)
