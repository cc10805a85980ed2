"""Indexing a source: its files read, cut into chunks, embedded and written, losing nothing on the way.

The rules (docs/retrieval.md says why):

- one run per source at a time (`claims`): a run that cannot claim the source is refused;
- incremental by content hash: a file whose bytes did not change is not read again nor re-embedded
  (unless `reembed` asks for its chunks of another embedder to be embedded with the current one);
- a new or changed file is extracted, chunked and embedded first; only then, in one transaction,
  its new chunks are written and its old ones deleted. A run killed at any moment leaves each file
  either in its old version or in its new one, never without one;
- a file that cannot be read (unreadable, too large, its embedding failed) is recorded `failed` with
  its error, its last good version (if any) stays searchable, and the run goes on;
- a file gone from the source is removed from the index;
- the source ends `done`, or `failed` only when its files cannot be listed (its folder vanished);
- the progress (processed/total, current file) is written on the source row before each file.

Every write begins with the claim's heartbeat: a run whose claim was taken over stops unwritten.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import anyio.to_thread
import numpy as np
import pluggy
from sqlalchemy import delete, func, or_, select, update

from ..errors import DocumentUnreadable, SourceConflict, SourceNotFound
from ..settings import Settings
from ..store import Store
from ..store.schema import utcnow
from ..store.vectors import index_of
from .chunking import Chunk, chunk_sections
from .claims import ClaimLost, beat, claim, release
from .connectors import SourceFile, connector_for
from .embedding import BATCH, RagEmbedder
from .extract import extract
from .tables import RagChunk, RagFile, RagSource
from .vector_search import ensure_hnsw_index

logger = logging.getLogger('synapse.retrieval')


@dataclass(frozen=True)
class Progress:
    """Where a run is: files processed of the total, and the file being read."""

    processed: int
    total: int
    current_file: str | None


@dataclass
class IndexOutcome:
    """What a run did."""

    source: str
    status: str = 'done'
    files: int = 0
    indexed: int = 0
    unchanged: int = 0
    reembedded: int = 0
    failed: int = 0
    removed: int = 0
    chunks: int = 0
    stale_chunks: int = 0
    embedder: str | None = None
    errors: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


ProgressCallback = Callable[[Progress], None]


async def index_source(
    store: Store,
    settings: Settings,
    manager: pluggy.PluginManager,
    source_id: str,
    *,
    reembed: bool = False,
    progress: ProgressCallback | None = None,
    embedder: RagEmbedder | None = None,
) -> IndexOutcome:
    """Index the source (see the module docstring); `SourceConflict` while another run holds it."""
    stale_after = settings.task_stale_seconds
    token = await anyio.to_thread.run_sync(claim, store, source_id, stale_after)
    if token is None:
        if await anyio.to_thread.run_sync(_exists, store, source_id):
            raise SourceConflict('The source is being indexed already.')
        raise SourceNotFound('No such source.')
    run = _Run(
        store, settings, manager, source_id, token, reembed, progress, embedder or RagEmbedder.of(settings)
    )
    try:
        return await run.go()
    except ClaimLost:
        run.outcome.status = 'lost'
        return run.outcome
    except BaseException as exc:  # an error, or a cancel: the claim is released at once (blocking)
        message = f'{type(exc).__name__}: {exc}'[:2000]
        release(store, source_id, token, status='failed', last_error=message)
        raise


def _exists(store: Store, source_id: str) -> bool:
    with store.read() as session:
        return session.get(RagSource, source_id) is not None


@dataclass
class _Run:
    store: Store
    settings: Settings
    manager: pluggy.PluginManager
    source_id: str
    token: str
    reembed: bool
    progress: ProgressCallback | None
    rag: RagEmbedder
    outcome: IndexOutcome = field(init=False)
    source: RagSource = field(init=False)
    _hnsw_ready: bool = False

    def __post_init__(self) -> None:
        self.outcome = IndexOutcome('', embedder=self.rag.name)

    async def go(self) -> IndexOutcome:
        self.source = await anyio.to_thread.run_sync(self._source)
        self.outcome.source = self.source.slug
        try:
            listed = await anyio.to_thread.run_sync(self._listed)
        except Exception as exc:  # the source itself cannot be read: the index is left as it was
            message = f'{type(exc).__name__}: {exc}'[:2000] if not str(exc) else str(exc)[:2000]
            await anyio.to_thread.run_sync(
                lambda: release(self.store, self.source_id, self.token, status='failed', last_error=message)
            )
            self.outcome.status = 'failed'
            self.outcome.errors.append(message)
            return self.outcome
        self.outcome.files = len(listed)
        known = await anyio.to_thread.run_sync(self._known)
        for number, source_file in enumerate(listed):
            await self._beat(
                total_files=len(listed), processed_files=number, current_file=source_file.identifier
            )
            self._tell(number, len(listed), source_file.identifier)
            await self._one(source_file, known.get(source_file.identifier))
        await self._beat(processed_files=len(listed), current_file=None)
        self._tell(len(listed), len(listed), None)
        gone = sorted(set(known) - {f.identifier for f in listed})
        for identifier in gone:
            await anyio.to_thread.run_sync(self._remove, identifier)
            self.outcome.removed += 1
        return await anyio.to_thread.run_sync(self._finish)

    # -- one file ---------------------------------------------------------------------------------

    async def _one(self, source_file: SourceFile, known: RagFile | None) -> None:
        limit = self.settings.rag_max_file_bytes
        try:
            if source_file.size is not None and source_file.size > limit:
                raise DocumentUnreadable(
                    f'{source_file.identifier}: {source_file.size} bytes is more than {limit}'
                )
            data = await anyio.to_thread.run_sync(source_file.read)
            if len(data) > limit:
                raise DocumentUnreadable(f'{source_file.identifier}: {len(data)} bytes is more than {limit}')
        except Exception as exc:  # unreadable, gone, refused by its server: this file only
            await self._failed(source_file.identifier, str(exc) or type(exc).__name__, 0)
            return
        digest = hashlib.sha256(data).hexdigest()
        if known is not None and known.status == 'indexed' and known.content_hash == digest:
            if self.reembed and self.rag.name is not None:
                await self._reembed(source_file.identifier)
            else:
                self.outcome.unchanged += 1
            return
        try:
            sections = await anyio.to_thread.run_sync(extract, source_file.name, data)
            chunks = chunk_sections(
                sections, max_chars=self.settings.rag_chunk_chars, overlap=self.settings.rag_chunk_overlap
            )
            vectors = await self._embed([c.text for c in chunks])
        except ClaimLost:
            raise
        except Exception as exc:  # unreadable, or its embedding failed: this file only
            await self._failed(source_file.identifier, str(exc) or type(exc).__name__, len(data))
            return
        await anyio.to_thread.run_sync(self._replace, source_file, digest, len(data), chunks, vectors)
        self.outcome.indexed += 1

    async def _embed(self, texts: Sequence[str]) -> list[np.ndarray] | None:
        if self.rag.embedder is None or not texts:
            return None
        vectors: list[np.ndarray] = []
        for start in range(0, len(texts), BATCH):
            vectors += await self.rag.embed(
                texts[start : start + BATCH], self.store, self.settings, tenant=self.source.tenant
            )
            await self._beat()
        if vectors and not self._hnsw_ready:
            index = index_of(self.store.engine, self.settings.vector_store)
            await anyio.to_thread.run_sync(ensure_hnsw_index, self.store.engine, index, len(vectors[0]))
            self._hnsw_ready = True
        return vectors

    async def _reembed(self, identifier: str) -> None:
        name = self.rag.name
        stale = await anyio.to_thread.run_sync(self._stale_of, identifier, name)
        if not stale:
            self.outcome.unchanged += 1
            return
        try:
            vectors = await self._embed([content for _, content in stale])
        except ClaimLost:
            raise
        except Exception as exc:
            self.outcome.failed += 1
            self.outcome.errors.append(f'{identifier}: re-embedding failed: {exc}'[:500])
            return
        assert vectors is not None

        def write() -> None:
            with self.store.write() as session:
                beat(session, self.source_id, self.token)
                for (chunk_id, _), vector in zip(stale, vectors, strict=True):
                    session.execute(
                        update(RagChunk)
                        .where(RagChunk.id == chunk_id)
                        .values(embedder=name, dimensions=len(vector), embedding=vector)
                        .execution_options(synchronize_session=False)
                    )

        await anyio.to_thread.run_sync(write)
        self.outcome.reembedded += 1

    async def _failed(self, identifier: str, error: str, size: int) -> None:
        self.outcome.failed += 1
        self.outcome.errors.append(error[:500])

        def write() -> None:
            with self.store.write() as session:
                beat(session, self.source_id, self.token)
                row = _file_row(session, self.source_id, identifier)
                row.status, row.error, row.size = 'failed', error[:4000], size

        await anyio.to_thread.run_sync(write)

    async def _beat(self, **values: Any) -> None:
        def write() -> None:
            with self.store.write() as session:
                beat(session, self.source_id, self.token, **values)

        await anyio.to_thread.run_sync(write)

    def _tell(self, processed: int, total: int, current: str | None) -> None:
        if self.progress is not None:
            self.progress(Progress(processed, total, current))

    # -- blocking -------------------------------------------------------------------------------

    def _source(self) -> RagSource:
        with self.store.read() as session:
            row = session.get(RagSource, self.source_id)
            if row is None:
                raise ClaimLost(self.source_id)
            session.expunge(row)
        return row

    def _listed(self) -> list[SourceFile]:
        connector = connector_for(self.source.kind, self.manager)
        listed: dict[str, SourceFile] = {}
        for source_file in connector.files(self.source.config, self.settings.home):
            listed.setdefault(source_file.identifier, source_file)
        return list(listed.values())

    def _known(self) -> dict[str, RagFile]:
        with self.store.read() as session:
            rows = list(session.scalars(select(RagFile).where(RagFile.source_id == self.source_id)))
            session.expunge_all()
        return {row.identifier: row for row in rows}

    def _stale_of(self, identifier: str, name: str | None) -> list[tuple[str, str]]:
        with self.store.read() as session:
            return [
                (row[0], row[1])
                for row in session.execute(
                    select(RagChunk.id, RagChunk.content)
                    .where(
                        RagChunk.source_id == self.source_id,
                        RagChunk.file_identifier == identifier,
                        or_(RagChunk.embedder.is_(None), RagChunk.embedder != name),
                    )
                    .order_by(RagChunk.chunk_index)
                )
            ]

    def _replace(
        self,
        source_file: SourceFile,
        digest: str,
        size: int,
        chunks: list[Chunk],
        vectors: list[np.ndarray] | None,
    ) -> None:
        """The file's new chunks written, then its old ones deleted: one transaction."""
        name = self.rag.name if vectors is not None else None
        with self.store.write() as session:
            beat(session, self.source_id, self.token)
            new_ids: list[str] = []
            for position, piece in enumerate(chunks):
                vector = vectors[position] if vectors is not None else None
                row = RagChunk(
                    source_id=self.source_id,
                    tenant=self.source.tenant,
                    file_identifier=source_file.identifier,
                    content=piece.text,
                    meta={
                        'source': self.source.name,
                        'file': source_file.identifier,
                        'page': piece.page,
                        'heading': piece.heading,
                    },
                    chunk_index=position,
                    chunk_total=len(chunks),
                    content_hash=digest,
                    embedder=name,
                    dimensions=len(vector) if vector is not None else None,
                    embedding=vector,
                )
                session.add(row)
                session.flush()
                new_ids.append(row.id)
            old = delete(RagChunk).where(
                RagChunk.source_id == self.source_id, RagChunk.file_identifier == source_file.identifier
            )
            if new_ids:
                old = old.where(RagChunk.id.not_in(new_ids))
            session.execute(old.execution_options(synchronize_session=False))
            row_file = _file_row(session, self.source_id, source_file.identifier)
            row_file.content_hash, row_file.status, row_file.error = digest, 'indexed', None
            row_file.chunk_count, row_file.size, row_file.indexed_at = len(chunks), size, utcnow()

    def _remove(self, identifier: str) -> None:
        with self.store.write() as session:
            beat(session, self.source_id, self.token)
            session.execute(
                delete(RagChunk)
                .where(RagChunk.source_id == self.source_id, RagChunk.file_identifier == identifier)
                .execution_options(synchronize_session=False)
            )
            session.execute(
                delete(RagFile)
                .where(RagFile.source_id == self.source_id, RagFile.identifier == identifier)
                .execution_options(synchronize_session=False)
            )

    def _finish(self) -> IndexOutcome:
        name = self.rag.name
        with self.store.read() as session:
            documents = session.scalar(
                select(func.count())
                .select_from(RagFile)
                .where(RagFile.source_id == self.source_id, RagFile.status == 'indexed')
            )
            chunks = session.scalar(
                select(func.count()).select_from(RagChunk).where(RagChunk.source_id == self.source_id)
            )
            stale: int | None = 0
            if name is not None:
                stale = session.scalar(
                    select(func.count())
                    .select_from(RagChunk)
                    .where(
                        RagChunk.source_id == self.source_id,
                        or_(RagChunk.embedder.is_(None), RagChunk.embedder != name),
                    )
                )
        self.outcome.chunks, self.outcome.stale_chunks = int(chunks or 0), int(stale or 0)
        failed = self.outcome.failed
        release(
            self.store,
            self.source_id,
            self.token,
            status='done',
            last_error=f'{failed} file(s) failed: {self.outcome.errors[0]}'[:2000] if failed else None,
            document_count=int(documents or 0),
            chunk_count=self.outcome.chunks,
            embedder=name,
            last_indexed_at=utcnow(),
        )
        return self.outcome


def _file_row(session: Any, source_id: str, identifier: str) -> RagFile:
    row: RagFile | None = session.scalar(
        select(RagFile).where(RagFile.source_id == source_id, RagFile.identifier == identifier)
    )
    if row is None:
        row = RagFile(source_id=source_id, identifier=identifier, status='failed', chunk_count=0, size=0)
        session.add(row)
    return row
