"""Applying Alembic migrations from inside the package, without an alembic.ini."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

# Synapse keeps its own version table so it can share a PostgreSQL database with an app that
# runs Alembic itself.
VERSION_TABLE = 'synapse_alembic_version'
MIGRATIONS_DIR = Path(__file__).with_name('migrations')


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
        config.attributes['connection'] = connection
        command.upgrade(config, revision)
    current = current_revision(engine)
    assert current is not None
    return current


def downgrade(engine: Engine, revision: str) -> None:
    """Step the database back to `revision` (`base` removes every Synapse table)."""
    config = _config()
    with engine.begin() as connection:
        config.attributes['connection'] = connection
        command.downgrade(config, revision)
