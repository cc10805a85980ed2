"""A conversation remembers the deps values its agent's deps schema asked for.

- `conversations.deps_values` (JSON, null): the values the playground's deps form sent last
  (`conversations/deps_values.py`).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-15
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from synapse_agents.store.schema import JsonType

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('conversations', sa.Column('deps_values', JsonType))


def downgrade() -> None:
    op.drop_column('conversations', 'deps_values')
