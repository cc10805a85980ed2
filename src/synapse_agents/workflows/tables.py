"""The workflow tables (migration 0022): definitions, every version of each, runs and their steps.

A workflow is a key (`triage-then-reply`), a name and a JSON definition (`workflows/definition.py`);
each change writes a new row in `workflow_versions` and moves the workflow's `version` to it. A run
keeps the workflow's key and version (denormalised) and a nullable link to the definition's id:
deleting the definition sets the link to null and the run stays readable. One row per step that
started, each naming the conversation it ran in.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Boolean, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..store.ids import new_id
from ..store.schema import Base, JsonType, utcnow

RUN_STATUSES = ('running', 'completed', 'failed')
FINISHED = ('completed', 'failed')


class Workflow(Base):
    """A workflow as it is now: its current version's name and definition."""

    __tablename__ = 'workflows'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    key: Mapped[str] = mapped_column(String(100), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str | None] = mapped_column(Text)
    definition: Mapped[dict[str, Any]] = mapped_column(JsonType)
    version: Mapped[int] = mapped_column(Integer)
    step_count: Mapped[int] = mapped_column(Integer)
    is_sandbox: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class WorkflowVersion(Base):
    """One version of a workflow, whole."""

    __tablename__ = 'workflow_versions'

    workflow_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str | None] = mapped_column(Text)
    definition: Mapped[dict[str, Any]] = mapped_column(JsonType)
    change: Mapped[str] = mapped_column(String(200))
    """What made this version: `created`, `edited`."""
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class WorkflowRun(Base):
    """One run of a workflow version: mutable while `running`, immutable once finished."""

    __tablename__ = 'workflow_runs'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    """The workflow run id every step's turn carries (`workflow_run_id`)."""
    workflow_id: Mapped[str | None] = mapped_column(String(36))
    """The definition; null once it was deleted (the key and version stay)."""
    workflow_key: Mapped[str] = mapped_column(String(100))
    workflow_version: Mapped[int] = mapped_column(Integer)
    is_sandbox: Mapped[bool] = mapped_column(Boolean, default=False)
    status: Mapped[str] = mapped_column(String(16))
    current_step_index: Mapped[int] = mapped_column(Integer, default=-1)
    """The index of the last step started (-1: none yet)."""
    step_count: Mapped[int] = mapped_column(Integer)
    input: Mapped[Any] = mapped_column(JsonType, nullable=True)
    output: Mapped[Any] = mapped_column(JsonType, nullable=True)
    error: Mapped[str | None] = mapped_column(Text)
    failed_step: Mapped[str | None] = mapped_column(String(100))
    task_id: Mapped[str | None] = mapped_column(String(36))
    total_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cost: Mapped[Decimal | None] = mapped_column()
    """What the steps cost; None while a step's cost is unknown (an unpriced model)."""
    duration_ms: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    claimed_at: Mapped[datetime | None] = mapped_column()
    """When a worker took the run (a run is `running` from the moment it is accepted)."""
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    completed_at: Mapped[datetime | None] = mapped_column()

    __table_args__ = (
        Index('ix_workflow_runs_key', 'workflow_key', 'created_at'),
        Index('ix_workflow_runs_workflow', 'workflow_id'),
    )


class WorkflowRunStep(Base):
    """One step of a run that started: its agent, conversation, message, output and totals."""

    __tablename__ = 'workflow_run_steps'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    run_id: Mapped[str] = mapped_column(String(36))
    position: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(100))
    agent: Mapped[str] = mapped_column(String(255))
    status: Mapped[str] = mapped_column(String(16))
    conversation_id: Mapped[str | None] = mapped_column(String(36))
    agent_run_id: Mapped[str | None] = mapped_column(String(64))
    message: Mapped[str | None] = mapped_column(Text)
    output: Mapped[Any] = mapped_column(JsonType, nullable=True)
    error: Mapped[str | None] = mapped_column(Text)
    total_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cost: Mapped[Decimal | None] = mapped_column()
    duration_ms: Mapped[int | None] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    completed_at: Mapped[datetime | None] = mapped_column()

    __table_args__ = (Index('ix_workflow_run_steps_run', 'run_id', 'position', unique=True),)
