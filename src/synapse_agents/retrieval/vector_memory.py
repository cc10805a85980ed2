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

Every embedding call is a ledger row (module `rag`), under the memory's tenant and person.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio.to_thread
import numpy as np
from pydantic_ai.embeddings import Embedder
from sqlalchemy import ColumnElement, and_, delete, false, or_, select
from sqlalchemy.orm import Session

from ..accounting import embedding_calls
from ..conversations.tables import Conversation
from ..embeddings.choose import EmbedderUnavailable, embedder_for, embedder_name
from ..errors import VectorMemoryInvalid, VectorMemoryNotFound
from ..rules import book as rules_book
from ..settings import Settings
from ..store import Store
from ..store.ids import is_valid_id, shown_id
from ..store.schema import utcnow
from ..store.vectors import VectorIndex, cosine_distances, index_of
from .memory_tables import SCOPES, SOURCE_TYPES, VectorMemory

logger = logging.getLogger('synapse.retrieval')

MODULE = 'rag'
"""The ledger's module for embedding calls of retrieval."""
MAX_CONTENT = 20_000
"""The longest vector memory, in characters (a fact, or a passage of a document)."""
MAX_META_BYTES = 16_384
"""The largest `meta`, as JSON."""
MAX_K = 100
PAGE = 50
Scope = Literal['user', 'conversation']
SourceType = Literal['fact', 'document', 'manual']


@dataclass(frozen=True)
class VectorMemoryInput:
    """A vector memory to write (checked by `checked`)."""

    tenant: str
    content: str
    scope: str = 'user'
    person: str | None = None
    conversation_id: str | None = None
    source_type: str = 'manual'
    meta: Mapping[str, Any] = field(default_factory=dict)


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


@dataclass(frozen=True)
class VectorMemoryFilters:
    """Browse filters within one tenant: None for any; `person=''`: only those of no person."""

    tenant: str
    person: str | None = None
    scope: str | None = None
    conversation_id: str | None = None
    source_type: str | None = None


# -- checks --------------------------------------------------------------------------------------


def check_label(name: str, value: Any, *, required: bool = False, where: str = 'body') -> str | None:
    """`value` as a stored `type:id` label, or `VectorMemoryInvalid` naming the field."""
    if required and (value is None or value == ''):
        raise VectorMemoryInvalid(name, "required: a 'type:id' (for example 'user:42').", where=where)
    try:
        return rules_book.check_label(name, value, whose='vector memory', error=VectorMemoryInvalid)
    except VectorMemoryInvalid as exc:
        raise VectorMemoryInvalid(name, exc.problem, where=where) from None


def checked(memory: VectorMemoryInput) -> VectorMemoryInput:
    """`memory` in stored form, or `VectorMemoryInvalid` naming the field at fault."""
    if memory.scope not in SCOPES:
        raise VectorMemoryInvalid('scope', f'one of {", ".join(SCOPES)}, not {memory.scope!r:.40}.')
    if memory.source_type not in SOURCE_TYPES:
        raise VectorMemoryInvalid(
            'source_type', f'one of {", ".join(SOURCE_TYPES)}, not {memory.source_type!r:.40}.'
        )
    tenant = check_label('tenant', memory.tenant, required=True) or ''
    person = check_label('person', memory.person, required=memory.scope == 'user')
    conversation_id = memory.conversation_id or None
    if memory.scope == 'user' and conversation_id is not None:
        raise VectorMemoryInvalid(
            'conversation_id',
            'a user-scoped memory outlives every conversation: name none (its origin may go in meta).',
        )
    if memory.scope == 'conversation':
        if conversation_id is None:
            raise VectorMemoryInvalid('conversation_id', 'required for a conversation-scoped memory.')
        if not isinstance(conversation_id, str) or not is_valid_id(conversation_id):
            raise VectorMemoryInvalid(
                'conversation_id', f'no conversation with id {shown_id(str(conversation_id))}.'
            )
    content = rules_book.check_text(
        memory.content, field='content', what='a vector memory', limit=MAX_CONTENT, error=VectorMemoryInvalid
    )
    return VectorMemoryInput(
        tenant=tenant,
        content=content,
        scope=memory.scope,
        person=person,
        conversation_id=conversation_id,
        source_type=memory.source_type,
        meta=check_meta(memory.meta),
    )


def check_meta(meta: Any) -> dict[str, Any]:
    """`meta` as stored: a JSON object of at most `MAX_META_BYTES`, with no NUL and no NaN."""
    if meta is None:
        return {}
    if not isinstance(meta, Mapping):
        raise VectorMemoryInvalid('meta', f'expected a JSON object, got {type(meta).__name__}.')
    try:
        text = json.dumps(dict(meta), allow_nan=False, ensure_ascii=True)
    except (TypeError, ValueError) as exc:
        raise VectorMemoryInvalid('meta', f'not plain JSON: {exc}.') from None
    if len(text) > MAX_META_BYTES:
        raise VectorMemoryInvalid('meta', f'{len(text)} bytes of JSON is more than {MAX_META_BYTES}.')
    if '\\u0000' in text:
        raise VectorMemoryInvalid('meta', 'NUL characters are not accepted.')
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _check_choice(name: str, value: str | None, choices: Sequence[str]) -> None:
    if value is not None and value not in choices:
        raise VectorMemoryInvalid(name, f'one of {", ".join(choices)}.', where='query')


# -- reads and deletes (blocking) ----------------------------------------------------------------


def listing(
    store: Store, filters: VectorMemoryFilters, *, cursor: str | None = None, limit: int = PAGE
) -> tuple[list[VectorMemory], str | None]:
    """A page of one tenant's vector memories, newest first, and the next page's cursor (None: last)."""
    conditions: list[ColumnElement[bool]] = [
        VectorMemory.tenant == check_label('tenant', filters.tenant, required=True, where='query')
    ]
    if filters.person == '':
        conditions.append(VectorMemory.person.is_(None))
    elif filters.person is not None:
        conditions.append(VectorMemory.person == check_label('person', filters.person, where='query'))
    _check_choice('scope', filters.scope, SCOPES)
    _check_choice('source_type', filters.source_type, SOURCE_TYPES)
    if filters.scope is not None:
        conditions.append(VectorMemory.scope == filters.scope)
    if filters.source_type is not None:
        conditions.append(VectorMemory.source_type == filters.source_type)
    if filters.conversation_id is not None:
        if not is_valid_id(filters.conversation_id):
            return [], None
        conditions.append(VectorMemory.conversation_id == filters.conversation_id)
    if cursor is not None:
        if not is_valid_id(cursor):
            raise VectorMemoryInvalid('cursor', 'not a cursor this API gave.', where='query')
        conditions.append(VectorMemory.id < cursor)
    query = select(VectorMemory).where(*conditions).order_by(VectorMemory.id.desc()).limit(limit + 1)
    with store.read() as session:
        rows = list(session.scalars(query))
        session.expunge_all()
    more = len(rows) > limit
    rows = rows[:limit]
    return rows, (rows[-1].id if more and rows else None)


def get(store: Store, memory_id: str, tenant: str | None = None) -> VectorMemory:
    """One vector memory (of `tenant`, when given), or `VectorMemoryNotFound`."""
    within = check_label('tenant', tenant, where='query')
    if not is_valid_id(memory_id):
        raise VectorMemoryNotFound(f'No vector memory with id {shown_id(memory_id)}.')
    with store.read() as session:
        row = session.get(VectorMemory, memory_id)
        if row is None or (within is not None and row.tenant != within):
            raise VectorMemoryNotFound(f'No vector memory with id {shown_id(memory_id)}.')
        session.expunge(row)
        return row


def forget(store: Store, memory_id: str, tenant: str | None = None) -> VectorMemory:
    """Delete one vector memory (of `tenant`, when given) for good; the row deleted."""
    within = check_label('tenant', tenant, where='query')
    if not is_valid_id(memory_id):
        raise VectorMemoryNotFound(f'No vector memory with id {shown_id(memory_id)}.')
    with store.write() as session:
        row = session.get(VectorMemory, memory_id)
        if row is None or (within is not None and row.tenant != within):
            raise VectorMemoryNotFound(f'No vector memory with id {shown_id(memory_id)}.')
        session.delete(row)
        session.flush()
        session.expunge(row)
    return row


def for_person(store: Store, person: str, tenant: str) -> list[VectorMemory]:
    """Every vector memory of `person` in `tenant` (either scope), newest first."""
    where = _of_person(person, tenant)
    with store.read() as session:
        rows = list(session.scalars(select(VectorMemory).where(where).order_by(VectorMemory.id.desc())))
        session.expunge_all()
    return rows


def forget_person(store: Store, person: str, tenant: str) -> int:
    """Delete every vector memory of `person` in `tenant` (either scope); how many went."""
    where = _of_person(person, tenant)
    with store.write() as session:
        result = session.execute(delete(VectorMemory).where(where))
    return int(getattr(result, 'rowcount', 0) or 0)


def _of_person(person: str, tenant: str) -> ColumnElement[bool]:
    return and_(
        VectorMemory.tenant == check_label('tenant', tenant, required=True, where='query'),
        VectorMemory.person == check_label('person', person, required=True, where='path'),
    )


# -- writing and recalling -----------------------------------------------------------------------


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
                _check_conversation(session, memory.conversation_id, memory.tenant)
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


def visible(
    tenant: str,
    person: str | None,
    conversation_id: str | None,
    source_types: Sequence[str] | None = None,
) -> ColumnElement[bool]:
    """What a recall for `person` in `conversation_id` sees in `tenant` (see the module docstring)."""
    tenant_label = check_label('tenant', tenant, required=True, where='query')
    person_label = check_label('person', person, where='query')
    if person_label is None and not conversation_id:
        raise VectorMemoryInvalid('person', 'name a person, a conversation or both.', where='query')
    mine = (
        and_(VectorMemory.scope == 'user', VectorMemory.person == person_label)
        if person_label is not None
        else false()
    )
    this_conversation = (
        and_(VectorMemory.scope == 'conversation', VectorMemory.conversation_id == conversation_id)
        if conversation_id and is_valid_id(conversation_id)
        else false()
    )
    conditions = [VectorMemory.tenant == tenant_label, or_(mine, this_conversation)]
    if source_types:
        for source_type in source_types:
            _check_choice('source_type', source_type, SOURCE_TYPES)
        conditions.append(VectorMemory.source_type.in_(list(source_types)))
    return and_(*conditions)


def _check_conversation(session: Session, conversation_id: str, tenant: str) -> None:
    """The conversation exists and is of `tenant`, or `VectorMemoryInvalid` naming `conversation_id`."""
    row = session.get(Conversation, conversation_id)
    if row is None:
        raise VectorMemoryInvalid('conversation_id', f'no conversation with id {shown_id(conversation_id)}.')
    owner = f'{row.tenant_type}:{row.tenant_id}' if row.tenant_type and row.tenant_id else None
    if owner != tenant:
        raise VectorMemoryInvalid(
            'conversation_id',
            f'conversation {shown_id(conversation_id)} is not one of tenant {tenant} '
            "(a conversation-scoped memory is of its conversation's tenant).",
        )


def _desc(memory_id: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in memory_id)
