"""Applying Alembic migrations from inside the package, without an alembic.ini."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, text

# Synapse keeps its own version table so it can share a PostgreSQL database with an app that
# runs Alembic itself.
VERSION_TABLE = 'synapse_alembic_version'
MIGRATIONS_DIR = Path(__file__).with_name('migrations')
MIGRATION_LOCK = 0x53594E415053  # 'SYNAPS'
"""The PostgreSQL advisory lock a migration holds: upgrades of one database take turns."""


def _config() -> Config:
    config = Config()
    config.set_main_option('script_location', str(MIGRATIONS_DIR))
    return config


def head_revision() -> str:
    """The newest revision the installed package knows."""
    head = ScriptDirectory.from_config(_config()).get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at, or None when Synapse's tables were never created."""
    with engine.connect() as connection:
        return MigrationContext.configure(
            connection, opts={'version_table': VERSION_TABLE}
        ).get_current_revision()


def upgrade(engine: Engine, revision: str = 'head') -> str:
    """Bring the database to `revision` (the newest by default); returns the revision reached."""
    config = _config()
    with engine.begin() as connection:
        _take_turn(connection)
        config.attributes['connection'] = connection
        command.upgrade(config, revision)
    current = current_revision(engine)
    assert current is not None
    return current


def downgrade(engine: Engine, revision: str) -> None:
    """Step the database back to `revision` (`base` removes every Synapse table)."""
    config = _config()
    with engine.begin() as connection:
        _take_turn(connection)
        config.attributes['connection'] = connection
        command.downgrade(config, revision)


def _take_turn(connection: Connection) -> None:
    """On PostgreSQL, wait for any other migration of this database to commit before reading the
    revision: a second `synapse db upgrade` started at the same moment then finds the first's work
    done instead of failing on the tables it is creating. The lock ends with the transaction.
    (An embedded SQLite file is migrated by the process that opens it.)"""
    if connection.dialect.name == 'postgresql':
        connection.execute(text('SELECT pg_advisory_xact_lock(:key)'), {'key': MIGRATION_LOCK})
