"""The vector index memory and retrieval share: sqlite-vec on SQLite, pgvector on PostgreSQL.

A table that holds vectors declares its column as `Embedding()` and asks `index_of(store)` before
it reads or writes one. What the index is depends on the database, and is read off it once per
engine:

- `sqlite-vec`: the embedded store, with sqlite-vec loaded into every connection
  (`engine._sqlite_connect`); a vector is float32 bytes, and `distance` is sqlite-vec's exact
  `vec_distance_cosine`, computed in SQL over the rows the query's filter leaves;
- `pgvector`: PostgreSQL where the `vector` extension was there when the tables were made (the
  migration creates it and gives the column pgvector's type); `distance` is pgvector's `<=>`;
- `exact`: neither (PostgreSQL without pgvector, a SQLite whose driver cannot load extensions):
  the vectors are float32 bytes and the caller ranks them in Python (`cosine_distances`). Nothing
  is lost and the ranking is the same; only large scopes are slower.

The setting `vector_store` may name the index; naming one that is not there is refused
(`VectorStoreUnavailable`) rather than quietly searched another way.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from sqlalchemy import Float, LargeBinary, String, cast, func, literal, text
from sqlalchemy.engine import Dialect, Engine
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.types import TypeDecorator, UserDefinedType

from ..errors import VectorStoreUnavailable

IndexKind = Literal['sqlite-vec', 'pgvector', 'exact']
_KIND_ATTRIBUTE = 'synapse_vector_index'
_lock = threading.Lock()


@dataclass(frozen=True)
class VectorIndex:
    """How the store's vectors are searched (see the module docstring)."""

    kind: IndexKind

    @property
    def in_sql(self) -> bool:
        """Whether `distance` ranks in the database (else the caller ranks in Python)."""
        return self.kind != 'exact'

    def distance(self, column: Any, vector: Sequence[float] | np.ndarray) -> ColumnElement[float]:
        """The cosine distance (0 = same direction, 2 = opposite) of `column` to `vector`, in SQL."""
        if self.kind == 'sqlite-vec':
            return func.vec_distance_cosine(column, as_bytes(vector), type_=Float)
        if self.kind == 'pgvector':
            distance: ColumnElement[float] = column.op('<=>', return_type=Float)(_pgvector_literal(vector))
            return distance
        raise ValueError('the exact index ranks in Python: use cosine_distances')


class _AsGiven(UserDefinedType[Any]):
    """What the driver is given and gives back, untouched: on PostgreSQL the column is `bytea` or
    pgvector's `vector`, and a vector is sent as bytes or as pgvector's text to match."""

    cache_ok = True

    def get_col_spec(self, **_: Any) -> str:
        return 'BYTEA'


class _PgVector(UserDefinedType[Any]):
    """pgvector's type, by name (for a CAST; Synapse needs no Python package for it)."""

    cache_ok = True

    def get_col_spec(self, **_: Any) -> str:
        return 'vector'


class Embedding(TypeDecorator[Any]):
    """A stored vector: float32 bytes, or pgvector's `vector` where the store has pgvector. Read as
    a numpy float32 array, whichever it is (a read needs no `index_of`; a write does)."""

    impl = LargeBinary
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> Any:
        if dialect.name == 'postgresql':
            return dialect.type_descriptor(_AsGiven())
        return dialect.type_descriptor(LargeBinary())

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        if value is None:
            return None
        if getattr(dialect, _KIND_ATTRIBUTE, None) == 'pgvector':
            return _pgvector_text(value)
        return as_bytes(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> Any:
        if value is None:
            return None
        if isinstance(value, bytes | memoryview):
            return np.frombuffer(bytes(value), dtype='<f4')
        if isinstance(value, str):  # pgvector's text form: [0.1,0.2,...]
            return np.asarray(json.loads(value), dtype=np.float32)
        return np.asarray(value, dtype=np.float32)


def as_bytes(vector: Sequence[float] | np.ndarray) -> bytes:
    """`vector` as little-endian float32 bytes (sqlite-vec's format)."""
    return np.asarray(vector, dtype='<f4').tobytes()


def cosine_distances(query: Sequence[float] | np.ndarray, vectors: Sequence[np.ndarray]) -> list[float]:
    """The cosine distance of each of `vectors` to `query`, as `VectorIndex.distance` computes it."""
    if not vectors:
        return []
    matrix = np.vstack([np.asarray(v, dtype=np.float32) for v in vectors])
    q = np.asarray(query, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1) * float(np.linalg.norm(q))
    similarity = (matrix @ q) / np.where(norms == 0, 1.0, norms)
    return [float(d) for d in 1.0 - similarity]


def index_of(engine: Engine, setting: str = 'auto', *, table: str = 'memory_vectors') -> VectorIndex:
    """The engine's vector index (read once per engine), as `setting` allows."""
    dialect = engine.dialect
    kind: IndexKind | None = getattr(dialect, _KIND_ATTRIBUTE, None)
    if kind is None:
        with _lock:
            kind = getattr(dialect, _KIND_ATTRIBUTE, None) or _detect(engine, table)
            setattr(dialect, _KIND_ATTRIBUTE, kind)
    if setting not in ('auto', kind):
        raise VectorStoreUnavailable(
            f'the vector_store setting names {setting!r}, but this {dialect.name} database has '
            f'{_described(kind, dialect.name)}'
        )
    return VectorIndex(kind)


def _detect(engine: Engine, table: str) -> IndexKind:
    with engine.connect() as connection:
        if engine.dialect.name == 'sqlite':
            try:
                connection.execute(text('SELECT vec_version()'))
            except Exception:
                return 'exact'
            return 'sqlite-vec'
        found = connection.execute(
            text(
                'SELECT format_type(a.atttypid, a.atttypmod) FROM pg_attribute a '
                "WHERE a.attrelid = to_regclass(:table) AND a.attname = 'embedding'"
            ),
            {'table': table},
        ).scalar()
    if found is not None and str(found).startswith('vector'):
        return 'pgvector'
    return 'exact'


def _pgvector_text(vector: Sequence[float] | np.ndarray) -> str:
    return '[' + ','.join(repr(float(x)) for x in np.asarray(vector, dtype=np.float32)) + ']'


def _pgvector_literal(vector: Sequence[float] | np.ndarray) -> Any:
    return cast(literal(_pgvector_text(vector), type_=String), _PgVector())


def _described(kind: IndexKind, dialect: str) -> str:
    if kind == 'exact':
        return 'no vector index (sqlite-vec could not be loaded)' if dialect == 'sqlite' else 'no pgvector'
    return kind
