"""An eval run may run with a registry preset instead of a model, and says which version of a
configured agent it ran.

- `eval_runs.preset` (text, null): the preset key whose model and model settings the cases ran
  with (`evals/execute.py`).
- `eval_runs.agent_version` (integer, null): the configured agent's version when the run started;
  null for a code agent.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0021'
down_revision = '0020'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('eval_runs', sa.Column('preset', sa.String(100)))
    op.add_column('eval_runs', sa.Column('agent_version', sa.Integer()))


def downgrade() -> None:
    op.drop_column('eval_runs', 'agent_version')
    op.drop_column('eval_runs', 'preset')
