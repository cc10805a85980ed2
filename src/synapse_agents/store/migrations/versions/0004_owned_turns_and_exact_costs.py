"""In-flight work has an owner; a failed turn is `failed`; costs are exact decimals.

- `store_instances`: one row per running Synapse process (id, pid, host, pid_scope, started_at,
  heartbeat_at); `messages.owner` and `tool_invocations.owner` name the process running a turn, so
  a sweep interrupts only the turns of processes that are gone (see `synapse_agents.store.instances`).
- An assistant answer stored `interrupted` and followed by its turn's error card was a failure: it
  becomes `failed` (a turn cut off has no error card).
- `conversations.cost`, `messages.cost`, `llm_calls.cost`: `NUMERIC(20, 10)` on PostgreSQL; on
  SQLite, which has no decimal type, an integer count of 10⁻¹⁰ USD units (`store.schema.Money`),
  so that sums are exact. The column keeps its name and position in the API; on SQLite it is
  swapped in place (add, copy, drop, rename), never by copying the table, whose rowids the search
  index refers to.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from synapse_agents.store.schema import UtcDateTime

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None

_COST_TABLES = ('conversations', 'messages', 'llm_calls')
_UNITS = 10**10
"""SQLite cost units per USD (`store.schema.COST_SCALE` = 10 places)."""

# The next row of the conversation after an answer, notices aside, is its turn's error card.
_FAILED = """
UPDATE messages SET status = 'failed'
WHERE role = 'assistant' AND status = 'interrupted' AND (
    SELECT n.role FROM messages n
    WHERE n.conversation_id = messages.conversation_id AND n.id > messages.id AND n.role != 'notice'
    ORDER BY n.id LIMIT 1
) = 'error'
"""


def _swap_sqlite_column(table: str, kind: str, value: str) -> None:
    """Replace `table.cost` by a column of type `kind` holding `value` (an expression of `cost`)."""
    op.execute(f'ALTER TABLE {table} ADD COLUMN cost_new {kind}')
    op.execute(f'UPDATE {table} SET cost_new = {value} WHERE cost IS NOT NULL')
    op.execute(f'ALTER TABLE {table} DROP COLUMN cost')
    op.execute(f'ALTER TABLE {table} RENAME COLUMN cost_new TO cost')


def upgrade() -> None:
    op.create_table(
        'store_instances',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('pid', sa.Integer, nullable=False),
        sa.Column('host', sa.String(255), nullable=False),
        sa.Column('pid_scope', sa.String(255)),
        sa.Column('started_at', UtcDateTime(), nullable=False),
        sa.Column('heartbeat_at', UtcDateTime(), nullable=False),
    )
    op.add_column('messages', sa.Column('owner', sa.String(36)))
    op.add_column('tool_invocations', sa.Column('owner', sa.String(36)))
    op.execute(_FAILED)
    if op.get_bind().dialect.name == 'sqlite':
        for table in _COST_TABLES:
            _swap_sqlite_column(table, 'BIGINT', f'CAST(ROUND(cost * {_UNITS}) AS INTEGER)')
    else:
        for table in _COST_TABLES:
            op.execute(
                f'ALTER TABLE {table} ALTER COLUMN cost TYPE NUMERIC(20, 10) USING round(cost::numeric, 10)'
            )


def downgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        for table in _COST_TABLES:
            _swap_sqlite_column(table, 'FLOAT', f'CAST(cost AS REAL) / {_UNITS}')
    else:
        for table in _COST_TABLES:
            op.execute(f'ALTER TABLE {table} ALTER COLUMN cost TYPE DOUBLE PRECISION')
    op.execute("UPDATE messages SET status = 'interrupted' WHERE status = 'failed'")
    op.drop_column('tool_invocations', 'owner')
    op.drop_column('messages', 'owner')
    op.drop_table('store_instances')
