"""Standing agents, the tasks they run and each task's step-by-step log (migration 0008).

A standing agent is an agent (a code agent's slug or `config:<key>`) with an instruction, a scope
and what fires it: a cron expression in a time zone, event names, or both. Each firing is one
`agent_tasks` row, claimed and run by a worker; `agent_logs` is what the run did, step by step.
`next_fire_at` is the next fire time after the last one fired, so a tick that was missed is caught
by the next (`clock.tick`), and scheduler ticks only read the agents that are due.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import BigInteger, Boolean, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..corrupt import CorruptRow, json_problem
from ..store.ids import new_id
from ..store.schema import Base, JsonType, utcnow
from ..store.tables import register_table

OWNER = 'task'
STATUSES = ('queued', 'running', 'awaiting', 'succeeded', 'failed', 'cancelled')
"""A task's statuses; `succeeded`, `failed` and `cancelled` are final. `awaiting`: its run paused on
tool calls that wait for a decision (`tasks/decisions.py`); deciding queues it again."""
FINAL = ('succeeded', 'failed', 'cancelled')
TRIGGERS = ('schedule', 'event', 'manual')


class StandingAgent(Base):
    """An agent that runs itself: on a schedule, on events, or when asked to."""

    __tablename__ = 'standing_agents'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(100))
    agent_key: Mapped[str] = mapped_column(String(255))
    """A code agent's slug or `config:<key>`."""
    instruction: Mapped[str] = mapped_column(Text)
    tenant_type: Mapped[str | None] = mapped_column(String(255))
    tenant_id: Mapped[str | None] = mapped_column(String(255))
    subject_type: Mapped[str | None] = mapped_column(String(255))
    subject_id: Mapped[str | None] = mapped_column(String(255))
    cron: Mapped[str | None] = mapped_column(String(100))
    timezone: Mapped[str] = mapped_column(String(64), default='UTC')
    events: Mapped[list[Any]] = mapped_column(default=list)
    """The event names it listens to."""
    debounce_seconds: Mapped[int] = mapped_column(Integer, default=0)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    next_fire_at: Mapped[datetime | None] = mapped_column()
    """When the schedule fires next (None: no schedule, or paused)."""
    last_fired_at: Mapped[datetime | None] = mapped_column()
    """The last schedule slot that fired."""
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (Index('ix_standing_agents_due', 'enabled', 'next_fire_at'),)


class StandingAgentEvent(Base):
    """One event name a standing agent listens to (what `fire` looks agents up by)."""

    __tablename__ = 'standing_agent_events'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    standing_agent_id: Mapped[str] = mapped_column(String(36))
    event: Mapped[str] = mapped_column(String(100))
    tenant_key: Mapped[str] = mapped_column(String(512), default='')
    """The standing agent's tenant as `type:id` ('' for none: it hears the event in every tenant)."""

    __table_args__ = (
        Index('ix_standing_agent_events_event', 'event', 'tenant_key'),
        Index('ix_standing_agent_events_agent', 'standing_agent_id'),
    )


class AgentTask(Base):
    """One run of an agent: why it fired, its status and timings, what it cost and gave."""

    __tablename__ = 'agent_tasks'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    standing_agent_id: Mapped[str | None] = mapped_column(String(36))
    agent_key: Mapped[str] = mapped_column(String(255))
    instruction: Mapped[str] = mapped_column(Text)
    trigger: Mapped[str] = mapped_column(String(16))
    """`schedule`, `event` or `manual`."""
    event: Mapped[str | None] = mapped_column(String(100))
    context: Mapped[dict[str, Any] | None] = mapped_column()
    fires: Mapped[int] = mapped_column(Integer, default=1)
    """How many firings this run stands for (debounced events fold into one run)."""
    slot_at: Mapped[datetime | None] = mapped_column()
    """The schedule slot it runs for."""
    tenant_type: Mapped[str | None] = mapped_column(String(255))
    tenant_id: Mapped[str | None] = mapped_column(String(255))
    subject_type: Mapped[str | None] = mapped_column(String(255))
    subject_id: Mapped[str | None] = mapped_column(String(255))
    subject_key: Mapped[str] = mapped_column(String(512), default='')
    """`type:id` of the subject ('' for none): what debounce compares."""
    status: Mapped[str] = mapped_column(String(16), default='queued')
    not_before: Mapped[datetime] = mapped_column(default=utcnow)
    """A worker does not start it earlier (the end of a debounce window)."""
    worker: Mapped[str | None] = mapped_column(String(255))
    cancel_requested: Mapped[bool] = mapped_column(Boolean, default=False)
    queued_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column()
    heartbeat_at: Mapped[datetime | None] = mapped_column()
    finished_at: Mapped[datetime | None] = mapped_column()
    duration_ms: Mapped[int | None] = mapped_column(Integer)
    input_tokens: Mapped[int] = mapped_column(BigInteger, default=0)
    output_tokens: Mapped[int] = mapped_column(BigInteger, default=0)
    cost: Mapped[Decimal | None] = mapped_column()
    """In the reference currency; None while unknown or unpriced."""
    output: Mapped[Any | None] = mapped_column(JsonType)
    """The agent's output: text, or structured output as JSON."""
    error: Mapped[str | None] = mapped_column(Text)
    conversation_id: Mapped[str | None] = mapped_column(String(36))
    run_id: Mapped[str | None] = mapped_column(String(36))
    trace_parent: Mapped[dict[str, Any] | None] = mapped_column(JsonType)
    """The agent run the task was queued from (`traces.sink.RunPlace` as JSON), so its run joins that
    run's trace tree; None when it was queued outside any run."""
    decisions: Mapped[dict[str, Any] | None] = mapped_column(JsonType)
    """The answers to the tool calls its run paused on: the next run resumes it with them."""
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (
        Index('ix_agent_tasks_standing', 'standing_agent_id', 'id'),
        Index('ix_agent_tasks_status', 'status', 'not_before'),
        Index('ix_agent_tasks_debounce', 'standing_agent_id', 'event', 'subject_key', 'status'),
        Index('ix_agent_tasks_created', 'created_at'),
    )


def unreadable_context(task: AgentTask) -> CorruptRow | None:
    """The error naming a task whose stored context is not a JSON object (edited by hand), or None."""
    problem = json_problem('context', task.context, dict)
    return CorruptRow('agent_tasks', task.id, problem) if problem is not None else None


class AgentLog(Base):
    """One step of a task's run: a model call, a tool call or result, a notice, the output."""

    __tablename__ = 'agent_logs'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    task_id: Mapped[str] = mapped_column(String(36))
    seq: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(32))
    """`started`, `model_request`, `model_response`, `tool_call`, `tool_result`, `notice`,
    `output`, `error`."""
    message: Mapped[str] = mapped_column(Text, default='')
    data: Mapped[dict[str, Any] | None] = mapped_column()
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (Index('ix_agent_logs_task', 'task_id', 'seq'),)


register_table(AgentTask, owner=OWNER, key='id', root=True)
register_table(AgentLog, owner=OWNER, key='task_id')
