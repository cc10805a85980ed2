"""The repository: every read and write of Synapse's tables goes through `Store`.

Deleting a conversation removes its messages, tool rows, ledger rows and attachment files
here, in one place, so the CLI, the API and retention all delete the same way. Files go only for
conversations whose rows this delete found in the database, through `files.remove_inside`: an id
from a URL never names a folder by itself.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, delete, func, select
from sqlalchemy.orm import Session, sessionmaker

from .engine import create_store_engine, writer
from .files import owned_entries, remove_inside
from .ids import is_valid_id
from .models import Conversation, LlmCall, Message, ToolInvocation, utcnow

_CHUNK = 500


@dataclass
class DeletionReport:
    """What a delete removed: rows per table and attachment files."""

    conversations: int = 0
    messages: int = 0
    tool_invocations: int = 0
    llm_calls: int = 0
    files: int = 0
    bytes: int = 0
    conversation_ids: list[str] = field(default_factory=list, repr=False)

    def __iadd__(self, other: DeletionReport) -> DeletionReport:
        self.conversations += other.conversations
        self.messages += other.messages
        self.tool_invocations += other.tool_invocations
        self.llm_calls += other.llm_calls
        self.files += other.files
        self.bytes += other.bytes
        self.conversation_ids.extend(other.conversation_ids)
        return self

    @property
    def rows(self) -> int:
        return self.conversations + self.messages + self.tool_invocations + self.llm_calls

    def as_dict(self) -> dict[str, int]:
        return {
            'conversations': self.conversations,
            'messages': self.messages,
            'tool_invocations': self.tool_invocations,
            'llm_calls': self.llm_calls,
            'files': self.files,
            'bytes': self.bytes,
        }


class Store:
    """Synapse's persistent state: the database plus the attachment folder."""

    def __init__(self, engine: Engine, attachments_dir: Path) -> None:
        self.engine = engine
        self.attachments_dir = attachments_dir
        self._read_sessions = sessionmaker(engine, expire_on_commit=False)
        self._write_sessions = sessionmaker(writer(engine), expire_on_commit=False)

    @classmethod
    def open(cls, database_url: str, attachments_dir: Path, **engine_kwargs: Any) -> Store:
        return cls(create_store_engine(database_url, **engine_kwargs), attachments_dir)

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def close(self) -> None:
        self.engine.dispose()

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A session for reading; nothing it does is committed."""
        with self._read_sessions() as session:
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A session whose changes are committed when the block ends without an exception."""
        with self._write_sessions.begin() as session:
            yield session

    # -- conversations -------------------------------------------------------------------

    def create_conversation(
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
        with self.write() as session:
            session.add(conversation)
        return conversation

    def get_conversation(self, conversation_id: str) -> Conversation | None:
        if not is_valid_id(conversation_id):
            return None
        with self.read() as session:
            return session.get(Conversation, conversation_id)

    def rename_conversation(self, conversation_id: str, title: str) -> Conversation | None:
        if not is_valid_id(conversation_id):
            return None
        with self.write() as session:
            conversation = session.get(Conversation, conversation_id)
            if conversation is None:
                return None
            conversation.title = title
            conversation.updated_at = utcnow()
            return conversation

    def messages(self, conversation_id: str) -> Sequence[Message]:
        """The conversation's rows in the order they were written."""
        with self.read() as session:
            return session.scalars(
                select(Message).where(Message.conversation_id == conversation_id).order_by(Message.id)
            ).all()

    def tool_invocations(self, conversation_id: str) -> Sequence[ToolInvocation]:
        with self.read() as session:
            return session.scalars(
                select(ToolInvocation)
                .where(ToolInvocation.conversation_id == conversation_id)
                .order_by(ToolInvocation.started_at, ToolInvocation.id)
            ).all()

    def counts(self) -> dict[str, int]:
        """Rows per table, for `synapse clear` and the health page."""
        with self.read() as session:
            return {
                model.__tablename__: session.scalar(select(func.count()).select_from(model)) or 0
                for model in (Conversation, Message, ToolInvocation, LlmCall)
            }

    # -- attachments ---------------------------------------------------------------------

    def conversation_files_dir(self, conversation_id: str) -> Path:
        """Where a conversation's uploads live: one folder each, so deleting is one rmtree."""
        if not is_valid_id(conversation_id):
            raise ValueError(f'not a conversation id: {conversation_id[:60]!r}')
        return self.attachments_dir / conversation_id

    # -- deleting ------------------------------------------------------------------------

    def delete_conversation(self, conversation_id: str) -> DeletionReport:
        """Remove one conversation with its messages, tool rows, ledger rows and files.

        An id that is not one of Synapse's removes nothing and touches neither the database nor the disk.
        """
        if not is_valid_id(conversation_id):
            return DeletionReport()
        return self._delete_ids([conversation_id])

    def prune(self, days: int, *, now: datetime | None = None) -> DeletionReport:
        """Remove conversations not updated in the last `days` days."""
        cutoff = (now or datetime.now(UTC)) - timedelta(days=days)
        report = DeletionReport()
        while True:
            with self.read() as session:
                ids = list(
                    session.scalars(
                        select(Conversation.id).where(Conversation.updated_at < cutoff).limit(_CHUNK)
                    )
                )
            if not ids:
                return report
            report += self._delete_ids(ids)

    def count_older_than(self, days: int, *, now: datetime | None = None) -> int:
        """How many conversations `prune(days)` would remove."""
        cutoff = (now or datetime.now(UTC)) - timedelta(days=days)
        with self.read() as session:
            return session.scalar(select(func.count()).where(Conversation.updated_at < cutoff)) or 0

    def clear(self) -> DeletionReport:
        """Remove every conversation and everything that belongs to one."""
        report = DeletionReport()
        while True:
            with self.read() as session:
                ids = list(session.scalars(select(Conversation.id).limit(_CHUNK)))
            if not ids:
                break
            report += self._delete_ids(ids)
        # Rows whose conversation row is already gone (a crash between writes) go too.
        with self.write() as session:
            report.messages += _rowcount(session.execute(delete(Message)))
            report.tool_invocations += _rowcount(session.execute(delete(ToolInvocation)))
            report.llm_calls += _rowcount(
                session.execute(delete(LlmCall).where(LlmCall.conversation_id.is_not(None)))
            )
        # Folders a crash left behind; only Synapse's own (named with an id) are touched.
        for leftover in owned_entries(self.attachments_dir):
            report += self._remove_files(leftover)
        return report

    def _delete_ids(self, ids: list[str]) -> DeletionReport:
        report = DeletionReport()
        with self.write() as session:

            def remove(statement: Any) -> int:
                return _rowcount(session.execute(statement))

            found = list(session.scalars(select(Conversation.id).where(Conversation.id.in_(ids))))
            report.messages = remove(delete(Message).where(Message.conversation_id.in_(ids)))
            report.tool_invocations = remove(
                delete(ToolInvocation).where(ToolInvocation.conversation_id.in_(ids))
            )
            report.llm_calls = remove(delete(LlmCall).where(LlmCall.conversation_id.in_(ids)))
            report.conversations = remove(delete(Conversation).where(Conversation.id.in_(ids)))
        report.conversation_ids = found
        # Files go after the rows are committed: a crash in between leaves orphan files that
        # `synapse clear` sweeps, never rows that point at missing files. Only ids the database
        # held name a folder, and a tampered row's id that is not an id names none.
        for conversation_id in found:
            if is_valid_id(conversation_id):
                report += self._remove_files(self.attachments_dir / conversation_id)
        return report

    def _remove_files(self, path: Path) -> DeletionReport:
        files, size = remove_inside(self.attachments_dir, path)
        return DeletionReport(files=files, bytes=size)


def _rowcount(result: Any) -> int:
    return int(getattr(result, 'rowcount', 0) or 0)
