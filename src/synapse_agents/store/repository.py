"""The store: the engine, its sessions and the table registry.

Reads and writes of an aggregate go through its area's repository, made over a store
(`conversations.repository.ConversationRepository(store)`, `accounting.ledger.LedgerRepository`);
a chat turn's writes go through the write queue (`store/write_queue.py`). What a delete removes and
what `counts()` counts is derived from the table registry (`store/tables.py`), where each area
declares its tables.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from .engine import create_store_engine, writer
from .tables import DeletionReport, TableRegistry, registry

__all__ = ['DeletionReport', 'Store']


class Store:
    """Synapse's persistent state: the database plus the attachment folder."""

    def __init__(self, engine: Engine, attachments_dir: Path, *, tables: TableRegistry | None = None) -> None:
        self.engine = engine
        self.attachments_dir = attachments_dir
        self.tables = registry if tables is None else tables
        """The declarations deletes and counts are derived from (the process's registry by default)."""
        self._read_sessions = sessionmaker(engine, expire_on_commit=False)
        self._write_sessions = sessionmaker(writer(engine), expire_on_commit=False)

    @classmethod
    def open(cls, database_url: str, attachments_dir: Path, **engine_kwargs: Any) -> Store:
        return cls(create_store_engine(database_url, **engine_kwargs), attachments_dir)

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def close(self) -> None:
        self.engine.dispose()

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A session for reading; nothing it does is committed."""
        with self._read_sessions() as session:
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A session whose changes are committed when the block ends without an exception."""
        with self._write_sessions.begin() as session:
            yield session

    def counts(self) -> dict[str, int]:
        """Rows per registered table, for `synapse clear`, the benches and the tests."""
        with self.read() as session:
            return self.tables.counts(session.connection())
