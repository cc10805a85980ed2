"""Reading and writing a conversation's stored summary (blocking: call from a thread)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from ..store import Store
from ..store.schema import utcnow
from .tables import HistorySummary


@dataclass(frozen=True)
class Stored:
    """What `load` found for a conversation (all empty when nothing is stored)."""

    summary: str | None = None
    covered_messages: int = 0
    last_run_id: str | None = None
    summary_calls: int = 0
    retry_after_turns: int | None = None


def load(store: Store, conversation_id: str) -> Stored:
    with store.read() as session:
        row = session.get(HistorySummary, conversation_id)
        if row is None:
            return Stored()
        return Stored(
            summary=row.summary,
            covered_messages=row.covered_messages,
            last_run_id=row.last_run_id,
            summary_calls=row.summary_calls,
            retry_after_turns=row.retry_after_turns,
        )


def save_summary(
    store: Store, conversation_id: str, summary: str, covered: int, last_run_id: str | None, model: str
) -> int:
    """Store a new or extended summary; the number of summary calls the conversation took so far."""
    with store.write() as session:
        row = _row(session, conversation_id)
        row.summary = summary
        row.covered_messages = covered
        row.last_run_id = last_run_id
        row.model = model
        row.summary_calls = (row.summary_calls or 0) + 1
        row.retry_after_turns = None
        row.last_error = None
        row.updated_at = utcnow()
        return row.summary_calls


def save_failure(store: Store, conversation_id: str, error: str, retry_after_turns: int) -> None:
    """Remember a failed summarisation: not tried again before the history has `retry_after_turns` turns."""
    with store.write() as session:
        row = _row(session, conversation_id)
        row.failures = (row.failures or 0) + 1
        row.last_error = error[:2000]
        row.retry_after_turns = retry_after_turns
        row.updated_at = utcnow()


def _row(session: Session, conversation_id: str) -> HistorySummary:
    row = session.get(HistorySummary, conversation_id, with_for_update=True)
    if row is None:
        now = utcnow()
        row = HistorySummary(
            conversation_id=conversation_id,
            covered_messages=0,
            summary_calls=0,
            failures=0,
            created_at=now,
            updated_at=now,
        )
        session.add(row)
    return row
