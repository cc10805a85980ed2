"""Real store failures for the tests: a database that refuses writes, a filesystem that is full.

- SQLite: `PRAGMA max_page_count` set to the file's current size on every transaction of the
  store's engine, so any write that needs a new page fails with SQLite's own SQLITE_FULL,
  "database or disk is full" (exactly what a full disk gives).
- PostgreSQL: a `CHECK (false)` constraint on `messages` (the tests connect as a superuser, whom
  a revoked privilege would not stop): every insert or update of a message fails in the server.
- Attachments: a 256 KiB tmpfs mounted over the attachments folder and filled but for a few pages
  (ENOSPC, "No space left on device"); where mounting is not permitted (not root), a read-only
  folder (EACCES). `SmallFilesystem.full` says which one the test got.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event, text

from synapse_agents.store import Store

CONSTRAINT = 'synapse_test_refuses_writes'
UNLIMITED_PAGES = 1_073_741_823


class StoreFault:
    """Switches a store between refusing writes (`fail`) and working (`heal`)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.failing = False
        if store.dialect == 'sqlite':
            event.listen(store.engine, 'begin', self._limit_pages)
            self.cause = 'database or disk is full'
        else:
            self.cause = f'violates check constraint "{CONSTRAINT}"'

    def _limit_pages(self, connection: Any) -> None:
        pages = 1 if self.failing else UNLIMITED_PAGES  # 1: as small as the file already is
        connection.connection.driver_connection.execute(f'PRAGMA max_page_count = {pages}')

    def fail(self) -> None:
        self.failing = True
        if self.store.dialect == 'postgresql':
            self._alter(f'ALTER TABLE messages ADD CONSTRAINT {CONSTRAINT} CHECK (false) NOT VALID')

    def heal(self) -> None:
        self.failing = False
        if self.store.dialect == 'postgresql':
            self._alter(f'ALTER TABLE messages DROP CONSTRAINT IF EXISTS {CONSTRAINT}')

    def _alter(self, sql: str) -> None:
        engine = create_engine(self.store.engine.url)
        with engine.begin() as connection:
            connection.execute(text(sql))
        engine.dispose()


def ledger_disagreements(url: str) -> list[Any]:
    """Conversations whose counters differ from their rows and ledger (read from the database)."""
    engine = create_engine(url)
    with engine.connect() as connection:
        rows = connection.execute(text(COUNTERS_DISAGREE)).all()
    engine.dispose()
    return list(rows)


COUNTERS_DISAGREE = """
SELECT c.id FROM conversations c
WHERE c.message_count != (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id)
   OR c.tool_count != (SELECT count(*) FROM tool_invocations t WHERE t.conversation_id = c.id)
   OR c.input_tokens != (SELECT coalesce(sum(l.input_tokens), 0) FROM llm_calls l
                         WHERE l.conversation_id = c.id)
   OR c.output_tokens != (SELECT coalesce(sum(l.output_tokens), 0) FROM llm_calls l
                          WHERE l.conversation_id = c.id)
"""


class SmallFilesystem:
    """A folder whose writes fail for real: `full` (ENOSPC on a tmpfs) or read-only (EACCES)."""

    def __init__(self, path: Path, full: bool) -> None:
        self.path = path
        self.full = full


@contextmanager
def small_filesystem(path: Path, free: int = 16 * 1024) -> Iterator[SmallFilesystem]:
    """Mount a 256 KiB tmpfs on `path` with about `free` bytes left, or make `path` read-only."""
    path.mkdir(parents=True, exist_ok=True)
    mounted = (
        subprocess.run(
            ['mount', '-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', str(path)], capture_output=True
        ).returncode
        == 0
    )
    try:
        if mounted:
            stats = os.statvfs(path)
            (path / 'filler').write_bytes(b'\0' * (stats.f_bavail * stats.f_frsize - free))
        else:
            path.chmod(0o555)
        yield SmallFilesystem(path, full=mounted)
    finally:
        if mounted:
            subprocess.run(['umount', str(path)], check=True)
        else:
            path.chmod(0o755)
