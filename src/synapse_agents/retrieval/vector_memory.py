"""Vector memory: texts an app asks to remember for a person or a conversation, recalled by meaning.

A vector memory is written with `VectorMemories.remember` (its content embedded by the `embedder`
setting's embedder, the one memories use) and found with `VectorMemories.recall`, ranked by cosine
similarity on the shared vector index (`store/vectors.py`: sqlite-vec, pgvector, or exact in
Python). What a recall sees is always one tenant's rows, and of those:

- the `user`-scoped memories of the person named (permanent), and
- the `conversation`-scoped memories of the conversation named (removed with it).

It degrades as memory does rather than breaking: without an embedder, or when it fails, a memory is
written without a vector and recall ranks by recency (`ranked_by='recency'`); a memory without a
vector of the current embedder is still found, after the ranked ones, newest first.

Every embedding call is a ledger row (module `rag`), under the memory's tenant and person. Listing,
forgetting and the checks are `memory_book`'s, named here too.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import anyio.to_thread
import numpy as np
from pydantic_ai.embeddings import Embedder
from sqlalchemy import ColumnElement, or_, select
from sqlalchemy.orm import Session

from ..accounting import embedding_calls
from ..embeddings.choose import EmbedderUnavailable, embedder_for, embedder_name
from ..errors import VectorMemoryInvalid
from ..settings import Settings
from ..store import Store
from ..store.schema import utcnow
from ..store.vectors import VectorIndex, cosine_distances, index_of
from .memory_book import (
    MAX_CONTENT,
    PAGE,
    VectorMemoryFilters,
    VectorMemoryInput,
    check_conversation,
    check_label,
    checked,
    for_person,
    forget,
    forget_person,
    get,
    listing,
    visible,
)
from .memory_tables import VectorMemory

__all__ = [
    'MAX_CONTENT',
    'MAX_K',
    'MODULE',
    'PAGE',
    'RecallAnswer',
    'Recalled',
    'VectorMemories',
    'VectorMemoryFilters',
    'VectorMemoryInput',
    'check_label',
    'for_person',
    'forget',
    'forget_person',
    'get',
    'listing',
]

logger = logging.getLogger('synapse.retrieval')

MODULE = 'rag'
"""The ledger's module for embedding calls of retrieval."""
MAX_K = 100


@dataclass(frozen=True)
class Recalled:
    """One recall result: the memory and its cosine similarity (None when ranked by recency)."""

    memory: VectorMemory
    score: float | None


@dataclass(frozen=True)
class RecallAnswer:
    ranked_by: Literal['similarity', 'recency']
    embedder: str | None
    results: list[Recalled]


@dataclass
class VectorMemories:
    """Writing and recalling vector memories with the store's embedder and vector index."""

    store: Store
    settings: Settings
    embedder: Embedder | None
    index: VectorIndex
    embedder_problem: str | None = None
    """Why the `embedder` setting's embedder could not be made (then there is none: recency)."""

    @classmethod
    def of(cls, store: Store, settings: Settings) -> VectorMemories:
        """The vector memories of a store under `settings` (blocking: the index is read once)."""
        index = index_of(store.engine, settings.vector_store)
        try:
            return cls(store, settings, embedder_for(settings.embedder), index)
        except EmbedderUnavailable as exc:
            logger.warning('%s; vector memories are recalled by recency', exc)
            return cls(store, settings, None, index, str(exc))

    @property
    def embedder_name(self) -> str | None:
        return embedder_name(self.embedder)

    async def remember(self, memory: VectorMemoryInput) -> VectorMemory:
        """Write `memory` (checked first; its content embedded); the row written."""
        wanted = checked(memory)
        vectors = await self._embed(
            [wanted.content], wanted.tenant, wanted.person, wanted.conversation_id, 'document'
        )
        vector = vectors[0] if vectors is not None else None
        return await anyio.to_thread.run_sync(self._write, wanted, vector)

    async def recall(
        self,
        query: str,
        *,
        tenant: str,
        person: str | None = None,
        conversation_id: str | None = None,
        k: int = 10,
        source_types: Sequence[str] | None = None,
    ) -> RecallAnswer:
        """The `k` memories closest to `query` among `person`'s user-scoped ones and the
        conversation's conversation-scoped ones, in `tenant` (newest first without an embedder)."""
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= MAX_K:
            raise VectorMemoryInvalid('k', f'a whole number from 1 to {MAX_K}.', where='query')
        query = query.strip() if isinstance(query, str) else ''
        if not query:
            raise VectorMemoryInvalid('q', 'say what to look for.', where='query')
        where = visible(tenant, person, conversation_id, source_types)
        label = check_label('person', person, where='query')
        vectors = await self._embed([query], tenant, label, conversation_id or None, 'query')
        if vectors is None:
            found = await anyio.to_thread.run_sync(self._newest, where, k, None)
            return RecallAnswer('recency', self.embedder_name, found)
        ranked = await anyio.to_thread.run_sync(self._nearest, where, vectors[0], k)
        return RecallAnswer('similarity', self.embedder_name, ranked)

    # -- blocking ------------------------------------------------------------------------------

    def _write(self, memory: VectorMemoryInput, vector: np.ndarray | None) -> VectorMemory:
        name = self.embedder_name if vector is not None else None
        with self.store.write() as session:
            if memory.conversation_id is not None:
                check_conversation(session, memory.conversation_id, memory.tenant)
            row = VectorMemory(
                tenant=memory.tenant,
                person=memory.person,
                scope=memory.scope,
                conversation_id=memory.conversation_id,
                source_type=memory.source_type,
                content=memory.content,
                meta=dict(memory.meta),
                embedder=name,
                dimensions=len(vector) if vector is not None and name is not None else None,
                embedding=vector if name is not None else None,
                created_at=utcnow(),
            )
            session.add(row)
            session.flush()
            session.expunge(row)
        return row

    def _nearest(self, where: ColumnElement[bool], vector: np.ndarray, k: int) -> list[Recalled]:
        name = self.embedder_name
        assert name is not None
        with self.store.read() as session:
            ranked = self._ranked(session, where, vector, k, name)
            rows = {
                r.id: r
                for r in session.scalars(
                    select(VectorMemory).where(VectorMemory.id.in_([i for i, _ in ranked]))
                )
            }
            session.expunge_all()
        found = [Recalled(rows[i], round(1.0 - d, 6)) for i, d in ranked if i in rows]
        if len(found) < k:  # those with no vector of this embedder: after the ranked ones, newest first
            found += self._newest(where, k - len(found), name, skip={f.memory.id for f in found})
        return found

    def _ranked(
        self, session: Session, where: ColumnElement[bool], vector: np.ndarray, k: int, name: str
    ) -> list[tuple[str, float]]:
        """The ids and cosine distances of the `k` nearest memories matching `where`."""
        query = select(VectorMemory.id).where(
            where, VectorMemory.embedder == name, VectorMemory.dimensions == len(vector)
        )
        if self.index.in_sql:
            distance = self.index.distance(VectorMemory.embedding, vector).label('distance')
            ordered = query.add_columns(distance).order_by(distance, VectorMemory.id.desc()).limit(k)
            return [(i, float(d)) for i, d in session.execute(ordered)]
        pairs = list(session.execute(query.add_columns(VectorMemory.embedding)))
        distances = cosine_distances(vector, [v for _, v in pairs])
        order = sorted(range(len(pairs)), key=lambda n: (distances[n], _desc(pairs[n][0])))
        return [(pairs[n][0], distances[n]) for n in order[:k]]

    def _newest(
        self, where: ColumnElement[bool], k: int, unembedded_by: str | None, skip: set[str] | None = None
    ) -> list[Recalled]:
        if k <= 0:
            return []
        query = select(VectorMemory).where(where)
        if unembedded_by is not None:
            query = query.where(or_(VectorMemory.embedder.is_(None), VectorMemory.embedder != unembedded_by))
        if skip:
            query = query.where(VectorMemory.id.not_in(list(skip)))
        with self.store.read() as session:
            rows = list(session.scalars(query.order_by(VectorMemory.id.desc()).limit(k)))
            session.expunge_all()
        return [Recalled(row, None) for row in rows]

    # -- embedding -----------------------------------------------------------------------------

    async def _embed(
        self,
        texts: list[str],
        tenant: str,
        person: str | None,
        conversation_id: str | None,
        kind: Literal['query', 'document'],
    ) -> list[np.ndarray] | None:
        """The vectors of `texts`, with the call's ledger row; None without an embedder or on failure."""
        if self.embedder is None:
            return None
        started = time.perf_counter()
        try:
            if kind == 'query':
                result = await self.embedder.embed_query(texts)
            else:
                result = await self.embedder.embed_documents(texts)
        except Exception as exc:  # a provider error must not lose the memory: it is kept unembedded
            logger.warning(
                'embedding failed (%s: %s); vector memory kept without a vector', type(exc).__name__, exc
            )
            return None
        row = embedding_calls.embedding_row(
            result,
            self.settings,
            tenant=tenant,
            user=person,
            conversation_id=conversation_id,
            duration_ms=int((time.perf_counter() - started) * 1000),
            module=MODULE,
        )
        await anyio.to_thread.run_sync(embedding_calls.record, self.store, [row])
        return [np.asarray(v, dtype=np.float32) for v in result.embeddings]


def _desc(memory_id: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in memory_id)
