"""Scope labels in the ledger and the spending tables hold a whole `type:id` (up to 511 characters).

A scope's type and id are up to 255 characters each, so their `type:id` label is up to 511; the
ledger's and the spending tables' `tenant`, `user` and `scope_id` held 255, and PostgreSQL refused
the rows of a turn whose tenant or actor was longer.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0017'
down_revision = '0016'
branch_labels = None
depends_on = None

COLUMNS = {
    'spending_limits': ('scope_id',),
    'spending_reservations': ('tenant', 'user'),
    'spending_overruns': ('tenant', 'user', 'scope_id'),
    'llm_calls': ('tenant', 'user'),
}


def upgrade() -> None:
    _resize(255, 511)


def downgrade() -> None:
    _resize(511, 255)


def _resize(before: int, after: int) -> None:
    # Batch mode: PostgreSQL alters the columns; SQLite (which does not enforce the length, but keeps
    # the declared type) copies each table once.
    for table, columns in COLUMNS.items():
        with op.batch_alter_table(table) as batch:
            for column in columns:
                batch.alter_column(column, type_=sa.String(after), existing_type=sa.String(before))
