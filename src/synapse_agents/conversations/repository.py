"""The conversation aggregate: a conversation, its messages, its tool invocations and its files.

Its tables are declared in `tables.py` (the ledger's in `accounting/tables.py`, the traces' in
`traces/tables.py`: all imported here, so a delete covers them); deleting a conversation removes
every registered row of it, then its attachment folder. Files go only for conversations whose rows this
delete found in the database, through `files.remove_inside`: an id from a URL never names a folder
by itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Row, bindparam, func, select

from ..accounting import tables as _accounting_tables  # noqa: F401  (the kept ledger, in every report)
from ..store.ids import is_valid_id
from ..store.tables import DeletionReport
from ..traces import tables as _trace_tables  # noqa: F401  (a conversation's traces go with it)
from . import prompt_contexts as _prompt_contexts  # noqa: F401  (and what filled its prompts)
from .files import owned_entries, remove_inside
from .forks import fork_conversation
from .history import ConversationFilters, list_conversations
from .rows import ConversationSummary, ConversationThread, ToolCallDetail
from .tables import OWNER, Conversation, Message, ToolInvocation
from .thread import conversation_thread, tool_invocation

if TYPE_CHECKING:
    from ..store.repository import Store

_CHUNK = 500

FACTS = select(
    Conversation.id,
    Conversation.agent_key,
    Conversation.tenant_type,
    Conversation.tenant_id,
    Conversation.actor_type,
    Conversation.actor_id,
    Conversation.subject_type,
    Conversation.subject_id,
    Conversation.deps_values,
).where(Conversation.id == bindparam('id'))
"""What continuing a conversation reads of it: whose it is, its scope, its stored deps values."""


class ConversationRepository:
    """Conversations and what belongs to one: `ConversationRepository(store)`."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # -- reading and writing -------------------------------------------------------------

    def create(
        self,
        *,
        agent_key: str,
        agent_name: str = '',
        title: str = '',
        origin: str = 'playground',
        **scope: Any,
    ) -> Conversation:
        conversation = Conversation(
            agent_key=agent_key,
            agent_name=agent_name,
            title=title,
            origin=origin,
            has_error=False,
            message_count=0,
            tool_count=0,
            input_tokens=0,
            output_tokens=0,
            **scope,
        )
        with self.store.write() as session:
            session.add(conversation)
        return conversation

    def facts(self, conversation_id: str) -> Row[Any] | None:
        """Whose the conversation is and in which scope, as `FACTS` reads them (None: not stored)."""
        if not is_valid_id(conversation_id):
            return None
        with self.store.read() as session:
            return session.execute(FACTS, {'id': conversation_id}).first()

    def get(self, conversation_id: str) -> Conversation | None:
        if not is_valid_id(conversation_id):
            return None
        with self.store.read() as session:
            return session.get(Conversation, conversation_id)

    def rename(self, conversation_id: str, title: str) -> Conversation | None:
        if not is_valid_id(conversation_id):
            return None
        with self.store.write() as session:
            conversation = session.get(Conversation, conversation_id)
            if conversation is None:
                return None
            conversation.title = title  # not activity: `updated_at` (the history's order) stays
            return conversation

    def fork(
        self, source_id: str, message_id: str, *, origin: str = 'playground', title: str | None = None
    ) -> Conversation:
        """A new conversation holding copies of the source's rows before its user message
        `message_id` (see `conversations/forks.py`). Raises `ConversationNotFound`,
        `NotAUserMessage` or `TurnInFlight` (`errors.py`)."""
        return fork_conversation(self.store, source_id, message_id, origin=origin, title=title)

    def messages(self, conversation_id: str) -> Sequence[Message]:
        """The conversation's rows in the order they were written."""
        with self.store.read() as session:
            return session.scalars(
                select(Message).where(Message.conversation_id == conversation_id).order_by(Message.id)
            ).all()

    def tool_invocations(self, conversation_id: str) -> Sequence[ToolInvocation]:
        with self.store.read() as session:
            return session.scalars(
                select(ToolInvocation)
                .where(ToolInvocation.conversation_id == conversation_id)
                .order_by(ToolInvocation.started_at, ToolInvocation.id)
            ).all()

    def page(self, filters: ConversationFilters) -> tuple[list[ConversationSummary], int, bool]:
        """One page of the history list: rows, total, whether the total is exact."""
        return list_conversations(self.store, filters)

    def thread(self, conversation_id: str) -> ConversationThread | None:
        """The whole conversation in order, with its tool calls inside the answers that made them."""
        return conversation_thread(self.store, conversation_id)

    def tool_invocation(self, tool_id: str) -> ToolCallDetail | None:
        """One tool invocation with its arguments and result in full."""
        return tool_invocation(self.store, tool_id)

    def files_dir(self, conversation_id: str) -> Path:
        """Where a conversation's uploads live: one folder each, so deleting is one rmtree."""
        if not is_valid_id(conversation_id):
            raise ValueError(f'not a conversation id: {conversation_id[:60]!r}')
        return self.store.attachments_dir / conversation_id

    # -- deleting ------------------------------------------------------------------------

    def delete(self, conversation_id: str) -> DeletionReport:
        """Remove one conversation with every registered row of it and its files.

        An id that is not one of Synapse's removes nothing and touches neither the database nor the disk.
        """
        if not is_valid_id(conversation_id):
            return self.store.tables.empty_report(OWNER)
        return self._delete_ids([conversation_id])

    def prune(self, days: int, *, now: datetime | None = None) -> DeletionReport:
        """Remove conversations not updated in the last `days` days."""
        cutoff = (now or datetime.now(UTC)) - timedelta(days=days)
        return self._delete_where(Conversation.updated_at < cutoff)

    def count_older_than(self, days: int, *, now: datetime | None = None) -> int:
        """How many conversations `prune(days)` would remove."""
        cutoff = (now or datetime.now(UTC)) - timedelta(days=days)
        with self.store.read() as session:
            return session.scalar(select(func.count()).where(Conversation.updated_at < cutoff)) or 0

    def clear(self) -> DeletionReport:
        """Remove every conversation, everything that belongs to one, and what a crash left behind."""
        report = self._delete_where(None)
        # Rows whose conversation row is already gone (a crash between writes) go too.
        with self.store.write() as session:
            report += self.store.tables.delete_orphans(session.connection(), OWNER)
        # Folders a crash left behind; only Synapse's own (named with an id) are touched.
        for leftover in owned_entries(self.store.attachments_dir):
            report += self._remove_files(leftover)
        return report

    def _delete_where(self, condition: Any) -> DeletionReport:
        report = self.store.tables.empty_report(OWNER)
        query = select(Conversation.id).limit(_CHUNK)
        if condition is not None:
            query = query.where(condition)
        while True:
            with self.store.read() as session:
                ids = list(session.scalars(query))
            if not ids:
                return report
            report += self._delete_ids(ids)

    def _delete_ids(self, ids: list[str]) -> DeletionReport:
        with self.store.write() as session:
            report = self.store.tables.delete_owned(session.connection(), OWNER, ids)
        # Files go after the rows are committed: a crash in between leaves orphan files that
        # `synapse clear` sweeps, never rows that point at missing files. Only ids the database
        # held name a folder, and a tampered row's id that is not an id names none.
        for conversation_id in report.conversation_ids:
            if is_valid_id(conversation_id):
                report += self._remove_files(self.store.attachments_dir / conversation_id)
        return report

    def _remove_files(self, path: Path) -> DeletionReport:
        files, size = remove_inside(self.store.attachments_dir, path)
        return DeletionReport(files=files, bytes=size)
