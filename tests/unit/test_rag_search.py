"""Searching retrieval sources: tenants never meet (a property test), k filtered results come back
when k exist (pgvector's HNSW index finished by an exact query), the file filter, refusals.

On SQLite (sqlite-vec), PostgreSQL (exact in Python) and PostgreSQL with pgvector (`vectors`).
Vectors are written directly where their geometry matters; the query goes through pydantic-ai's
`TestEmbeddingModel` or an embedding model answering fixed vectors (the model boundary).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence

import anyio
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic_ai.embeddings import Embedder, EmbeddingModel, EmbeddingResult, EmbeddingSettings
from pydantic_ai.embeddings.result import EmbedInputType
from pydantic_ai.embeddings.test import TestEmbeddingModel
from pydantic_ai.usage import RequestUsage
from sqlalchemy import delete, insert, text

from synapse_agents.errors import SourceInvalid, SourceNotFound
from synapse_agents.retrieval.embedding import RagEmbedder
from synapse_agents.retrieval.search import search
from synapse_agents.retrieval.tables import RagChunk, RagSource
from synapse_agents.retrieval.vector_search import ensure_hnsw_index, hnsw_index_name
from synapse_agents.settings import Settings
from synapse_agents.store import Store
from synapse_agents.store.ids import new_id
from synapse_agents.store.vectors import index_of

pytestmark = pytest.mark.vectors
TENANTS = [None, 'org:a', 'org:b', 'team:a']
CONSTANT = RagEmbedder(Embedder(TestEmbeddingModel('constant', dimensions=8)))


class FixedEmbeddings(EmbeddingModel):
    """Every query is the unit vector along the first axis."""

    @property
    def model_name(self) -> str:
        return 'fixed'

    @property
    def system(self) -> str:
        return 'test'

    async def embed(
        self,
        inputs: str | Sequence[str],
        *,
        input_type: EmbedInputType,
        settings: EmbeddingSettings | None = None,
    ) -> EmbeddingResult:
        texts = [inputs] if isinstance(inputs, str) else list(inputs)
        vector = [1.0] + [0.0] * 7
        return EmbeddingResult(
            embeddings=[vector] * len(texts),
            inputs=texts,
            input_type=input_type,
            usage=RequestUsage(input_tokens=len(texts)),
            model_name='fixed',
            provider_name='test',
        )


def add_source(store: Store, slug: str, tenant: str | None, *, active: bool = True) -> str:
    source_id = new_id()
    with store.write() as session:
        session.add(
            RagSource(
                id=source_id,
                slug=slug,
                name=slug,
                kind='folder',
                config={},
                tenant=tenant,
                active=active,
                status='done',
                total_files=0,
                processed_files=0,
                document_count=0,
                chunk_count=0,
            )
        )
    return source_id


def add_chunks(
    store: Store,
    source_id: str,
    tenant: str | None,
    vectors: Sequence[np.ndarray],
    embedder: str,
    file: str = 'f.txt',
) -> None:
    rows = [
        {
            'id': new_id(),
            'source_id': source_id,
            'tenant': tenant,
            'file_identifier': file,
            'content': f'{file} chunk {n} words',
            'meta': {'file': file},
            'chunk_index': n,
            'chunk_total': len(vectors),
            'content_hash': 'h',
            'embedder': embedder,
            'dimensions': len(vector),
            'embedding': vector,
        }
        for n, vector in enumerate(vectors)
    ]
    index_of(store.engine)  # a write needs the index known (pgvector's text form, or bytes)
    with store.write() as session:
        session.execute(insert(RagChunk), rows)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    owners=st.lists(st.sampled_from(TENANTS), min_size=1, max_size=6),
    asking=st.sampled_from(TENANTS),
    named=st.booleans(),
)
def test_a_search_never_returns_another_tenants_chunk(
    store: Store, owners: list[str | None], asking: str | None, named: bool
) -> None:
    with store.write() as session:
        session.execute(delete(RagChunk))
        session.execute(delete(RagSource))
    for n, owner in enumerate(owners):
        source_id = add_source(store, f's{n}', owner)
        add_chunks(store, source_id, owner, [np.ones(8, dtype=np.float32)] * 3, 'test:constant')
    visible = [f's{n}' for n, owner in enumerate(owners) if owner is None or owner == asking]
    hidden = [f's{n}' for n, owner in enumerate(owners) if f's{n}' not in visible]
    answer = anyio.run(
        lambda: search(
            store,
            Settings(),
            'words',
            tenant=asking,
            k=100,
            embedder=CONSTANT,
            sources=visible if named else (),
        )
    )
    assert {h.chunk.tenant for h in answer.results} <= {None, asking}
    assert sorted({h.source_slug for h in answer.results}) == sorted(visible)
    assert len(answer.results) == 3 * len(visible)  # everything it may see, nothing else
    for slug in hidden:  # named, another tenant's source is unknown
        with pytest.raises(SourceNotFound):
            anyio.run(
                functools.partial(
                    search, store, Settings(), 'words', tenant=asking, sources=[slug], embedder=CONSTANT
                )
            )
    plain = anyio.run(lambda: search(store, Settings(embedder='off'), 'words', tenant=asking, k=100))
    assert plain.ranked_by == 'text' and {h.chunk.tenant for h in plain.results} <= {None, asking}


def test_k_filtered_results_come_back_when_k_exist(store: Store, dialect: str) -> None:
    """One source's chunks are far from the query, a big one's near it: the index's first candidates
    are all the big source's, and the filter still gets its k."""
    rng = np.random.default_rng(7)
    big, small = add_source(store, 'big', None), add_source(store, 'small', None)
    near = np.array([1.0] + [0.0] * 7) + rng.normal(0, 0.05, (2000, 8))
    far = np.array([-1.0] + [0.0] * 7) + rng.normal(0, 0.05, (15, 8))
    add_chunks(store, big, None, [v.astype(np.float32) for v in near], 'test:fixed')
    add_chunks(store, small, None, [v.astype(np.float32) for v in far], 'test:fixed', file='small.txt')
    index = index_of(store.engine)
    assert ensure_hnsw_index(store.engine, index, 8) == (dialect == 'pgvector')
    fixed = RagEmbedder(Embedder(FixedEmbeddings()))
    if dialect == 'pgvector':  # the index is there, and an unfiltered query of this shape uses it
        with store.engine.begin() as connection:
            connection.execute(text('ANALYZE rag_chunks'))
            plan = '\n'.join(
                row[0]
                for row in connection.execute(
                    text(
                        "EXPLAIN SELECT id FROM rag_chunks WHERE embedder = 'test:fixed' AND dimensions = 8 "
                        "ORDER BY embedding::vector(8) <=> '[1,0,0,0,0,0,0,0]'::vector(8) LIMIT 10"
                    )
                )
            )
        assert hnsw_index_name(8) in plan
    answer = anyio.run(lambda: search(store, Settings(), 'anything', sources=['small'], k=10, embedder=fixed))
    assert len(answer.results) == 10
    assert {h.source_slug for h in answer.results} == {'small'}
    scores = [h.score for h in answer.results]
    assert scores == sorted(scores, reverse=True)
    every = anyio.run(lambda: search(store, Settings(), 'anything', sources=['small'], k=50, embedder=fixed))
    assert len(every.results) == 15  # all there are, no more
    top = anyio.run(lambda: search(store, Settings(), 'anything', k=5, embedder=fixed))
    assert {h.source_slug for h in top.results} == {'big'} and top.results[0].score > 0.9


def test_the_file_filter_and_inactive_sources(store: Store) -> None:
    source_id = add_source(store, 'docs', None)
    add_chunks(store, source_id, None, [np.ones(8, dtype=np.float32)] * 2, 'test:constant', file='a.txt')
    add_chunks(store, source_id, None, [np.ones(8, dtype=np.float32)] * 3, 'test:constant', file='b.txt')
    add_source(store, 'off', None, active=False)
    answer = anyio.run(lambda: search(store, Settings(), 'words', file='b.txt', k=10, embedder=CONSTANT))
    assert {h.chunk.file_identifier for h in answer.results} == {'b.txt'} and len(answer.results) == 3
    with pytest.raises(SourceNotFound):
        anyio.run(lambda: search(store, Settings(), 'words', sources=['off'], embedder=CONSTANT))
    with pytest.raises(SourceNotFound):
        anyio.run(lambda: search(store, Settings(), 'words', sources=['nope'], embedder=CONSTANT))


@pytest.mark.any_database(reason='the query and k are checked before any SQL')
@pytest.mark.parametrize(('query', 'k'), [('', 5), ('   ', 5), ('words', 0), ('words', 101), ('x' * 4001, 5)])
def test_bad_queries_are_refused(store: Store, query: str, k: int) -> None:
    with pytest.raises(SourceInvalid):
        anyio.run(lambda: search(store, Settings(), query, k=k, embedder=CONSTANT))


def test_two_processes_make_the_hnsw_index_once(store: Store, dialect: str) -> None:
    """Two first indexings of one dimension at once (two connections, as two processes have):
    neither fails, and there is one index."""
    index = index_of(store.engine)
    made: list[bool] = []
    errors: list[BaseException] = []

    def make() -> None:
        try:
            made.append(ensure_hnsw_index(store.engine, index, 12))
        except BaseException as exc:  # pragma: no cover - what the test looks for
            errors.append(exc)

    threads = [threading.Thread(target=make) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and made == [dialect == 'pgvector'] * 2
    if dialect == 'pgvector':
        with store.engine.connect() as connection:
            found = connection.scalar(
                text('SELECT count(*) FROM pg_indexes WHERE indexname = :name'), {'name': hnsw_index_name(12)}
            )
        assert found == 1
