"""Alembic environment: runs on the connection `store.migrate` hands over."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from synapse_agents.store.migrate import VERSION_TABLE
from synapse_agents.store.schema import Base
from synapse_agents.store.search_index import include_name

config = context.config


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        version_table=VERSION_TABLE,
        render_as_batch=connection.dialect.name == 'sqlite',
        compare_type=True,
        include_name=include_name,
    )
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get('connection')
if connection is None:
    raise RuntimeError('run Synapse migrations through synapse_agents.store.migrate (synapse db upgrade)')
_run(connection)
