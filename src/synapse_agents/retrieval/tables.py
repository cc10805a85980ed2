"""The retrieval tables (migration 0023): sources, the files indexed from them, and their chunks.

A source is what is searched: a folder, uploaded files or a connector's files (`kind` and its
`config`). Its `tenant` (a `type:id` label) is None for a source every tenant may use, and set for
a source only that tenant's turns and searches see; each chunk carries the same tenant, so a search
filters chunks by tenant without reading the source. A source is an aggregate: deleting it deletes
its files and chunks (`register_table`, the repository layer's cascade).

One indexing run per source at a time is decided in the database: a run writes its `claim` token
and keeps `heartbeat_at` fresh; a claim whose heartbeat is older than the `task_stale_seconds`
setting is taken over (its run was killed).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from ..store.ids import new_id
from ..store.schema import Base, JsonType, UtcDateTime, utcnow
from ..store.tables import register_table
from ..store.vectors import Embedding

OWNER = 'rag_source'
STATUSES = ('pending', 'indexing', 'done', 'failed')
FILE_STATUSES = ('indexed', 'failed')


class RagSource(Base):
    """A place documents come from, with its indexing state and live progress."""

    __tablename__ = 'rag_sources'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    slug: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str | None] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(String(64))
    config: Mapped[dict[str, Any]] = mapped_column(JsonType, default=dict)
    tenant: Mapped[str | None] = mapped_column(String(511))
    """None: every tenant may use it; `type:id`: only that tenant."""
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    status: Mapped[str] = mapped_column(String(16), default='pending')
    last_error: Mapped[str | None] = mapped_column(Text)
    total_files: Mapped[int] = mapped_column(Integer, default=0)
    processed_files: Mapped[int] = mapped_column(Integer, default=0)
    current_file: Mapped[str | None] = mapped_column(Text)
    document_count: Mapped[int] = mapped_column(Integer, default=0)
    """Files indexed (their chunks searchable)."""
    chunk_count: Mapped[int] = mapped_column(Integer, default=0)
    embedder: Mapped[str | None] = mapped_column(String(255))
    """The embedder the last run embedded with (None: none, text search only)."""
    last_indexed_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    claim: Mapped[str | None] = mapped_column(String(36))
    """The token of the run indexing the source (None: none)."""
    claimed_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    heartbeat_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)


class RagFile(Base):
    """One file of a source as last indexed: its content hash, and whether it could be read."""

    __tablename__ = 'rag_files'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    source_id: Mapped[str] = mapped_column(String(36))
    identifier: Mapped[str] = mapped_column(String(2000))
    """Stable within the source: the relative path, the URL."""
    content_hash: Mapped[str | None] = mapped_column(String(64))
    """sha256 of the bytes indexed (None: never indexed, failed the first time)."""
    status: Mapped[str] = mapped_column(String(16))
    error: Mapped[str | None] = mapped_column(Text)
    chunk_count: Mapped[int] = mapped_column(Integer, default=0)
    size: Mapped[int] = mapped_column(Integer, default=0)
    indexed_at: Mapped[datetime | None] = mapped_column(UtcDateTime())

    __table_args__ = (UniqueConstraint('source_id', 'identifier', name='uq_rag_files_source_identifier'),)


class RagChunk(Base):
    """A passage of a file (a "document"): its text, where it came from, and its vector."""

    __tablename__ = 'rag_chunks'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    source_id: Mapped[str] = mapped_column(String(36))
    tenant: Mapped[str | None] = mapped_column(String(511))
    """Copied from the source."""
    file_identifier: Mapped[str] = mapped_column(String(2000))
    content: Mapped[str] = mapped_column(Text)
    meta: Mapped[dict[str, Any]] = mapped_column(JsonType, default=dict)
    """`source` (the source's name), `file`, `page`, `heading`."""
    chunk_index: Mapped[int] = mapped_column(Integer)
    chunk_total: Mapped[int] = mapped_column(Integer)
    content_hash: Mapped[str] = mapped_column(String(64))
    """The hash of the file version the chunk was cut from."""
    embedder: Mapped[str | None] = mapped_column(String(255))
    dimensions: Mapped[int | None] = mapped_column(Integer)
    embedding: Mapped[Any] = mapped_column(Embedding(), nullable=True)

    __table_args__ = (
        Index('ix_rag_chunks_file', 'source_id', 'file_identifier', 'content_hash'),
        Index('ix_rag_chunks_search', 'source_id', 'embedder', 'dimensions'),
        Index('ix_rag_chunks_tenant', 'tenant', 'source_id'),
    )


register_table(RagSource, owner=OWNER, key='id', root=True)
register_table(RagFile, owner=OWNER, key='source_id')
register_table(RagChunk, owner=OWNER, key='source_id')
