"""The test databases themselves (tests/fixtures/databases.py): empty, migrated, and healed."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from fixtures.databases import ReusedPostgres
from synapse_agents.conversations.tables import Conversation
from synapse_agents.store import Store, current_revision, head_revision
from synapse_agents.store.migrate import downgrade


def test_each_test_gets_an_empty_store_at_the_newest_revision(store: Store) -> None:
    assert current_revision(store.engine) == head_revision()
    assert set(store.counts().values()) == {0}


def test_the_sqlite_copy_is_the_tests_own(dialect: str, database_url: str, tmp_path: Path) -> None:
    if dialect == 'sqlite':
        assert database_url == f'sqlite:///{tmp_path / "home" / "synapse.db"}'


@pytest.mark.postgresql
def test_a_reset_empties_the_rows_and_rebuilds_a_schema_a_test_left_behind(
    empty_postgres_database: str,
) -> None:
    database = ReusedPostgres(empty_postgres_database)
    store = Store.open(database.url, Path('/nonexistent'))
    try:
        with store.write() as session:
            session.add(Conversation(agent_key='a'))
        assert store.counts()['conversations'] == 1
        database.reset()
        assert store.counts()['conversations'] == 0

        downgrade(store.engine, '0003')  # a migration test that failed before upgrading again
        database.reset()
        assert current_revision(store.engine) == head_revision()

        with store.engine.begin() as connection:
            connection.execute(text('ALTER TABLE llm_calls RENAME TO llm_calls_away'))
        database.reset()
        tables = set(inspect(store.engine).get_table_names())
        assert 'llm_calls' in tables and 'llm_calls_away' not in tables
        assert set(store.counts().values()) == {0}
    finally:
        store.close()
        database.close()
