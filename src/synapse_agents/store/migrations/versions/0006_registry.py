"""The registry: providers (secrets encrypted), models and prices, presets, tones, settings, agents.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

from synapse_agents.store.schema import Money, UtcDateTime

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None

_JSON = sa.JSON().with_variant(JSONB(), 'postgresql')


def _id() -> sa.Column[str]:
    return sa.Column('id', sa.String(36), primary_key=True)


def _times() -> list[sa.Column[object]]:
    return [
        sa.Column('created_at', UtcDateTime(), nullable=False),
        sa.Column('updated_at', UtcDateTime(), nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        'registry_providers',
        _id(),
        sa.Column('key', sa.String(100), nullable=False, unique=True),
        sa.Column('kind', sa.String(32), nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('base_url', sa.String(2000)),
        sa.Column('secret', sa.Text),
        sa.Column('secret_last4', sa.String(8)),
        sa.Column('options', _JSON, nullable=False),
        sa.Column('enabled', sa.Boolean, nullable=False),
        *_times(),
    )
    op.create_table(
        'registry_models',
        _id(),
        sa.Column('key', sa.String(255), nullable=False, unique=True),
        sa.Column('provider_key', sa.String(100), nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('label', sa.String(255), nullable=False),
        sa.Column('context_window', sa.Integer),
        sa.Column('max_output_tokens', sa.Integer),
        sa.Column('meta', _JSON, nullable=False),
        sa.Column('enabled', sa.Boolean, nullable=False),
        *_times(),
    )
    op.create_index('ix_registry_models_provider_name', 'registry_models', ['provider_key', 'name'])
    op.create_table(
        'registry_model_prices',
        _id(),
        sa.Column('model_key', sa.String(255), nullable=False),
        sa.Column('input_per_mtok', Money(), nullable=False),
        sa.Column('output_per_mtok', Money(), nullable=False),
        sa.Column('cache_read_per_mtok', Money()),
        sa.Column('cache_write_per_mtok', Money()),
        sa.Column('currency', sa.String(8), nullable=False),
        sa.Column('valid_from', UtcDateTime(), nullable=False),
        sa.Column('created_at', UtcDateTime(), nullable=False),
        sa.UniqueConstraint('model_key', 'valid_from', name='uq_registry_model_prices_from'),
    )
    op.create_index('ix_registry_model_prices_model', 'registry_model_prices', ['model_key', 'valid_from'])
    op.create_table(
        'registry_presets',
        _id(),
        sa.Column('key', sa.String(100), nullable=False, unique=True),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('model', sa.String(255), nullable=False),
        sa.Column('temperature', sa.Float),
        sa.Column('max_tokens', sa.Integer),
        sa.Column('top_p', sa.Float),
        sa.Column('streaming', sa.Boolean, nullable=False),
        sa.Column('timeout_s', sa.Float),
        sa.Column('provider_options', _JSON, nullable=False),
        sa.Column('is_sandbox', sa.Boolean, nullable=False),
        *_times(),
    )
    op.create_table(
        'registry_tones',
        _id(),
        sa.Column('key', sa.String(100), nullable=False, unique=True),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('emoji', sa.String(16), nullable=False),
        sa.Column('instructions', sa.Text, nullable=False),
        *_times(),
    )
    op.create_table(
        'registry_settings',
        sa.Column('key', sa.String(100), primary_key=True),
        sa.Column('value', _JSON),
        sa.Column('updated_at', UtcDateTime(), nullable=False),
    )
    op.create_table(
        'agent_configs',
        _id(),
        sa.Column('key', sa.String(100), nullable=False, unique=True),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('description', sa.Text, nullable=False),
        sa.Column('instructions', sa.Text, nullable=False),
        sa.Column('preset_key', sa.String(100)),
        sa.Column('tone_key', sa.String(100)),
        sa.Column('tools', _JSON, nullable=False),
        sa.Column('rag_sources', _JSON, nullable=False),
        sa.Column('access', _JSON, nullable=False),
        sa.Column('spec', _JSON, nullable=False),
        sa.Column('version', sa.Integer, nullable=False),
        sa.Column('is_sandbox', sa.Boolean, nullable=False),
        sa.Column('enabled', sa.Boolean, nullable=False),
        *_times(),
    )
    op.create_table(
        'agent_config_versions',
        _id(),
        sa.Column('agent_key', sa.String(100), nullable=False),
        sa.Column('version', sa.Integer, nullable=False),
        sa.Column('definition', _JSON, nullable=False),
        sa.Column('created_at', UtcDateTime(), nullable=False),
        sa.UniqueConstraint('agent_key', 'version', name='uq_agent_config_versions'),
    )


def downgrade() -> None:
    for table in (
        'agent_config_versions',
        'agent_configs',
        'registry_settings',
        'registry_tones',
        'registry_presets',
        'registry_model_prices',
        'registry_models',
        'registry_providers',
    ):
        op.drop_table(table)
