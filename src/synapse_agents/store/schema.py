"""The tables Synapse keeps. Alembic migrations own the schema; these classes mirror it.

Deletes cascade in the repository layer (see `repository.Store`), never through foreign keys:
SQLite leaves them off by default and a debugging tool must not depend on a pragma.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, DateTime, Dialect, Index, Integer, Numeric, String, Text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

from .ids import new_id

JsonType = JSON().with_variant(JSONB(), 'postgresql')


def utcnow() -> datetime:
    return datetime.now(UTC)


class UtcDateTime(TypeDecorator[datetime]):
    """A timestamp stored in UTC and always read back timezone-aware (SQLite keeps no zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError('naive datetime given to a UTC column')
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == 'sqlite' else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


COST_SCALE = 10
"""Decimal places a cost keeps (per-token prices have many)."""
_QUANTUM = Decimal(1).scaleb(-COST_SCALE)


class Money(TypeDecorator[Decimal]):
    """An amount of money, exact: `NUMERIC(20, 10)` on PostgreSQL, integer units of 10⁻¹⁰ on SQLite.

    SQLite has no decimal type (a NUMERIC column holds a float, and its SUM adds floats), so there
    the amount is stored as a whole number of units, whose SUM is exact. Either way it reads back as
    a `Decimal` with 10 places; a float given (a hand-written row) is taken as the decimal it prints as.
    A stored value that is not a finite number reads as `Decimal('NaN')`.
    """

    impl = Numeric(20, COST_SCALE, asdecimal=True)
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> Any:
        if dialect.name == 'sqlite':
            return dialect.type_descriptor(BigInteger())
        return dialect.type_descriptor(Numeric(20, COST_SCALE, asdecimal=True))

    def process_bind_param(self, value: Decimal | float | int | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        amount = (Decimal(repr(value)) if isinstance(value, float) else Decimal(value)).quantize(_QUANTUM)
        return int(amount.scaleb(COST_SCALE)) if dialect.name == 'sqlite' else amount

    def process_result_value(self, value: Any, dialect: Dialect) -> Decimal | None:
        if value is None:
            return None
        try:
            if dialect.name == 'sqlite':
                return Decimal(int(value)).scaleb(-COST_SCALE)
            return Decimal(value).quantize(_QUANTUM)
        except (ArithmeticError, TypeError, ValueError):
            # A hand-edited row ('abc', NaN, Infinity): read as NaN, so the query still returns its
            # other rows and the reader names this one (`corrupt.unreadable_amount`).
            return Decimal('NaN')


class Base(DeclarativeBase):
    type_annotation_map = {
        dict[str, Any]: JsonType,
        list[Any]: JsonType,
        datetime: UtcDateTime(),
        Decimal: Money(),
    }


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
    """The deps values its agent's deps schema asked for, as last sent (`store/deps_values.py`)."""
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
    (`store/decisions.py`)."""
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


class LlmCall(Base):
    """The accounting ledger: one row per model request, with tokens and cost."""

    __tablename__ = 'llm_calls'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    run_id: Mapped[str | None] = mapped_column(String(36))
    parent_run_id: Mapped[str | None] = mapped_column(String(36))
    conversation_id: Mapped[str | None] = mapped_column(String(36))
    module: Mapped[str] = mapped_column(String(32), default='chat')
    agent_key: Mapped[str | None] = mapped_column(String(255))
    provider: Mapped[str | None] = mapped_column(String(64))
    model: Mapped[str | None] = mapped_column(String(255))
    input_tokens: Mapped[int] = mapped_column(Integer, default=0)
    output_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cache_read_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cache_write_tokens: Mapped[int] = mapped_column(Integer, default=0)
    reasoning_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cost: Mapped[Decimal | None] = mapped_column()
    currency: Mapped[str | None] = mapped_column(String(8))
    price_source: Mapped[str | None] = mapped_column(String(64))
    duration_ms: Mapped[int | None] = mapped_column(Integer)
    user: Mapped[str | None] = mapped_column(String(255))
    """Who the call was made for: the scope's actor as `type:id`."""
    tenant: Mapped[str | None] = mapped_column(String(255))
    """Who pays: the scope's tenant as `type:id`."""
    preset: Mapped[str | None] = mapped_column(String(100))
    """The registry preset the call ran with."""
    cost_reference: Mapped[Decimal | None] = mapped_column()
    """`cost` converted to the reference currency (rates from the settings at call time)."""
    reference_currency: Mapped[str | None] = mapped_column(String(8))
    price_version: Mapped[str | None] = mapped_column(String(64))
    """Which version of the price source priced the call (pinned at call time)."""
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (
        Index('ix_llm_calls_conversation', 'conversation_id'),
        Index('ix_llm_calls_created_at', 'created_at'),
        Index('ix_llm_calls_agent_created', 'agent_key', 'created_at'),
        Index('ix_llm_calls_run', 'run_id'),
        Index('ix_llm_calls_tenant_created', 'tenant', 'created_at'),
        Index('ix_llm_calls_user_created', 'user', 'created_at'),
        Index('ix_llm_calls_preset_created', 'preset', 'created_at'),
    )


class StoreInstance(Base):
    """A running Synapse process and its last heartbeat (see `store.instances`)."""

    __tablename__ = 'store_instances'

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    pid: Mapped[int] = mapped_column(Integer)
    host: Mapped[str] = mapped_column(String(255))
    pid_scope: Mapped[str | None] = mapped_column(String(255))
    started_at: Mapped[datetime] = mapped_column()
    heartbeat_at: Mapped[datetime] = mapped_column()


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
