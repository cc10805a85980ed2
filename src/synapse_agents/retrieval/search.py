"""Searching the chunks of retrieval sources: by meaning, or by text without an embedder.

`search` looks in the active sources a tenant may see (a source with no tenant is shared; a source
with a tenant is seen only with that tenant; a source out of sight is answered as unknown), at the
chunks of the current embedder only (chunks of another embedder wait for `reembed`), optionally of
one file. It ranks by cosine similarity (`ranked_by='similarity'`); without an embedder, or when
embedding the query fails, it ranks by plain text match (`ranked_by='text'`: the share of the
query's words a chunk holds, then how often). Each result carries its citation.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import anyio.to_thread
import numpy as np
from sqlalchemy import ColumnElement, and_, func, or_, select
from sqlalchemy.orm import Session, defer

from ..errors import SourceInvalid, SourceNotFound
from ..settings import Settings
from ..store import Store
from ..store.ids import shown_id
from ..store.vectors import index_of
from .embedding import RagEmbedder
from .tables import RagChunk, RagSource
from .vector_search import nearest

logger = logging.getLogger('synapse.retrieval')

MAX_K = 100
MAX_QUERY_CHARS = 4000
TEXT_CANDIDATES = 5000
"""The most chunks the text ranking reads."""
_WORD = re.compile(r'\w+')
RankedBy = Literal['similarity', 'text']


@dataclass(frozen=True)
class Hit:
    """One result: the chunk, its score (cosine similarity, or the text match's) and its source."""

    score: float
    chunk: RagChunk
    source_slug: str
    source_name: str

    def as_json(self) -> dict[str, Any]:
        return {'score': self.score, 'chunk': chunk_json(self.chunk, self.source_slug, self.source_name)}


@dataclass(frozen=True)
class SearchAnswer:
    ranked_by: RankedBy
    embedder: str | None
    results: list[Hit]

    def as_json(self) -> dict[str, Any]:
        return {
            'embedder': self.embedder,
            'ranked_by': self.ranked_by,
            'results': [hit.as_json() for hit in self.results],
        }


def citation(chunk: RagChunk, slug: str, name: str) -> dict[str, Any]:
    """Where a chunk comes from: source, file, page, heading, and its place among its file's chunks."""
    meta = chunk.meta or {}
    return {
        'source': slug,
        'source_name': name,
        'file': meta.get('file', chunk.file_identifier),
        'page': meta.get('page'),
        'heading': meta.get('heading'),
        'chunk_index': chunk.chunk_index,
        'chunk_total': chunk.chunk_total,
    }


def chunk_json(chunk: RagChunk, slug: str, name: str) -> dict[str, Any]:
    """A chunk as the API shows it."""
    return {
        'id': chunk.id,
        'source': slug,
        'content': chunk.content,
        'chunk_index': chunk.chunk_index,
        'chunk_total': chunk.chunk_total,
        'citation': citation(chunk, slug, name),
    }


def visible_to(tenant: str | None) -> ColumnElement[bool]:
    """The sources `tenant` may see: the shared ones and its own."""
    if tenant is None:
        return RagSource.tenant.is_(None)
    return or_(RagSource.tenant.is_(None), RagSource.tenant == tenant)


async def search(
    store: Store,
    settings: Settings,
    query: str,
    *,
    sources: Sequence[str] = (),
    tenant: str | None = None,
    k: int = 10,
    file: str | None = None,
    embedder: RagEmbedder | None = None,
    user: str | None = None,
) -> SearchAnswer:
    """The `k` chunks nearest to `query` in the active sources named (slugs; none: every active source
    `tenant` may see), optionally of one `file` (its identifier). See the module docstring."""
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= MAX_K:
        raise SourceInvalid(f'k: a whole number from 1 to {MAX_K}.')
    query = query.strip() if isinstance(query, str) else ''
    if not query:
        raise SourceInvalid('q: say what to look for.')
    if len(query) > MAX_QUERY_CHARS:
        raise SourceInvalid(f'q: at most {MAX_QUERY_CHARS} characters.')
    chosen = await anyio.to_thread.run_sync(_sources, store, list(sources), tenant)
    rag = embedder if embedder is not None else RagEmbedder.of(settings)
    name = rag.name
    if not chosen:
        return SearchAnswer('similarity' if name else 'text', name, [])
    vector: np.ndarray | None = None
    if rag.embedder is not None:
        try:
            vector = (await rag.embed([query], store, settings, tenant=tenant, kind='query', user=user))[0]
        except Exception as exc:  # a provider's failure: the text ranking still answers
            logger.warning('embedding a query failed (%s: %s); ranked by text', type(exc).__name__, exc)
    ids = list(chosen)
    if vector is not None and name is not None:
        index = index_of(store.engine, settings.vector_store)

        def ranked() -> list[Hit]:
            with store.read() as session:
                pairs = nearest(session, index, _where(ids, tenant, file), vector, k, name)
                return _hits(session, [(i, round(1.0 - d, 6)) for i, d in pairs], chosen)

        return SearchAnswer('similarity', name, await anyio.to_thread.run_sync(ranked))

    def matched() -> list[Hit]:
        with store.read() as session:
            return _hits(session, _text_ranked(session, _where(ids, tenant, file), query, k), chosen)

    return SearchAnswer('text', name, await anyio.to_thread.run_sync(matched))


def _sources(store: Store, slugs: list[str], tenant: str | None) -> dict[str, tuple[str, str]]:
    """The ids of the searched sources, each with its slug and name; `SourceNotFound` for a slug the
    tenant cannot see."""
    query = select(RagSource.id, RagSource.slug, RagSource.name).where(visible_to(tenant), RagSource.active)
    if slugs:
        query = query.where(RagSource.slug.in_(slugs))
    with store.read() as session:
        found = {row[0]: (row[1], row[2]) for row in session.execute(query)}
    missing = sorted(set(slugs) - {slug for slug, _ in found.values()})
    if missing:
        raise SourceNotFound(f'No active source with slug {shown_id(missing[0])}.')
    return found


def _where(ids: list[str], tenant: str | None, file: str | None) -> ColumnElement[bool]:
    tenants = (
        RagChunk.tenant.is_(None)
        if tenant is None
        else or_(RagChunk.tenant.is_(None), RagChunk.tenant == tenant)
    )
    where = and_(RagChunk.source_id.in_(ids), tenants)
    if file:
        where = and_(where, RagChunk.file_identifier == file)
    return where


def _text_ranked(session: Session, where: ColumnElement[bool], query: str, k: int) -> list[tuple[str, float]]:
    terms = list(dict.fromkeys(w.lower() for w in _WORD.findall(query)))[:16]
    if not terms:
        return []
    lowered = func.lower(RagChunk.content)
    candidates = select(RagChunk.id, RagChunk.content).where(
        where, or_(*(lowered.contains(term, autoescape=True) for term in terms))
    )
    scored: list[tuple[float, int, str]] = []
    for chunk_id, content in session.execute(candidates.limit(TEXT_CANDIDATES)):
        words = [w.lower() for w in _WORD.findall(content)]
        counts = {term: words.count(term) for term in terms}
        held = sum(1 for c in counts.values() if c)
        if held:
            scored.append((held / len(terms), sum(counts.values()), chunk_id))
    scored.sort(key=lambda s: (-s[0], -s[1], s[2]))
    return [(chunk_id, round(share, 6)) for share, _, chunk_id in scored[:k]]


def _hits(
    session: Session, ranked: list[tuple[str, float]], sources: dict[str, tuple[str, str]]
) -> list[Hit]:
    if not ranked:
        return []
    query = select(RagChunk).options(defer(RagChunk.embedding)).where(RagChunk.id.in_([i for i, _ in ranked]))
    rows = {c.id: c for c in session.scalars(query)}
    session.expunge_all()
    hits = []
    for chunk_id, score in ranked:
        chunk = rows.get(chunk_id)
        if chunk is not None:
            slug, name = sources[chunk.source_id]
            hits.append(Hit(score, chunk, slug, name))
    return hits
