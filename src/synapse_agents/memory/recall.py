"""Writing memories with their vectors, and finding them again by meaning (docs/memory.md).

`Recall` holds what a root or a turn knows: the store, the settings, the embedder (None: none) and
the vector index. Everything degrades rather than breaks:

- no embedder, or the embedder fails: memories are written without a vector and search ranks by
  recency (`ranked_by='recency'`); nothing is lost;
- a memory without a vector of this embedder (written before embeddings were on, or by another
  embedder) is still found: after the ranked ones, newest first;
- a memory already stored on the same three axes is not written twice: the same words (its
  fingerprint), or, with an embedder, a vector within `DUPLICATE_DISTANCE` of it.

Every embedding call is a ledger row (module `embed`), under the memory's tenant.
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
from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from ..accounting import embedding_calls
from ..embeddings.choose import EmbedderUnavailable, embedder_for, embedder_name
from ..errors import MemoryInvalid, MemoryNotFound
from ..scope import Scope
from ..settings import Settings
from ..store import Store
from ..store.ids import shown_id
from ..store.schema import utcnow
from ..store.vectors import VectorIndex, cosine_distances, index_of
from . import book
from .tables import Memory, MemoryVector

logger = logging.getLogger('synapse.memory')

DUPLICATE_DISTANCE = 0.08
"""Cosine distance under which a new memory says what one on the same axes already says."""
MAX_K = 100
Axis = Literal['everyone', 'person']


@dataclass(frozen=True)
class Found:
    """One search result: the memory, its similarity (None when ranked by recency) and its axis."""

    memory: Memory
    score: float | None
    applies_to_everyone: bool


@dataclass(frozen=True)
class SearchAnswer:
    ranked_by: Literal['similarity', 'recency']
    embedder: str | None
    results: list[Found]


@dataclass
class Recall:
    """See the module docstring."""

    store: Store
    settings: Settings
    embedder: Embedder | None
    index: VectorIndex
    embedder_problem: str | None = None
    """Why the `embedder` setting's embedder could not be made (then there is none: recency)."""

    @classmethod
    def of(cls, store: Store, settings: Settings) -> Recall:
        """The recall of a store under `settings` (its embedder and vector index). An embedder that
        cannot be made (not installed, an unknown provider, no key) leaves search to recency and says
        why in `embedder_problem`: memories are still written and found."""
        index = index_of(store.engine, settings.vector_store)
        try:
            return cls(store, settings, embedder_for(settings.embedder), index)
        except EmbedderUnavailable as exc:
            logger.warning('%s; memories are searched by recency', exc)
            return cls(store, settings, None, index, str(exc))

    @property
    def embedder_name(self) -> str | None:
        return embedder_name(self.embedder)

    async def remember(
        self, memories: Sequence[book.MemoryInput], *, user: str | None = None
    ) -> list[Memory]:
        """Write those of `memories` not already stored (checked first); the rows written."""
        wanted = [book.checked(m) for m in memories]
        if not wanted:
            return []
        vectors = await self._embed([m.content for m in wanted], wanted[0].tenant, user, 'document')
        return await anyio.to_thread.run_sync(self._write, wanted, vectors)

    async def change(self, memory_id: str, changes: dict[str, object]) -> Memory:
        """Change a memory's content, subject or applies_to (a new content is embedded again)."""
        unknown = sorted(set(changes) - {'content', 'subject', 'applies_to'})
        if unknown:
            raise MemoryInvalid(unknown[0], 'not a field a memory may change (content, subject, applies_to).')
        current = await anyio.to_thread.run_sync(book.get, self.store, memory_id)
        values: dict[str, str | None] = {
            'content': book.check_content(changes.get('content', current.content)),
            'subject': book.check_label('subject', changes.get('subject', current.subject)),
            'applies_to': book.check_label('applies_to', changes.get('applies_to', current.applies_to)),
        }
        vectors = None
        if values['content'] != current.content:
            vectors = await self._embed([str(values['content'])], current.tenant, None, 'document')
        return await anyio.to_thread.run_sync(self._update, memory_id, values, vectors)

    async def search(self, scope: Scope, query: str, k: int = 10) -> SearchAnswer:
        """The `k` memories of `scope` closest to `query` in meaning (or the newest, without an
        embedder or when it fails), each with the axis it belongs to."""
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= MAX_K:
            raise MemoryInvalid('k', f'a whole number from 1 to {MAX_K}.', where='query')
        query = query.strip() if isinstance(query, str) else ''
        if not query:
            raise MemoryInvalid('q', 'say what to look for.', where='query')
        vectors = await self._embed([query], scope.label('tenant'), scope.label('actor'), 'query')
        if vectors is None:
            found = await anyio.to_thread.run_sync(self._newest, scope, k, set())
            return SearchAnswer('recency', self.embedder_name, found)
        ranked = await anyio.to_thread.run_sync(self._nearest, scope, vectors[0], k)
        return SearchAnswer('similarity', self.embedder_name, ranked)

    # -- blocking ------------------------------------------------------------------------------

    def _write(self, wanted: list[book.MemoryInput], vectors: list[np.ndarray] | None) -> list[Memory]:
        written: list[Memory] = []
        name = self.embedder_name
        with self.store.write() as session:
            for position, memory in enumerate(wanted):
                vector = vectors[position] if vectors is not None else None
                if self._stored_already(session, memory, vector, name):
                    continue
                row = book.new_row(memory)
                session.add(row)
                session.flush()
                if vector is not None and name is not None:
                    session.add(_vector_row(row, name, vector))
                    session.flush()
                written.append(row)
            session.expunge_all()
        return written

    def _stored_already(
        self, session: Session, memory: book.MemoryInput, vector: np.ndarray | None, name: str | None
    ) -> bool:
        same = book.same_place(memory)
        if session.scalar(
            select(Memory.id).where(same, Memory.fingerprint == book.fingerprint(memory.content)).limit(1)
        ):
            return True
        if vector is None or name is None:
            return False
        nearest = self._ranked(session, same, vector, 1, name)
        return bool(nearest) and nearest[0][1] <= DUPLICATE_DISTANCE

    def _update(
        self, memory_id: str, values: dict[str, str | None], vectors: list[np.ndarray] | None
    ) -> Memory:
        with self.store.write() as session:
            row = session.get(Memory, memory_id, with_for_update=True)
            if row is None:
                raise MemoryNotFound(f'No memory with id {shown_id(memory_id)}.')
            for name, value in values.items():
                setattr(row, name, value)
            row.fingerprint = book.fingerprint(row.content)
            row.updated_at = utcnow()
            vector = session.get(MemoryVector, memory_id)
            if vectors is not None:
                if vector is not None:
                    session.delete(vector)
                    session.flush()
                if self.embedder_name is not None:
                    session.add(_vector_row(row, self.embedder_name, vectors[0]))
            session.flush()
            session.expunge(row)
        return row

    def _nearest(self, scope: Scope, vector: np.ndarray, k: int) -> list[Found]:
        where = book.scope_filter(scope)
        if where is None or self.embedder_name is None:
            return []
        with self.store.read() as session:
            ranked = self._ranked(session, where, vector, k, self.embedder_name)
            rows = {
                r.id: r for r in session.scalars(select(Memory).where(Memory.id.in_([i for i, _ in ranked])))
            }
            session.expunge_all()
        found = [_found(rows[i], 1.0 - d) for i, d in ranked if i in rows]
        if len(found) < k:  # memories with no vector of this embedder: after the ranked ones, newest first
            found += self._newest(scope, k - len(found), {f.memory.id for f in found}, unembedded_only=True)
        return found

    def _ranked(
        self, session: Session, where: ColumnElement[bool], vector: np.ndarray, k: int, name: str
    ) -> list[tuple[str, float]]:
        """The ids and cosine distances of the `k` nearest memories matching `where`."""
        joined = select(MemoryVector.memory_id).join(Memory, Memory.id == MemoryVector.memory_id)
        joined = joined.where(where, MemoryVector.embedder == name, MemoryVector.dimensions == len(vector))
        if self.index.in_sql:
            distance = self.index.distance(MemoryVector.embedding, vector).label('distance')
            query = joined.add_columns(distance).order_by(distance, MemoryVector.memory_id.desc()).limit(k)
            return [(i, float(d)) for i, d in session.execute(query)]
        pairs = list(session.execute(joined.add_columns(MemoryVector.embedding)))
        distances = cosine_distances(vector, [v for _, v in pairs])
        if len(pairs) > k:  # the k nearest first, so only they are sorted with their tie-break
            cut = float(np.partition(np.asarray(distances), k - 1)[k - 1])
            near = [n for n in range(len(pairs)) if distances[n] <= cut]
        else:
            near = list(range(len(pairs)))
        order = sorted(near, key=lambda n: (distances[n], _desc(pairs[n][0])))
        return [(pairs[n][0], distances[n]) for n in order[:k]]

    def _newest(self, scope: Scope, k: int, skip: set[str], *, unembedded_only: bool = False) -> list[Found]:
        where = book.scope_filter(scope)
        if where is None or k <= 0:
            return []
        query = select(Memory).where(where)
        if unembedded_only and self.embedder_name is not None:
            embedded = select(MemoryVector.memory_id).where(MemoryVector.embedder == self.embedder_name)
            query = query.where(Memory.id.not_in(embedded))
        if skip:
            query = query.where(Memory.id.not_in(list(skip)))
        with self.store.read() as session:
            rows = list(session.scalars(query.order_by(Memory.id.desc()).limit(k)))
            session.expunge_all()
        return [_found(row, None) for row in rows]

    # -- embedding -----------------------------------------------------------------------------

    async def _embed(
        self, texts: list[str], tenant: str | None, user: str | None, kind: Literal['query', 'document']
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
                'embedding %d text(s) failed (%s: %s); kept without vectors',
                len(texts),
                type(exc).__name__,
                exc,
            )
            return None
        row = embedding_calls.embedding_row(
            result,
            self.settings,
            tenant=tenant,
            user=user,
            duration_ms=int((time.perf_counter() - started) * 1000),
        )
        await anyio.to_thread.run_sync(embedding_calls.record, self.store, [row])
        return [np.asarray(v, dtype=np.float32) for v in result.embeddings]


def _vector_row(row: Memory, name: str, vector: np.ndarray) -> MemoryVector:
    return MemoryVector(
        memory_id=row.id, tenant=row.tenant, embedder=name, dimensions=len(vector), embedding=vector
    )


def _found(row: Memory, score: float | None) -> Found:
    return Found(row, None if score is None else round(score, 6), row.applies_to is None)


def _desc(memory_id: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in memory_id)
