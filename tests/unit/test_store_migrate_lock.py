"""Upgrades of one PostgreSQL database at the same moment, from processes of their own (as two
`synapse db upgrade` would be): one migrates, the others wait for it and then find nothing to do.
PostgreSQL only: the database several servers share, migrated by `synapse db upgrade`."""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import inspect

from synapse_agents.store import Store, upgrade
from synapse_agents.store.migrate import current_revision, head_revision

UPGRADES = 3


def upgrade_together(url: str, start: Any, answers: Any) -> None:
    """In a process of its own: wait for the others, then upgrade; what happened goes to `answers`."""
    store = Store.open(url, Path('/nonexistent'))
    try:
        start.wait(timeout=60)
        answers.put(('reached', upgrade(store.engine)))
    except BaseException as exc:
        answers.put(('failed', f'{type(exc).__name__}: {str(exc).splitlines()[0]}'))
    finally:
        store.close()


@pytest.mark.postgresql
def test_concurrent_upgrades_of_an_empty_database_wait_for_each_other(
    tmp_path: Path, empty_postgres_database: str
) -> None:
    spawn = multiprocessing.get_context('spawn')
    start = spawn.Barrier(UPGRADES)
    answers = spawn.Queue()
    processes = [
        spawn.Process(target=upgrade_together, args=(empty_postgres_database, start, answers))
        for _ in range(UPGRADES)
    ]
    for process in processes:
        process.start()
    try:
        found = sorted(answers.get(timeout=120) for _ in processes)
    finally:
        for process in processes:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()
    assert found == [('reached', head_revision())] * UPGRADES
    store = Store.open(empty_postgres_database, tmp_path)
    try:
        assert current_revision(store.engine) == head_revision()
        assert 'conversations' in inspect(store.engine).get_table_names()
        assert upgrade(store.engine) == head_revision()  # once more: nothing to do
    finally:
        store.close()
