"""The vector memory table (migration 0024): what an app asked to remember, recalled by meaning.

A vector memory sits on the memories' shared index (`store/vectors.py`) and is keyed like them:
`tenant` (a `type:id`, required: no row is reachable from another tenant) and `person` (the
`type:id` of the actor it belongs to or is about). Its `scope` says how long it lives:

- `user`: permanent, the person's own (a `person` is required, no conversation is named);
- `conversation`: ephemeral, removed with its conversation (`conversation_id` required): the table
  is registered as part of the conversation aggregate, so deleting, pruning or clearing
  conversations removes these rows, and a user-scoped row (its `conversation_id` NULL) belongs to
  no conversation and is never removed with one.

`embedder`, `dimensions` and `embedding` are NULL when nothing could embed the content (no
embedder, or it failed): the row is kept and found by recency.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..store.ids import new_id
from ..store.schema import Base, JsonType, utcnow
from ..store.tables import register_table
from ..store.vectors import Embedding

SCOPES = ('user', 'conversation')
SOURCE_TYPES = ('fact', 'document', 'manual')


class VectorMemory(Base):
    """One remembered text of a tenant, for a person or a conversation, with its vector."""

    __tablename__ = 'vector_memories'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant: Mapped[str] = mapped_column(String(511))
    person: Mapped[str | None] = mapped_column(String(511))
    """The actor it belongs to or is about (`type:id`); required for scope `user`."""
    scope: Mapped[str] = mapped_column(String(16))
    """`user` (permanent) or `conversation` (removed with its conversation)."""
    conversation_id: Mapped[str | None] = mapped_column(String(36))
    """The conversation of a `conversation`-scoped memory; NULL for a `user`-scoped one."""
    source_type: Mapped[str] = mapped_column(String(16))
    """`fact`, `document` or `manual`."""
    content: Mapped[str] = mapped_column(Text)
    meta: Mapped[dict[str, Any]] = mapped_column(JsonType, default=dict)
    embedder: Mapped[str | None] = mapped_column(String(255))
    dimensions: Mapped[int | None] = mapped_column(Integer)
    embedding: Mapped[Any] = mapped_column(Embedding(), nullable=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (
        Index('ix_vector_memories_person', 'tenant', 'person', 'id'),
        Index('ix_vector_memories_conversation', 'conversation_id'),
        Index('ix_vector_memories_embedder', 'tenant', 'embedder', 'dimensions'),
    )


register_table(VectorMemory, owner='conversation', key='conversation_id')
