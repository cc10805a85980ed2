"""The ledger: one `llm_calls` row per model request, the accounting of every module's calls.

A ledger row that names a conversation belongs to it and goes with it; one that names none (a
call made outside any conversation) is accounting, not history, and stays. The rows are written
by the write queue (`store/turn_writes.py`); this module declares the table and reads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlalchemy import select

from ..schema import LlmCall
from ..tables import register_table
from .conversations import OWNER

if TYPE_CHECKING:
    from ..repository import Store

register_table(LlmCall, owner=OWNER, key='conversation_id')


class LedgerRepository:
    """Reads of the ledger (`store.ledger`)."""

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
