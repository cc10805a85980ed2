"""The memory tables (migration 0016): memories, their vectors, where distilling resumes, who shares.

A memory sits on three axes, each a `type:id` string in the app's own words: `tenant` (whose it is:
required, filled from the conversation, so no memory is reachable from another tenant), `subject`
(what it is about; None: the tenant as a whole) and `applies_to` (who it applies to; None: everyone
in that scope: applicability, not secrecy). `created_by` is who wrote it and `agent_key` the agent
that produced it, never who it applies to; deleting an agent or a conversation keeps its memories.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..store.ids import new_id
from ..store.schema import Base, JsonType, utcnow
from ..store.tables import register_table
from ..store.vectors import Embedding

SOURCES = ('distilled', 'tool', 'manual')


class Memory(Base):
    """One thing worth knowing later, on its three axes, with where it came from."""

    __tablename__ = 'memories'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant: Mapped[str] = mapped_column(String(511))
    subject: Mapped[str | None] = mapped_column(String(511))
    applies_to: Mapped[str | None] = mapped_column(String(511))
    content: Mapped[str] = mapped_column(Text)
    source: Mapped[str] = mapped_column(String(16))
    """`distilled`, `tool` (save_memory) or `manual` (the API, the CLI, the dashboard)."""
    created_by: Mapped[str | None] = mapped_column(String(511))
    agent_key: Mapped[str | None] = mapped_column(String(255))
    conversation_id: Mapped[str | None] = mapped_column(String(36))
    source_message_ids: Mapped[list[Any]] = mapped_column(JsonType, default=list)
    """The messages a distilled memory came from (kept when they are deleted: a memory outlives them)."""
    fingerprint: Mapped[str] = mapped_column(String(64))
    """The content's normal form, hashed: the same words in the same scope are not stored twice."""
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (
        Index('ix_memories_scope', 'tenant', 'subject', 'applies_to', 'id'),
        Index('ix_memories_applies_to', 'applies_to', 'tenant'),
        Index('ix_memories_fingerprint', 'tenant', 'fingerprint'),
    )


class MemoryVector(Base):
    """A memory's embedding, under the embedder that made it (vectors of two embedders never meet)."""

    __tablename__ = 'memory_vectors'

    memory_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    tenant: Mapped[str] = mapped_column(String(511))
    embedder: Mapped[str] = mapped_column(String(255))
    dimensions: Mapped[int] = mapped_column(Integer)
    embedding: Mapped[Any] = mapped_column(Embedding())

    __table_args__ = (Index('ix_memory_vectors_tenant', 'tenant', 'embedder'),)


class MemoryCursor(Base):
    """Where distilling a conversation resumes, and when it last ran (kept even when nothing was)."""

    __tablename__ = 'memory_cursors'

    conversation_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    distilled_until: Mapped[str | None] = mapped_column(String(36))
    """The id of the last message read by the distiller."""
    last_distilled_at: Mapped[datetime | None] = mapped_column()
    memories_written: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)


class MemorySharing(Base):
    """A person's choice about shared memories: True shares, False does not; no row: never chose."""

    __tablename__ = 'memory_sharing'

    actor: Mapped[str] = mapped_column(String(511), primary_key=True)
    share: Mapped[bool] = mapped_column(Boolean)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


register_table(MemoryCursor, owner='conversation', key='conversation_id')
