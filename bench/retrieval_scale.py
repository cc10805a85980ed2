"""Part 3 of `bench_retrieval.py`: `search` as the chunk table grows, and the approximate index's
recall against exact search.

`Synthetic` makes the chunks: `sources` sources of equal share, and unit vectors of 384 dimensions
drawn from a mix of clusters of unequal size (a cluster's vectors have a cosine of about 0.6 to its
centre, so many chunks are nearly as close to a query as its true neighbours and an approximate
index has to work for its top 10). Some centres are the query texts' own embeddings (with a
little noise), so a query lands among chunks as a real one does; the rest are random. Vectors are
rounded to 6 decimals, the same on every store and in the exact ranking.

`grow` inserts them into `rag_chunks` in bulk (batched `INSERT` on SQLite; `COPY` on PostgreSQL,
with the HNSW index dropped first and made again after the load, as `ensure_hnsw_index` makes it,
timed). `measure` asks the query texts through the real `search` (the query embedded by the
offline model, its ledger row, the ranking, the rows read), over every source and over one source
of `sources`, and scores each answer against the exact top 10 computed in numpy over the same
vectors.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from sqlalchemy import insert, text

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))

from synapse_agents.retrieval import search as search_module
from synapse_agents.retrieval import vector_search
from synapse_agents.retrieval.embedding import RagEmbedder
from synapse_agents.retrieval.tables import RagChunk, RagSource
from synapse_agents.retrieval.vector_search import ensure_hnsw_index, hnsw_index_name
from synapse_agents.settings import Settings
from synapse_agents.store import Store
from synapse_agents.store.ids import new_id
from synapse_agents.store.schema import utcnow
from synapse_agents.store.vectors import index_of

DIMENSIONS = 384
CLUSTERS = 200
SPREAD = 0.068
"""Per-dimension noise around a centre: a vector's cosine to its centre is about 0.6."""
BATCH = 20_000
K = 10


@dataclass
class Synthetic:
    """The chunks of the scale part, made from a seed (see the module docstring)."""

    sources: int
    query_vectors: np.ndarray
    seed: int
    vectors: np.ndarray = field(init=False)
    source_of: np.ndarray = field(init=False)
    ids: list[str] = field(default_factory=list)
    source_ids: list[str] = field(default_factory=list)
    _centres: np.ndarray = field(init=False)
    _weights: np.ndarray = field(init=False)
    _rng: np.random.Generator = field(init=False)

    def __post_init__(self) -> None:
        self._rng = np.random.default_rng(self.seed)
        near_queries = self.query_vectors + self._rng.normal(0, 0.02, self.query_vectors.shape)
        others = self._rng.standard_normal((CLUSTERS - len(self.query_vectors), DIMENSIONS))
        centres = np.vstack([near_queries, others]).astype(np.float32)
        self._centres = centres / np.linalg.norm(centres, axis=1, keepdims=True)
        weights = self._rng.pareto(1.2, CLUSTERS) + 0.2  # a few large clusters, many small
        self._weights = weights / weights.sum()
        self.vectors = np.empty((0, DIMENSIONS), dtype=np.float32)
        self.source_of = np.empty(0, dtype=np.int32)
        self.source_ids = [new_id() for _ in range(self.sources)]

    def more(self, count: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """`count` new chunks: their vectors, source numbers and ids (kept for the exact ranking)."""
        cluster = self._rng.choice(CLUSTERS, size=count, p=self._weights)
        vectors = self._centres[cluster] + self._rng.normal(0, SPREAD, (count, DIMENSIONS)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        vectors = np.round(vectors, 6).astype(np.float32)
        sources = self._rng.integers(0, self.sources, count).astype(np.int32)
        ids = [new_id() for _ in range(count)]
        self.vectors = np.vstack([self.vectors, vectors])
        self.source_of = np.concatenate([self.source_of, sources])
        self.ids += ids
        return vectors, sources, ids

    def exact(self, query: np.ndarray, source: int | None = None) -> list[str]:
        """The ids of the exact top `K` by cosine (every source, or one), nearest first."""
        similarity = self.vectors @ (query / np.linalg.norm(query))
        if source is not None:
            similarity = np.where(self.source_of == source, similarity, -np.inf)
        top = np.argpartition(-similarity, K)[:K]
        return [self.ids[n] for n in top[np.argsort(-similarity[top])]]


def slug_of(number: int) -> str:
    return f'scale-{number:03d}'


def add_sources(store: Store, data: Synthetic) -> None:
    """The sources the synthetic chunks belong to: active, shared, indexed."""
    now = utcnow()
    with store.write() as session:
        session.execute(
            insert(RagSource),
            [
                {
                    'id': source_id,
                    'slug': slug_of(n),
                    'name': f'Scale source {n}',
                    'kind': 'folder',
                    'config': {'path': f'/nonexistent/{n}'},
                    'tenant': None,
                    'active': True,
                    'status': 'done',
                    'created_at': now,
                    'updated_at': now,
                }
                for n, source_id in enumerate(data.source_ids)
            ],
        )


def _rows(
    data: Synthetic, start: int, vectors: np.ndarray, sources: np.ndarray, ids: list[str], embedder: str
) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for n, chunk_id in enumerate(ids):
        number = start + n
        source = int(sources[n])
        name = f'doc-{number // 8:07d}.txt'
        rows.append(
            {
                'id': chunk_id,
                'source_id': data.source_ids[source],
                'tenant': None,
                'file_identifier': name,
                'content': f'Synthetic passage {number} of {name} in source {source}.',
                'meta': {'source': f'Scale source {source}', 'file': name, 'page': None, 'heading': None},
                'chunk_index': number % 8,
                'chunk_total': 8,
                'content_hash': f'{number // 8:064x}',
                'embedder': embedder,
                'dimensions': DIMENSIONS,
                'embedding': vectors[n],
            }
        )
    return rows


_COLUMNS = (
    'id',
    'source_id',
    'tenant',
    'file_identifier',
    'content',
    'meta',
    'chunk_index',
    'chunk_total',
    'content_hash',
    'embedder',
    'dimensions',
    'embedding',
)


def _copy(store: Store, rows: list[dict[str, object]]) -> None:
    """`rows` into rag_chunks with PostgreSQL's COPY (the vector in pgvector's text form)."""
    connection = store.engine.raw_connection()
    try:
        cursor = connection.cursor()
        with cursor.copy(f'COPY rag_chunks ({", ".join(_COLUMNS)}) FROM STDIN') as copy:
            for row in rows:
                vector = row['embedding']
                assert isinstance(vector, np.ndarray)
                values = [row[c] for c in _COLUMNS[:-1]]
                values[5] = json.dumps(values[5])
                copy.write_row([*values, '[' + ','.join(map(str, vector.tolist())) + ']'])
        connection.commit()
    finally:
        connection.close()


@dataclass
class Loaded:
    seconds: float
    index_seconds: float | None


def grow(store: Store, settings: Settings, data: Synthetic, start: int, stop: int, embedder: str) -> Loaded:
    """Chunks `start`..`stop` in bulk; on pgvector the HNSW index is dropped before and made after."""
    index = index_of(store.engine, settings.vector_store, table='rag_chunks')
    began = time.perf_counter()
    if index.kind == 'pgvector':
        with store.engine.begin() as connection:
            connection.execute(text(f'DROP INDEX IF EXISTS {hnsw_index_name(DIMENSIONS)}'))
    for first in range(start, stop, BATCH):
        vectors, sources, ids = data.more(min(stop, first + BATCH) - first)
        rows = _rows(data, first, vectors, sources, ids, embedder)
        if store.dialect == 'postgresql':
            _copy(store, rows)
        else:
            with store.write() as session:
                session.execute(insert(RagChunk), rows)
    loaded = time.perf_counter() - began
    built: float | None = None
    if store.dialect == 'postgresql':
        with store.engine.connect() as connection:
            connection.execute(text('ANALYZE rag_chunks; ANALYZE rag_sources'))
            connection.commit()
    if index.kind == 'pgvector':
        began = time.perf_counter()
        ensure_hnsw_index(store.engine, index, DIMENSIONS)
        built = time.perf_counter() - began
    return Loaded(loaded, built)


@dataclass
class Measured:
    """One store at one size: times (ms), recall@10 and how many rows came back."""

    search_ms: list[float] = field(default_factory=list)
    filtered_ms: list[float] = field(default_factory=list)
    rank_ms: list[float] = field(default_factory=list)
    """The ranking alone (`vector_search.nearest`, the SQL `search` runs), every source."""
    filtered_rank_ms: list[float] = field(default_factory=list)
    recall: list[float] = field(default_factory=list)
    filtered_recall: list[float] = field(default_factory=list)
    short: int = 0
    """Answers with fewer than k rows (k exist in every case)."""


async def measure(
    store: Store,
    settings: Settings,
    rag: RagEmbedder,
    data: Synthetic,
    queries: list[str],
    query_vectors: np.ndarray,
    warmup: int = 2,
) -> Measured:
    """Each query through `search`, over every source and over one, scored against the exact top 10."""
    found = Measured()
    for position in range(-warmup, len(queries)):
        n = max(position, 0)
        query, vector = queries[n], query_vectors[n]
        one = n % data.sources
        began = time.perf_counter()
        answer = await search_module.search(store, settings, query, k=K, embedder=rag)
        middle = time.perf_counter()
        filtered = await search_module.search(
            store, settings, query, sources=[slug_of(one)], k=K, embedder=rag
        )
        done = time.perf_counter()
        if answer.ranked_by != 'similarity' or filtered.ranked_by != 'similarity':
            raise RuntimeError(f'search ranked by {answer.ranked_by} / {filtered.ranked_by}')
        ranked, _ = _ranking(store, settings, data, vector, None, rag.name or '')
        ranked_one, _ = _ranking(store, settings, data, vector, one, rag.name or '')
        if position < 0:
            continue
        found.rank_ms.append(ranked)
        found.filtered_rank_ms.append(ranked_one)
        found.search_ms.append((middle - began) * 1000)
        found.filtered_ms.append((done - middle) * 1000)
        truth, truth_one = data.exact(vector), data.exact(vector, one)
        found.recall.append(len({h.chunk.id for h in answer.results} & set(truth)) / K)
        found.filtered_recall.append(len({h.chunk.id for h in filtered.results} & set(truth_one)) / K)
        found.short += (len(answer.results) < K) + (len(filtered.results) < K)
        if any(h.chunk.source_id != data.source_ids[one] for h in filtered.results):
            raise RuntimeError('a filtered search returned a chunk of another source')
    return found


def _ranking(
    store: Store, settings: Settings, data: Synthetic, vector: np.ndarray, source: int | None, embedder: str
) -> tuple[float, list[str]]:
    """The ranking `search` runs, alone with the query's vector: how long it took (ms), the ids."""
    index = index_of(store.engine, settings.vector_store, table='rag_chunks')
    ids = data.source_ids if source is None else [data.source_ids[source]]
    began = time.perf_counter()
    with store.read() as session:
        pairs = vector_search.nearest(
            session, index, search_module._where(ids, None, None), vector, K, embedder
        )
    took = (time.perf_counter() - began) * 1000
    if len(pairs) != K:
        raise RuntimeError(f'the ranking returned {len(pairs)} rows')
    return took, [chunk_id for chunk_id, _ in pairs]


@dataclass
class Swept:
    """The ranking alone at one `hnsw.ef_search`: times (ms) and recall@10, every source and one."""

    ef_search: int
    ms: list[float] = field(default_factory=list)
    recall: list[float] = field(default_factory=list)
    filtered_ms: list[float] = field(default_factory=list)
    filtered_recall: list[float] = field(default_factory=list)


def sweep_ef_search(store: Store, settings: Settings, data: Synthetic, query_vectors: np.ndarray,
                    embedder: str, values: list[int]) -> list[Swept]:  # fmt: skip
    """The pgvector ranking at other `hnsw.ef_search` values than the one `search` sets (its least
    value, `EF_SEARCH_LEAST`, changed for the sweep and put back)."""
    kept = vector_search.EF_SEARCH_LEAST
    swept: list[Swept] = []
    try:
        for value in values:
            vector_search.EF_SEARCH_LEAST = value
            row = Swept(value)
            for n, vector in enumerate(query_vectors):
                one = n % data.sources
                took, ids = _ranking(store, settings, data, vector, None, embedder)
                row.ms.append(took)
                row.recall.append(len(set(ids) & set(data.exact(vector))) / K)
                took, ids = _ranking(store, settings, data, vector, one, embedder)
                row.filtered_ms.append(took)
                row.filtered_recall.append(len(set(ids) & set(data.exact(vector, one))) / K)
            swept.append(row)
    finally:
        vector_search.EF_SEARCH_LEAST = kept
    return swept


def tune_postgres(store: Store, memory: str) -> None:
    """Enough memory for the HNSW build to happen in memory, for the bench's database."""
    database = store.engine.url.database
    with store.engine.connect() as connection:
        connection.execute(text(f"ALTER DATABASE {database} SET maintenance_work_mem = '{memory}'"))
        connection.commit()
    store.engine.dispose()
