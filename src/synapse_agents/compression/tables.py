"""The `history_summaries` table (migration 0014): one conversation's stored summary.

`Compression` keeps, per conversation, the summary that stands for the first `covered_messages`
model messages of its history (the last of them from run `last_run_id`, checked before the summary
is reused), how many summary calls it took, and the last failure: a failed summarisation is not
tried again until `retry_after_turns` turns exist. The row belongs to its conversation and is
deleted with it; the conversation's own messages are never changed.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..store.schema import Base, utcnow
from ..store.tables import register_table


class HistorySummary(Base):
    """The summary of a conversation's older turns."""

    __tablename__ = 'history_summaries'

    conversation_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    summary: Mapped[str | None] = mapped_column(Text)
    covered_messages: Mapped[int] = mapped_column(Integer, default=0)
    last_run_id: Mapped[str | None] = mapped_column(String(64))
    summary_calls: Mapped[int] = mapped_column(Integer, default=0)
    model: Mapped[str | None] = mapped_column(String(255))
    failures: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    retry_after_turns: Mapped[int | None] = mapped_column(Integer)
    """After a failure: the number of turns the history must reach before the next attempt."""
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


register_table(HistorySummary, owner='conversation', key='conversation_id')
