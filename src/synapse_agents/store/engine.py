"""Creating the SQLAlchemy engine for SQLite (the embedded default) or PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic_core import from_json
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

SQLITE_BUSY_TIMEOUT_MS = 10_000


class StoreConfigError(RuntimeError):
    """The database URL cannot be used (a missing driver, an unsupported dialect)."""


def create_store_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for `url`: SQLite in WAL mode with a busy timeout, or PostgreSQL via psycopg."""
    parsed = make_url(url)
    # JSON columns are read with pydantic-core's parser: a replay reads thousands of tool values,
    # and the standard library's `json.loads` was the larger part of its time.
    kwargs.setdefault('json_deserializer', from_json)
    backend = parsed.get_backend_name()
    if backend == 'sqlite':
        database = parsed.database
        if database and database != ':memory:':
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url,
            connect_args={'timeout': SQLITE_BUSY_TIMEOUT_MS / 1000, 'check_same_thread': False},
            **kwargs,
        )
        event.listen(engine, 'connect', _sqlite_connect)
        event.listen(engine, 'begin', _sqlite_begin)
        return engine
    if backend == 'postgresql':
        try:
            import psycopg  # noqa: F401
        except ImportError as exc:
            raise StoreConfigError(
                'PostgreSQL needs the psycopg driver: pip install "synapse-agents[postgres]"'
            ) from exc
        # pre_ping: a connection the server dropped is replaced instead of failing the next request.
        return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20, **kwargs)
    raise StoreConfigError(f'unsupported database {backend!r}: use SQLite or PostgreSQL')


def writer(engine: Engine) -> Engine:
    """The same engine, marked so that SQLite opens its transactions for writing at once.

    A deferred transaction that reads and then writes can fail with "database is locked" without
    waiting, when another connection wrote in between; `BEGIN IMMEDIATE` takes the write lock up
    front, so the busy timeout applies instead.
    """
    return engine.execution_options(synapse_write=True)


def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    from .search import icontains

    # Let SQLAlchemy's "begin" event issue BEGIN itself (see _sqlite_begin).
    dbapi_connection.isolation_level = None
    # Search's case-insensitive substring test, with Python's `lower()` (SQLite's knows only ASCII).
    dbapi_connection.create_function('synapse_icontains', 2, icontains, deterministic=True)
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute('PRAGMA journal_mode=WAL')
        cursor.execute(f'PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}')
        # NORMAL is durable across application crashes in WAL mode; only a power cut can lose
        # the last transactions.
        cursor.execute('PRAGMA synchronous=NORMAL')
    finally:
        cursor.close()


def _sqlite_begin(connection: Any) -> None:
    immediate = connection.get_execution_options().get('synapse_write', False)
    # Straight to the driver: this runs for every transaction, and SQLAlchemy's statement machinery
    # costs more than the BEGIN itself.
    connection.connection.driver_connection.execute('BEGIN IMMEDIATE' if immediate else 'BEGIN')
