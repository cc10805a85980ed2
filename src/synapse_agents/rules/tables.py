"""The `rules` table (migration 0013): what a person wrote that an agent must follow.

A rule sits on the same axes as a conversation's scope, each a `type:id` string in the app's own
words: `tenant` (whose rule it is: required, so no rule is reachable from another tenant),
`subject` (what it is about; None: the tenant as a whole) and `applies_to` (who it applies to;
None: everyone in that scope). `created_by` is who wrote it, never who it applies to.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..store.ids import new_id
from ..store.schema import Base, utcnow


class Rule(Base):
    """One rule: its scope, its text, its place among the others, and whether it is on."""

    __tablename__ = 'rules'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant: Mapped[str] = mapped_column(String(511))
    """`type:id` of whose rule it is."""
    subject: Mapped[str | None] = mapped_column(String(511))
    """`type:id` of what it is about; None: every conversation of the tenant."""
    applies_to: Mapped[str | None] = mapped_column(String(511))
    """`type:id` of who it applies to (an actor); None: everyone in that scope."""
    text: Mapped[str] = mapped_column(Text)
    priority: Mapped[int] = mapped_column(Integer, default=0)
    """Lower first; ties in the order they were written."""
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    created_by: Mapped[str | None] = mapped_column(String(511))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (Index('ix_rules_tenant_subject', 'tenant', 'subject'),)
