"""Creating the SQLAlchemy engine for SQLite (the embedded default) or PostgreSQL.

A database error never carries its SQL out of the store: every engine cuts the errors it raises to
the driver's first line (`terminating connection due to administrator command`, `database or disk
is full`), without SQLAlchemy's `[SQL: ...]`, its `[parameters: ...]` or the driver's own further
lines (PostgreSQL's `LINE 1: SELECT ...`, `DETAIL: Failing row contains (...)`). A batched write
holds rows of several turns, so a statement's parameters may be anyone's words; an error card, a
tool row, a trace or a task's error is shown to whoever ran the turn. The statement and the
driver's whole text go to the `synapse.store` log at DEBUG.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import ExceptionContext, make_url
from sqlalchemy.exc import StatementError

from ..corrupt import read_json
from .search_index import icontains

try:
    # The standard library's sqlite3 cannot load extensions on many Python builds; sqlean-py is the
    # same module on a SQLite that can, so sqlite-vec (the vector index) loads into every connection.
    import sqlean as sqlite_driver
    import sqlite_vec
except ImportError:  # pragma: no cover - an install without them searches vectors exactly in Python
    sqlite_driver = None
    sqlite_vec = None

SQLITE_BUSY_TIMEOUT_MS = 10_000

logger = logging.getLogger('synapse.store')


class StoreConfigError(RuntimeError):
    """The database URL cannot be used (a missing driver, an unsupported dialect)."""


def create_store_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for `url`: SQLite in WAL mode with a busy timeout, or PostgreSQL via psycopg."""
    parsed = make_url(url)
    # JSON columns are read with pydantic-core's parser: a replay reads thousands of tool values,
    # and the standard library's `json.loads` was the larger part of its time. Text that is not JSON
    # reads as `NotJson`, so a damaged row never stops a query's other rows (`corrupt.py`).
    kwargs.setdefault('json_deserializer', read_json)
    backend = parsed.get_backend_name()
    if backend == 'sqlite':
        database = parsed.database
        if database and database != ':memory:':
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        if sqlite_driver is not None:
            kwargs.setdefault('module', sqlite_driver)
        engine = create_engine(
            url,
            connect_args={'timeout': SQLITE_BUSY_TIMEOUT_MS / 1000, 'check_same_thread': False},
            **kwargs,
        )
        event.listen(engine, 'connect', _sqlite_connect)
        event.listen(engine, 'begin', _sqlite_begin)
        event.listen(engine, 'handle_error', without_statement)
        return engine
    if backend == 'postgresql':
        try:
            import psycopg  # noqa: F401
        except ImportError as exc:
            raise StoreConfigError(
                'PostgreSQL needs the psycopg driver: pip install "synapse-agents[postgres]"'
            ) from exc
        # pre_ping: a connection the server dropped is replaced instead of failing the next request.
        engine = create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20, **kwargs)
        event.listen(engine, 'handle_error', without_statement)
        return engine
    raise StoreConfigError(f'unsupported database {backend!r}: use SQLite or PostgreSQL')


def writer(engine: Engine) -> Engine:
    """The same engine, marked so that SQLite opens its transactions for writing at once.

    A deferred transaction that reads and then writes can fail with "database is locked" without
    waiting, when another connection wrote in between; `BEGIN IMMEDIATE` takes the write lock up
    front, so the busy timeout applies instead.
    """
    return engine.execution_options(synapse_write=True)


def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    # Let SQLAlchemy's "begin" event issue BEGIN itself (see _sqlite_begin).
    dbapi_connection.isolation_level = None
    # Search's case-insensitive substring test, with Python's `lower()` (SQLite's knows only ASCII).
    dbapi_connection.create_function('synapse_icontains', 2, icontains, deterministic=True)
    if sqlite_vec is not None and hasattr(dbapi_connection, 'enable_load_extension'):
        dbapi_connection.enable_load_extension(True)
        try:
            sqlite_vec.load(dbapi_connection)
        finally:
            dbapi_connection.enable_load_extension(False)
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


def _driver_name(error: BaseException) -> str:
    """The module an error says it came from: sqlean-py's are the standard library's `sqlite3` ones."""
    module = type(error).__module__
    return 'sqlite3' if module.split('.')[0] == 'sqlean' else module


def without_statement(context: ExceptionContext) -> None:
    """Cut the error SQLAlchemy is about to raise to the driver's first line (the `handle_error`
    event): no statement, no parameters, no further lines of the driver's text.

    The exception keeps its class (an `OperationalError` stays one) and the driver's exception its
    attributes (`sqlstate`, `diag`): only what `str()` shows changes.
    """
    original = context.original_exception
    logger.debug('database error: %s; statement: %s', original, context.statement)
    said = shorten(original)
    error = context.sqlalchemy_exception
    if isinstance(error, StatementError):
        error.statement = None
        error.params = None
        error.code = None  # SQLAlchemy's "(Background on this error at: ...)" line
        error.detail = []
        error.args = (f'({_driver_name(original)}.{type(original).__name__}) {said}',)


def shorten(error: BaseException) -> str:
    """Cut what a driver's exception says to its first non-empty line (or its class name), in
    place; that line."""
    said = next((line.strip() for line in str(error).splitlines() if line.strip()), type(error).__name__)
    if isinstance(error, Exception) and error.args != (said,):
        error.args = (said,)
    return said
