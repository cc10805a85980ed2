"""An eval run may run with a registry preset instead of a model.

- `eval_runs.preset` (text, null): the preset key whose model and model settings the cases ran
  with (`evals/execute.py`).

Revision ID: 0021
Revises: 0019
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0021'
down_revision = '0019'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('eval_runs', sa.Column('preset', sa.String(100)))


def downgrade() -> None:
    op.drop_column('eval_runs', 'preset')
