"""The conversation tables: a conversation, its messages and tool invocations, and the log
pydantic-ai's `ConversationStore` keeps (`sql_store.py`). Alembic migrations own the schema; these
classes mirror it, on the store's one metadata.

Each is declared in the table registry here, so deleting a conversation (one, a batch, all),
the sweep of orphans, `Store.counts()` and the deletion report include it.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import BigInteger, Boolean, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..store.ids import new_id
from ..store.schema import Base, JsonType, utcnow
from ..store.tables import TableRegistry, register_table, registry

OWNER = 'conversation'
"""The aggregate the tables below belong to (the registry's owner name)."""


class Conversation(Base):
    """A thread of turns with one agent; counters are kept in step so listing needs no joins."""

    __tablename__ = 'conversations'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    agent_key: Mapped[str] = mapped_column(String(255))
    agent_name: Mapped[str] = mapped_column(String(255), default='')
    title: Mapped[str] = mapped_column(String(200), default='')
    origin: Mapped[str] = mapped_column(String(20), default='playground')
    tenant_type: Mapped[str | None] = mapped_column(String(255))
    tenant_id: Mapped[str | None] = mapped_column(String(255))
    actor_type: Mapped[str | None] = mapped_column(String(255))
    actor_id: Mapped[str | None] = mapped_column(String(255))
    subject_type: Mapped[str | None] = mapped_column(String(255))
    subject_id: Mapped[str | None] = mapped_column(String(255))
    forked_from_id: Mapped[str | None] = mapped_column(String(36))
    """The conversation this one was forked from (None: not a fork)."""
    forked_at_message_id: Mapped[str | None] = mapped_column(String(36))
    """The source's user message the fork re-runs: the fork holds copies of the turns before it."""
    deps_values: Mapped[dict[str, Any] | None] = mapped_column()
    """The deps values its agent's deps schema asked for, as last sent (`conversations/deps_values.py`)."""
    has_error: Mapped[bool] = mapped_column(Boolean, default=False)
    message_count: Mapped[int] = mapped_column(Integer, default=0)
    tool_count: Mapped[int] = mapped_column(Integer, default=0)
    input_tokens: Mapped[int] = mapped_column(BigInteger, default=0)
    output_tokens: Mapped[int] = mapped_column(BigInteger, default=0)
    cost: Mapped[Decimal | None] = mapped_column()
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (
        Index('ix_conversations_updated_at', 'updated_at'),
        Index('ix_conversations_created_at', 'created_at'),
        Index('ix_conversations_agent_updated', 'agent_key', 'updated_at'),
        Index('ix_conversations_error_updated', 'has_error', 'updated_at'),
        Index('ix_conversations_agent_error_updated', 'agent_key', 'has_error', 'updated_at'),
        Index('ix_conversations_origin_updated', 'origin', 'updated_at'),
        Index('ix_conversations_tenant_updated', 'tenant_type', 'tenant_id', 'updated_at'),
        Index('ix_conversations_actor_updated', 'actor_type', 'actor_id', 'updated_at'),
        Index('ix_conversations_subject_updated', 'subject_type', 'subject_id', 'updated_at'),
        Index('ix_conversations_forked_from', 'forked_from_id'),
    )


class Message(Base):
    """One row of a thread: a user message, an assistant answer, an error card or a notice."""

    __tablename__ = 'messages'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    conversation_id: Mapped[str] = mapped_column(String(36))
    run_id: Mapped[str | None] = mapped_column(String(36))
    role: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), default='complete')
    content: Mapped[str] = mapped_column(Text, default='')
    attachments: Mapped[list[Any]] = mapped_column(default=list)
    model_messages: Mapped[list[Any] | None] = mapped_column()
    parts: Mapped[list[Any] | None] = mapped_column()
    usage: Mapped[dict[str, Any] | None] = mapped_column()
    input_tokens: Mapped[int | None] = mapped_column(Integer)
    output_tokens: Mapped[int | None] = mapped_column(Integer)
    cost: Mapped[Decimal | None] = mapped_column()
    duration_ms: Mapped[int | None] = mapped_column(Integer)
    meta: Mapped[dict[str, Any]] = mapped_column(default=dict)
    details: Mapped[dict[str, Any]] = mapped_column(default=dict)
    owner: Mapped[str | None] = mapped_column(String(36))
    """The `store_instances` id of the process running the turn (while it is `streaming`)."""
    copied_from_id: Mapped[str | None] = mapped_column(String(36))
    """In a fork: the source conversation's row this one is a copy of (None: written here)."""
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (
        Index('ix_messages_conversation_id', 'conversation_id', 'id'),
        Index('ix_messages_status', 'status'),
    )


class ToolInvocation(Base):
    """One tool call as observed: arguments, result or error, status and timing."""

    __tablename__ = 'tool_invocations'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    conversation_id: Mapped[str] = mapped_column(String(36))
    message_id: Mapped[str | None] = mapped_column(String(36))
    run_id: Mapped[str | None] = mapped_column(String(36))
    tool_call_id: Mapped[str] = mapped_column(String(255))
    kind: Mapped[str] = mapped_column(String(16), default='function')
    name: Mapped[str] = mapped_column(String(255))
    arguments: Mapped[dict[str, Any] | None] = mapped_column()
    result: Mapped[Any | None] = mapped_column(JsonType)
    status: Mapped[str] = mapped_column(String(16), default='pending')
    provider_status: Mapped[str | None] = mapped_column(String(64))
    error: Mapped[str | None] = mapped_column(Text)
    duration_ms: Mapped[int | None] = mapped_column(Integer)
    owner: Mapped[str | None] = mapped_column(String(36))
    """The `store_instances` id of the process running the call (while it is `pending`)."""
    claimed_by: Mapped[str | None] = mapped_column(String(36))
    """A decided paused call: the instance whose turn carries the decision, until that turn ends
    (`conversations/decisions.py`)."""
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column()

    __table_args__ = (
        Index('ix_tool_invocations_conversation', 'conversation_id', 'started_at'),
        Index('ix_tool_invocations_claimed_by', 'claimed_by'),
        Index('ix_tool_invocations_name_conversation', 'name', 'conversation_id'),
        Index('ix_tool_invocations_run_call', 'run_id', 'tool_call_id'),
        Index('ix_tool_invocations_status', 'status'),
        Index('ix_tool_invocations_conversation_status', 'conversation_id', 'status', 'started_at'),
    )


class LogConversation(Base):
    """A conversation kept by `SqlConversationStore` (pydantic-ai's `ConversationRecord`).

    pydantic-ai's `ConversationStore` keeps a conversation as a log of entries, each one message
    pointing at the one before; this row points at the newest (`head_id`) and carries what the
    messages cannot (usage, deferred tool requests, scope, branches). Ids are the app's own strings.
    """

    __tablename__ = 'log_conversations'

    conversation_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    head_id: Mapped[str | None] = mapped_column(String(255))
    usage: Mapped[dict[str, Any]] = mapped_column(default=dict)
    deferred_tool_requests: Mapped[dict[str, Any] | None] = mapped_column()
    scope: Mapped[str | None] = mapped_column(String(255))
    forked_from: Mapped[str | None] = mapped_column(String(255))
    forked_at: Mapped[str | None] = mapped_column(String(255))
    branches: Mapped[list[Any]] = mapped_column(default=list)
    revision: Mapped[str] = mapped_column(String(64))
    format_version: Mapped[int] = mapped_column(Integer, default=1)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (
        Index('ix_log_conversations_updated', 'updated_at'),
        Index('ix_log_conversations_scope_updated', 'scope', 'updated_at'),
    )


class LogEntry(Base):
    """One message of a `LogConversation`'s log (pydantic-ai's `ConversationEntry`), stored once."""

    __tablename__ = 'log_entries'

    id: Mapped[str] = mapped_column(String(255), primary_key=True)
    parent_id: Mapped[str | None] = mapped_column(String(255))
    kind: Mapped[str] = mapped_column(String(16), default='message')
    message: Mapped[dict[str, Any]] = mapped_column()
    """The message as `ModelMessagesTypeAdapter` JSON (one element)."""
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (Index('ix_log_entries_parent', 'parent_id'),)


register_table(Conversation, owner=OWNER, key='id', root=True)
register_table(Message, owner=OWNER, key='conversation_id')
register_table(ToolInvocation, owner=OWNER, key='conversation_id')

LOG_OWNER = 'log_conversation'
ENTRY_OWNER = 'log_entry'


def register_log_tables(tables: TableRegistry = registry) -> None:
    """Declare `log_conversations` and `log_entries` in `tables` (the process's registry by default).

    Each is the root of its own aggregate, never a member of Synapse's `conversation`, so deleting,
    pruning or clearing Synapse's conversations leaves them alone; `Store.counts()` counts them. An
    entry names no conversation (a fork shares its source's), so it is an aggregate of one row,
    released only by `SqlConversationStore.delete_record`.
    """
    tables.register(LogConversation, owner=LOG_OWNER, key='conversation_id', root=True)
    tables.register(LogEntry, owner=ENTRY_OWNER, key='id', root=True)


register_log_tables()
