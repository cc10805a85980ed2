"""The ledger: one `llm_calls` row per model request, the accounting of every module's calls.

The ledger is the books: it outlives conversations. Deleting a conversation, pruning, clearing and
the sweep of orphans remove its history, never its ledger rows, whose `conversation_id` then names a
conversation that is gone; spend reports and spending limits read only the ledger, so what was
spent stays spent. The rows are written by the write queue (`conversations/turn_writes.py`); the
table is declared in `tables.py`; this module reads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlalchemy import select

from .tables import LlmCall

if TYPE_CHECKING:
    from ..store.repository import Store


class LedgerRepository:
    """Reads of the ledger: `LedgerRepository(store)`."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def for_conversation(self, conversation_id: str) -> Sequence[LlmCall]:
        """The conversation's model requests in the order they were made."""
        with self.store.read() as session:
            return session.scalars(
                select(LlmCall).where(LlmCall.conversation_id == conversation_id).order_by(LlmCall.id)
            ).all()

    def for_run(self, run_id: str) -> Sequence[LlmCall]:
        """The model requests of one run, in the order they were made."""
        with self.store.read() as session:
            return session.scalars(select(LlmCall).where(LlmCall.run_id == run_id).order_by(LlmCall.id)).all()
