"""What a trace is made of: agent runs, their model calls (debug logs) and tool calls (migration 0009).

One `trace_runs` row per agent run (`agent_run_id`, shared by the run's model calls), with the run
that started it (`parent_run_id`, None for a root), its `depth` and the root of its tree
(`root_run_id`), so a whole tree is three reads by `root_run_id`. `span_id` / `parent_span_id` are
the OpenTelemetry span ids pydantic-ai's instrumentation gave the run and what it ran inside: a run
started by a tool hangs under that tool. `debug_logs` holds one row per model call, its request and
response stored compressed in `data`; `trace_tools` one row per tool call. All three belong to the
conversation the run recorded into, so they are deleted with it (retention included).
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import BigInteger, Boolean, Index, Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..store.ids import new_id
from ..store.schema import Base, JsonType, utcnow
from ..store.tables import register_table

ORIGINS = ('direct', 'code', 'config', 'ephemeral', 'workflow')
"""How a run started: `direct` (a pydantic-ai run Synapse did not start, e.g. an agent called from a
tool), `code` (a discovered agent), `config` (a configured agent), `ephemeral` (an agent object
handed to the Python API that discovery does not know), `workflow` (a workflow step)."""


def is_root(parent_run_id: str | None, origin: str, depth: int) -> bool:
    """Roots: runs without a parent, and workflow steps at depth 1."""
    return parent_run_id is None or (origin == 'workflow' and depth == 1)


class TraceRun(Base):
    """One agent run: who started it, where it sits in its tree, what it cost and how it ended."""

    __tablename__ = 'trace_runs'

    agent_run_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    parent_run_id: Mapped[str | None] = mapped_column(String(64))
    root_run_id: Mapped[str] = mapped_column(String(64))
    depth: Mapped[int] = mapped_column(Integer, default=0)
    is_root: Mapped[bool] = mapped_column(Boolean, default=True)
    origin: Mapped[str] = mapped_column(String(20))
    module: Mapped[str] = mapped_column(String(100), default='chat')
    agent_name: Mapped[str | None] = mapped_column(String(255))
    agent_key: Mapped[str | None] = mapped_column(String(255))
    """The agent's slug when Synapse started the run (None for a `direct` run)."""
    workflow_run_id: Mapped[str | None] = mapped_column(String(36))
    conversation_id: Mapped[str | None] = mapped_column(String(36))
    message_id: Mapped[str | None] = mapped_column(String(36))
    trace_id: Mapped[str] = mapped_column(String(32))
    """The OpenTelemetry trace id (hex): the same run in a tracing tool."""
    span_id: Mapped[str] = mapped_column(String(16))
    parent_span_id: Mapped[str | None] = mapped_column(String(16))
    model: Mapped[str | None] = mapped_column(String(255))
    status: Mapped[str] = mapped_column(String(16), default='ok')
    """`ok` or `error`."""
    error: Mapped[str | None] = mapped_column(Text)
    input_tokens: Mapped[int] = mapped_column(BigInteger, default=0)
    output_tokens: Mapped[int] = mapped_column(BigInteger, default=0)
    cost: Mapped[Decimal | None] = mapped_column()
    """The sum of its own model calls' costs (reference currency); None when any is unpriced."""
    model_calls: Mapped[int] = mapped_column(Integer, default=0)
    tool_calls: Mapped[int] = mapped_column(Integer, default=0)
    output: Mapped[Any | None] = mapped_column(JsonType)
    """The run's final result, capped like debug bodies."""
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime] = mapped_column(default=utcnow)
    duration_ms: Mapped[int] = mapped_column(Integer, default=0)

    __table_args__ = (
        Index('ix_trace_runs_roots', 'is_root', 'started_at', 'agent_run_id'),
        Index('ix_trace_runs_root', 'root_run_id'),
        Index('ix_trace_runs_agent', 'agent_key', 'is_root', 'started_at', 'agent_run_id'),
        Index('ix_trace_runs_conversation', 'conversation_id'),
        Index('ix_trace_runs_message', 'message_id'),
    )


class DebugLog(Base):
    """One model call of a run, with what was sent and what came back (`data`, zlib-compressed JSON)."""

    __tablename__ = 'debug_logs'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    """The debug id."""
    agent_run_id: Mapped[str] = mapped_column(String(64))
    parent_run_id: Mapped[str | None] = mapped_column(String(64))
    root_run_id: Mapped[str] = mapped_column(String(64))
    depth: Mapped[int] = mapped_column(Integer, default=0)
    origin: Mapped[str] = mapped_column(String(20))
    workflow_run_id: Mapped[str | None] = mapped_column(String(36))
    conversation_id: Mapped[str | None] = mapped_column(String(36))
    module: Mapped[str] = mapped_column(String(100))
    action: Mapped[str] = mapped_column(String(100))
    """What the call was for: `chat_turn` (Synapse's turn), `agent_call` (a nested run), `task_run`."""
    model: Mapped[str | None] = mapped_column(String(255))
    provider: Mapped[str | None] = mapped_column(String(100))
    input_tokens: Mapped[int] = mapped_column(BigInteger, default=0)
    output_tokens: Mapped[int] = mapped_column(BigInteger, default=0)
    total_tokens: Mapped[int] = mapped_column(BigInteger, default=0)
    cost: Mapped[Decimal | None] = mapped_column()
    finish_reason: Mapped[str | None] = mapped_column(String(64))
    error: Mapped[str | None] = mapped_column(Text)
    span_id: Mapped[str] = mapped_column(String(16))
    parent_span_id: Mapped[str | None] = mapped_column(String(16))
    data: Mapped[bytes] = mapped_column(LargeBinary)
    data_bytes: Mapped[int] = mapped_column(Integer, default=0)
    """The uncompressed size of `data` (after capping)."""
    truncated: Mapped[bool] = mapped_column(Boolean, default=False)
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    duration_ms: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (
        Index('ix_debug_logs_root', 'root_run_id'),
        Index('ix_debug_logs_run', 'agent_run_id'),
        Index('ix_debug_logs_conversation', 'conversation_id'),
        Index('ix_debug_logs_created', 'created_at'),
    )


class TraceTool(Base):
    """One tool call of a run, with its arguments, result or error and duration."""

    __tablename__ = 'trace_tools'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    agent_run_id: Mapped[str] = mapped_column(String(64))
    root_run_id: Mapped[str] = mapped_column(String(64))
    conversation_id: Mapped[str | None] = mapped_column(String(36))
    tool_call_id: Mapped[str | None] = mapped_column(String(255))
    name: Mapped[str] = mapped_column(String(255))
    arguments: Mapped[Any | None] = mapped_column(JsonType)
    result: Mapped[Any | None] = mapped_column(JsonType)
    status: Mapped[str] = mapped_column(String(16), default='success')
    """`success` or `error`."""
    error: Mapped[str | None] = mapped_column(Text)
    span_id: Mapped[str] = mapped_column(String(16))
    parent_span_id: Mapped[str | None] = mapped_column(String(16))
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    duration_ms: Mapped[int] = mapped_column(Integer, default=0)

    __table_args__ = (
        Index('ix_trace_tools_root', 'root_run_id'),
        Index('ix_trace_tools_conversation', 'conversation_id'),
    )


register_table(TraceRun, owner='conversation', key='conversation_id')
register_table(DebugLog, owner='conversation', key='conversation_id')
register_table(TraceTool, owner='conversation', key='conversation_id')
