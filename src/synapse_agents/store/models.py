"""The tables Synapse keeps. Alembic migrations own the schema; these classes mirror it.

Deletes cascade in the repository layer (see `repository.Store`), never through foreign keys:
SQLite leaves them off by default and a debugging tool must not depend on a pragma.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, DateTime, Dialect, Double, Index, Integer, String, Text
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


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JsonType, list[Any]: JsonType, datetime: UtcDateTime()}


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
    has_error: Mapped[bool] = mapped_column(Boolean, default=False)
    message_count: Mapped[int] = mapped_column(Integer, default=0)
    tool_count: Mapped[int] = mapped_column(Integer, default=0)
    input_tokens: Mapped[int] = mapped_column(BigInteger, default=0)
    output_tokens: Mapped[int] = mapped_column(BigInteger, default=0)
    cost: Mapped[float | None] = mapped_column(Double)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (
        Index('ix_conversations_updated_at', 'updated_at'),
        Index('ix_conversations_created_at', 'created_at'),
        Index('ix_conversations_agent_updated', 'agent_key', 'updated_at'),
        Index('ix_conversations_error_updated', 'has_error', 'updated_at'),
        Index('ix_conversations_agent_error_updated', 'agent_key', 'has_error', 'updated_at'),
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
    cost: Mapped[float | None] = mapped_column(Double)
    duration_ms: Mapped[int | None] = mapped_column(Integer)
    meta: Mapped[dict[str, Any]] = mapped_column(default=dict)
    details: Mapped[dict[str, Any]] = mapped_column(default=dict)
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
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column()

    __table_args__ = (
        Index('ix_tool_invocations_conversation', 'conversation_id', 'started_at'),
        Index('ix_tool_invocations_name_conversation', 'name', 'conversation_id'),
        Index('ix_tool_invocations_run_call', 'run_id', 'tool_call_id'),
        Index('ix_tool_invocations_status', 'status'),
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
    cost: Mapped[float | None] = mapped_column(Double)
    currency: Mapped[str | None] = mapped_column(String(8))
    price_source: Mapped[str | None] = mapped_column(String(64))
    duration_ms: Mapped[int | None] = mapped_column(Integer)
    user: Mapped[str | None] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (
        Index('ix_llm_calls_conversation', 'conversation_id'),
        Index('ix_llm_calls_created_at', 'created_at'),
        Index('ix_llm_calls_agent_created', 'agent_key', 'created_at'),
        Index('ix_llm_calls_run', 'run_id'),
    )
