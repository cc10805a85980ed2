"""The store: the engine, its sessions, the table registry and one repository per aggregate.

Reads and writes of an aggregate go through its repository (`store.conversations`,
`store.ledger`); a chat turn's writes go through the write queue (`store/turn_writes.py`). What a
delete removes and what `counts()` counts is derived from the table registry (`store/tables.py`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from .engine import create_store_engine, writer
from .repositories.conversations import ConversationRepository
from .repositories.ledger import LedgerRepository
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
        self.conversations = ConversationRepository(self)
        self.ledger = LedgerRepository(self)

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


# The feature packages' tables, on the store's one metadata (imported after `Store` exists: they
# build on it); the conversation log also declares its tables in the registry, so every process's
# `counts()` and `synapse db tables` include them.
from ..accounting import tables as _accounting_tables  # noqa: E402, F401
from ..registry import tables as _registry_tables  # noqa: E402, F401
from ..tasks import tables as _task_tables  # noqa: E402, F401
from ..traces import tables as _trace_tables  # noqa: E402, F401
from . import conversation_log as _conversation_log  # noqa: E402, F401
