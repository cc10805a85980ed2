"""The hot statements, run straight on the DB-API cursor: compiled once per dialect, bound by the types.

A chat turn's writes are a handful of statements built once at import (`conversations/turn_writes.py`). Going
through `Connection.execute` costs SQLAlchemy's per-call machinery (cache lookup, execution
context, result object, events) each time. `execute` compiles each statement once per dialect
and set of parameter names, binds the values with the column types' own bind processors (the same JSON and UTC
datetime handling `Connection.execute` applies), and hands them to the transaction's DB-API cursor
(`executemany` for a list of rows).

`first_row` does the same for the hot reads (the spending check every model request makes): the
statement's first row as a plain tuple, on a pooled connection, with no session or result objects;
`all_rows` reads every row in a transaction already open (what a reservation's limits hold).

Anything it cannot prepare — a parameter it does not know, a column that needs a Python-side
default — goes through `Connection.execute` unchanged, so the result is the same either way.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Dialect, Engine
from sqlalchemy.orm import Session
from sqlalchemy.sql import Executable
from sqlalchemy.sql.compiler import SQLCompiler

from .engine import shorten

Params = Mapping[str, Any]


@dataclass(frozen=True)
class _Prepared:
    """A statement compiled for one dialect and one set of parameter names."""

    statement: Any
    """Kept so the `id()` in the cache key cannot be reused by another object."""
    sql: str
    positional: tuple[str, ...] | None
    """Bind names in order for positional paramstyles (`?`); None for named ones (`%(name)s`)."""
    processors: dict[str, Callable[[Any], Any]]
    literals: dict[str, Any]
    """Values of the statement's own literal binds (such as the 0.0 in `coalesce(cost, 0.0)`)."""

    def bind(self, row: Params) -> Any:
        values: dict[str, Any] = {**self.literals, **row}
        for name, process in self.processors.items():
            values[name] = process(values[name])
        if self.positional is None:
            return values
        return tuple(values[name] for name in self.positional)


_cache: dict[tuple[int, str, frozenset[str]], _Prepared | None] = {}
_cache_lock = threading.Lock()


def _prepare(dialect: Dialect, statement: Any, keys: Iterable[str]) -> _Prepared | None:
    names = frozenset(keys)
    key = (id(statement), dialect.name, names)
    if key in _cache:
        return _cache[key]  # None too: a statement known not to be preparable
    prepared = _compile(dialect, statement, names)
    with _cache_lock:
        _cache[key] = prepared
    return prepared


def _compile(dialect: Dialect, statement: Any, names: frozenset[str]) -> _Prepared | None:
    compiled = statement.compile(dialect=dialect, column_keys=sorted(names))
    if not isinstance(compiled, SQLCompiler):
        return None
    if compiled.insert_prefetch or compiled.update_prefetch or compiled.returning:
        return None  # Python-side defaults or RETURNING: leave those to SQLAlchemy
    processors: dict[str, Callable[[Any], Any]] = {}
    literals: dict[str, Any] = {}
    for name, bind in compiled.binds.items():
        if name not in names:
            if bind.callable is not None or bind.required or bind.value is None:
                return None  # a parameter the caller must give and did not
            literals[name] = bind.effective_value
        process = bind.type.dialect_impl(dialect).bind_processor(dialect)
        if process is not None:
            processors[name] = process
    positional = tuple(compiled.positiontup) if compiled.positional and compiled.positiontup else None
    if compiled.positional and positional is None:
        return None
    return _Prepared(statement, str(compiled), positional, processors, literals)


def execute(target: Connection | Session, statement: Executable, params: Params | Sequence[Params]) -> None:
    """Run `statement` with one row of parameters, or with many (`executemany`), in `target`'s
    transaction; every row of a list must name the same parameters."""
    connection = target.connection() if isinstance(target, Session) else target
    rows: Sequence[Params] = [params] if isinstance(params, Mapping) else params
    if not rows:
        return
    prepared = _prepare(connection.dialect, statement, rows[0].keys())
    if prepared is None:
        connection.execute(statement, [dict(row) for row in rows] if len(rows) > 1 else dict(rows[0]))
        return
    values = [prepared.bind(row) for row in rows]
    with _cursor(connection) as cursor:
        if len(values) == 1:
            cursor.execute(prepared.sql, values[0])
        else:
            cursor.executemany(prepared.sql, values)


def first_row(engine: Engine, statement: Executable, params: Params) -> tuple[Any, ...] | None:
    """The first row `statement` returns with `params` (None: no row), read on a pooled connection.

    For reads whose columns need no result processing (ids, numbers, text): the values are the
    driver's own."""
    with engine.connect() as connection:
        prepared = _prepare(connection.dialect, statement, params.keys())
        if prepared is None:
            row = connection.execute(statement, dict(params)).first()
            return tuple(row) if row is not None else None
        with _cursor(connection) as cursor:
            cursor.execute(prepared.sql, prepared.bind(params))
            found = cursor.fetchone()
        return tuple(found) if found is not None else None


def all_rows(connection: Connection, statement: Executable, params: Params) -> list[tuple[Any, ...]]:
    """Every row `statement` returns with `params`, read in `connection`'s transaction, as the
    driver's own values (the caller converts what needs it, such as a `Money` sum)."""
    prepared = _prepare(connection.dialect, statement, params.keys())
    if prepared is None:
        return [tuple(row) for row in connection.execute(statement, dict(params))]
    with _cursor(connection) as cursor:
        cursor.execute(prepared.sql, prepared.bind(params))
        return [tuple(row) for row in cursor.fetchall()]


@contextmanager
def _cursor(connection: Connection) -> Iterator[Any]:
    """The DB-API cursor of `connection`'s transaction, closed after use."""
    cursor = connection.connection.cursor()
    try:
        yield cursor
    except Exception as error:
        # Straight from the driver, past the engine's `handle_error`: cut it the same way (a
        # PostgreSQL DETAIL line quotes the refused row, which may hold other turns' words).
        shorten(error)
        raise
    finally:
        cursor.close()
