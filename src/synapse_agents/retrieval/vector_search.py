"""The nearest chunks to a vector under a filter, on each kind of vector index (`store/vectors.py`).

- `pgvector`: an HNSW expression index per dimension, `((embedding::vector(N)) vector_cosine_ops)
  WHERE dimensions = N`, made by `ensure_hnsw_index` when a source is first indexed with an embedder
  of N dimensions (under an advisory lock, so two processes make it once). A search sets
  `hnsw.ef_search` for the transaction and, when the installed pgvector has it (0.8+),
  `hnsw.iterative_scan`, so a filter that the first candidates do not satisfy scans on. Whatever the
  index still returns short of `k` while more rows match the filter is finished by an exact query
  (index scans off): `k` rows come back whenever `k` exist.
- `sqlite-vec`: sqlite-vec's exact `vec_distance_cosine`, in SQL over the rows the filter leaves.
- `exact`: the filtered vectors are read and ranked in Python.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from sqlalchemy import Engine, Float, String, cast, func, literal, literal_column, select, text
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.types import UserDefinedType

from ..store.vectors import VectorIndex, cosine_distances
from .tables import RagChunk

EF_SEARCH_LEAST = 100
EF_SEARCH_MOST = 1000
_iterative: dict[str, bool] = {}
_lock = threading.Lock()


class _Vector(UserDefinedType[object]):
    """pgvector's `vector(N)`, for a cast."""

    cache_ok = True

    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions

    def get_col_spec(self, **_: object) -> str:
        return f'vector({self.dimensions})'


def hnsw_index_name(dimensions: int) -> str:
    """The name of the HNSW index of `dimensions`-long vectors."""
    return f'ix_rag_chunks_hnsw_{dimensions}'


def ensure_hnsw_index(engine: Engine, index: VectorIndex, dimensions: int) -> bool:
    """Make the HNSW index for `dimensions` on pgvector when it is not there; whether one was asked
    for (False on the other indexes). Safe with several processes: made under an advisory lock."""
    if index.kind != 'pgvector':
        return False
    dimensions = int(dimensions)
    name = hnsw_index_name(dimensions)
    with engine.begin() as connection:
        if connection.scalar(text('SELECT to_regclass(:name)'), {'name': name}) is not None:
            return True  # made already: no lock taken
        connection.execute(
            text('SELECT pg_advisory_xact_lock(hashtext(:name))'), {'name': name}
        )  # two processes: the second waits here, then finds it made
        connection.execute(
            text(
                f'CREATE INDEX IF NOT EXISTS {name} ON rag_chunks USING hnsw '
                f'((embedding::vector({dimensions})) vector_cosine_ops) WHERE dimensions = {dimensions}'
            )
        )
    return True


def nearest(
    session: Session,
    index: VectorIndex,
    where: ColumnElement[bool],
    vector: np.ndarray,
    k: int,
    embedder: str,
) -> list[tuple[str, float]]:
    """The ids and cosine distances of the `k` chunks of `embedder` nearest to `vector` among those
    matching `where`, nearest first (ties: the newer chunk first)."""
    dimensions = len(vector)
    matching = [where, RagChunk.embedder == embedder, RagChunk.dimensions == dimensions]
    if index.kind == 'pgvector':
        return _pgvector(session, matching, vector, k)
    if index.kind == 'sqlite-vec':
        distance = index.distance(RagChunk.embedding, vector).label('distance')
        query = select(RagChunk.id, distance).where(*matching).order_by(distance, RagChunk.id.desc()).limit(k)
        return [(i, float(d)) for i, d in session.execute(query)]
    pairs = list(session.execute(select(RagChunk.id, RagChunk.embedding).where(*matching)))
    distances = cosine_distances(vector, [v for _, v in pairs])
    order = sorted(range(len(pairs)), key=lambda n: (distances[n], _descending(pairs[n][0])))
    return [(pairs[n][0], distances[n]) for n in order[:k]]


def _pgvector(
    session: Session, matching: list[ColumnElement[bool]], vector: np.ndarray, k: int
) -> list[tuple[str, float]]:
    dimensions = len(vector)
    as_text = '[' + ','.join(repr(float(x)) for x in vector) + ']'
    column: ColumnElement[Any] = literal_column(f'rag_chunks.embedding::vector({dimensions})')
    distance = column.op('<=>', return_type=Float)(
        cast(literal(as_text, type_=String), _Vector(dimensions))
    ).label('distance')
    query = select(RagChunk.id, distance).where(*matching).order_by(distance).limit(k)
    ef_search = max(EF_SEARCH_LEAST, min(EF_SEARCH_MOST, k * 2))
    session.execute(text(f'SET LOCAL hnsw.ef_search = {ef_search}'))
    if _has_iterative_scan(session):
        session.execute(text('SET LOCAL hnsw.iterative_scan = relaxed_order'))
    found = [(i, float(d)) for i, d in session.execute(query)]
    if len(found) < k:
        available = session.scalar(
            select(func.count()).select_from(select(RagChunk.id).where(*matching).limit(k).subquery())
        )
        if (available or 0) > len(found):  # the index stopped short: finish exactly
            session.execute(text('SET LOCAL enable_indexscan = off'))
            found = [(i, float(d)) for i, d in session.execute(query)]
    return sorted(found, key=lambda pair: (pair[1], _descending(pair[0])))


def _has_iterative_scan(session: Session) -> bool:
    """Whether the installed pgvector has `hnsw.iterative_scan` (0.8.0 and later)."""
    url = str(session.get_bind().engine.url)
    known = _iterative.get(url)
    if known is None:
        version = session.scalar(text("SELECT extversion FROM pg_extension WHERE extname = 'vector'"))
        parts = tuple(int(p) for p in str(version or '0').split('.')[:2] if p.isdigit())
        known = parts >= (0, 8)
        _iterative[url] = known
    return known


def _descending(chunk_id: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in chunk_id)
