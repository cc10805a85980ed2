"""The ledger's running totals per scope, hour and day (`spend_buckets`), kept by triggers.

A spending limit's window was summed from every ledger row in it, at every model call: a tenant with
20,000 calls in the month made each of its calls read 20,000 rows per limit. Now each ledger row's
cost is also added to its tenant's, user's, agent's and preset's UTC hour and UTC day, by the
database itself (a trigger on `llm_calls`, so every writer, every process and a hand edit keep them
right); a window is summed from whole days, whole hours and, at most at its two ends, the ledger
rows of a part of an hour (`accounting/buckets.py`). The existing ledger is summed into them here.

A later migration that rebuilds `llm_calls` on SQLite (batch mode copies the table) must create the
triggers again: `create_triggers` below.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from synapse_agents.store.schema import Money, UtcDateTime

revision = '0018'
down_revision = '0017'
branch_labels = None
depends_on = None

SCOPES = (('tenant', 'tenant'), ('user', '"user"'), ('agent', 'agent_key'), ('preset', 'preset'))
"""A limit's scope and the ledger column that names it."""


def upgrade() -> None:
    op.create_table(
        'spend_buckets',
        sa.Column('scope', sa.String(16), nullable=False),
        sa.Column('scope_id', sa.String(511), nullable=False),
        sa.Column('span', sa.String(1), nullable=False),
        sa.Column('start', UtcDateTime(), nullable=False),
        sa.Column('currency', sa.String(8), nullable=False),
        sa.Column('amount', Money(), nullable=False),
        sa.PrimaryKeyConstraint('scope', 'scope_id', 'span', 'start', 'currency'),
    )
    create_triggers()
    dialect = op.get_bind().dialect.name
    parts = ' UNION ALL '.join(
        f"SELECT '{scope}' AS scope, {column} AS scope_id, '{span}' AS span, {_start(dialect, span, 'created_at')}"
        f" AS start, coalesce(currency, '') AS currency, cost FROM llm_calls"
        f' WHERE cost IS NOT NULL AND {column} IS NOT NULL'
        for scope, column in SCOPES
        for span in ('h', 'd')
    )
    op.execute(
        'INSERT INTO spend_buckets (scope, scope_id, span, start, currency, amount) '
        f'SELECT scope, scope_id, span, start, currency, sum(cost) FROM ({parts}) AS rows '
        'GROUP BY scope, scope_id, span, start, currency'
    )


def downgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        op.execute('DROP TRIGGER IF EXISTS spend_buckets_ledger ON llm_calls')
        op.execute('DROP FUNCTION IF EXISTS spend_buckets_ledger()')
    else:
        for name in ('spend_buckets_insert', 'spend_buckets_update', 'spend_buckets_delete'):
            op.execute(f'DROP TRIGGER IF EXISTS {name}')
    op.drop_table('spend_buckets')


def create_triggers() -> None:
    """The triggers that add each ledger row's cost to its buckets (and move or remove it)."""
    if op.get_bind().dialect.name == 'postgresql':
        op.execute(
            'CREATE FUNCTION spend_buckets_ledger() RETURNS trigger LANGUAGE plpgsql AS $$\n'
            'BEGIN\n'
            "  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.cost IS NOT NULL THEN\n"
            f'    {_upsert("postgresql", "OLD", "-")};\n'
            '  END IF;\n'
            "  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.cost IS NOT NULL THEN\n"
            f'    {_upsert("postgresql", "NEW", "")};\n'
            '  END IF;\n'
            '  RETURN NULL;\n'
            'END $$'
        )
        op.execute(
            'CREATE TRIGGER spend_buckets_ledger AFTER INSERT OR UPDATE OR DELETE ON llm_calls '
            'FOR EACH ROW EXECUTE FUNCTION spend_buckets_ledger()'
        )
        return
    watched = 'cost, currency, created_at, tenant, "user", agent_key, preset'
    op.execute(
        'CREATE TRIGGER spend_buckets_insert AFTER INSERT ON llm_calls WHEN NEW.cost IS NOT NULL '
        f'BEGIN {_upsert("sqlite", "NEW", "")}; END'
    )
    op.execute(
        f'CREATE TRIGGER spend_buckets_update AFTER UPDATE OF {watched} ON llm_calls '
        f'BEGIN {_upsert("sqlite", "OLD", "-")}; {_upsert("sqlite", "NEW", "")}; END'
    )
    op.execute(
        'CREATE TRIGGER spend_buckets_delete AFTER DELETE ON llm_calls WHEN OLD.cost IS NOT NULL '
        f'BEGIN {_upsert("sqlite", "OLD", "-")}; END'
    )


def _upsert(dialect: str, row: str, sign: str) -> str:
    """Add `sign``row`.cost to the row's buckets: its scopes that are set, by its hour and its day."""
    scopes = ' UNION ALL '.join(
        f"SELECT '{scope}' AS scope, {row}.{column} AS scope_id" for scope, column in SCOPES
    )
    spans = ' UNION ALL '.join(
        f"SELECT '{span}' AS span, {_start(dialect, span, f'{row}.created_at')} AS start"
        for span in ('h', 'd')
    )
    # SQLite needs a WHERE before ON CONFLICT in an INSERT ... SELECT (else it reads ON as a join's).
    return (
        'INSERT INTO spend_buckets (scope, scope_id, span, start, currency, amount) '
        f"SELECT s.scope, s.scope_id, p.span, p.start, coalesce({row}.currency, ''), {sign}{row}.cost "
        f'FROM ({scopes}) AS s, ({spans}) AS p '
        f'WHERE s.scope_id IS NOT NULL AND {row}.cost IS NOT NULL '
        'ON CONFLICT (scope, scope_id, span, start, currency) '
        'DO UPDATE SET amount = spend_buckets.amount + excluded.amount'
    )


def _start(dialect: str, span: str, moment: str) -> str:
    """The start of the UTC hour or day holding `moment`, as the column stores it."""
    unit = 'hour' if span == 'h' else 'day'
    if dialect == 'postgresql':
        return f"(date_trunc('{unit}', {moment} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')"
    # SQLite keeps a UTC timestamp as 'YYYY-MM-DD HH:MM:SS.ffffff' text.
    shape = '%Y-%m-%d %H:00:00.000000' if span == 'h' else '%Y-%m-%d 00:00:00.000000'
    return f"strftime('{shape}', {moment})"
