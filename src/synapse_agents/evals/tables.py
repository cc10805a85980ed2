"""The eval tables (migrations 0019 and 0021): datasets and every version of each, runs and their cases.

A dataset is a key (`support-refunds`), a name, tags and its cases; each change writes a new row in
`eval_dataset_versions` (1, 2, 3, ...) and moves the dataset's `version` to it, so a run can always
say which cases it ran and an old version can be read back. The cases and the dataset-wide
evaluators are stored in pydantic-evals' serialised form (`evals/cases.py`). A run keeps the
dataset version it ran, and one result row per case, written as the case ends.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Boolean, Float, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..store.ids import new_id
from ..store.schema import Base, JsonType, utcnow


class EvalDataset(Base):
    """A dataset as it is now: its current version's name, tags and counts."""

    __tablename__ = 'eval_datasets'

    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str | None] = mapped_column(Text)
    tags: Mapped[list[Any]] = mapped_column(JsonType, default=list)
    version: Mapped[int] = mapped_column(Integer)
    case_count: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class EvalDatasetVersion(Base):
    """One version of a dataset, whole: what it was called, its cases, and what changed."""

    __tablename__ = 'eval_dataset_versions'

    dataset_key: Mapped[str] = mapped_column(String(100), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str | None] = mapped_column(Text)
    tags: Mapped[list[Any]] = mapped_column(JsonType, default=list)
    cases: Mapped[list[Any]] = mapped_column(JsonType, default=list)
    evaluators: Mapped[list[Any]] = mapped_column(JsonType, default=list)
    """Evaluators applied to every case (pydantic-evals' dataset-wide evaluators)."""
    change: Mapped[str] = mapped_column(String(200))
    """What made this version: `created`, `edited`, `case added from a message`, `imported`."""
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


RUN_STATUSES = ('queued', 'running', 'stopping', 'succeeded', 'failed', 'cancelled')


class EvalRun(Base):
    """A dataset version run against an agent (and a model): its state and its totals."""

    __tablename__ = 'eval_runs'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    dataset_key: Mapped[str] = mapped_column(String(100))
    dataset_version: Mapped[int] = mapped_column(Integer)
    agent_key: Mapped[str] = mapped_column(String(255))
    model: Mapped[str | None] = mapped_column(String(255))
    """The model the cases ran on; None: the agent's own (or the preset's)."""
    preset: Mapped[str | None] = mapped_column(String(100))
    """The registry preset the cases ran with (its model and settings); None: no preset."""
    agent_version: Mapped[int | None] = mapped_column(Integer)
    """A configured agent's version when the run started; None for a code agent."""
    label: Mapped[str | None] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(16))
    concurrency: Mapped[int] = mapped_column(Integer)
    task_id: Mapped[str | None] = mapped_column(String(36))
    case_count: Mapped[int] = mapped_column(Integer)
    passed: Mapped[int] = mapped_column(Integer, default=0)
    failed: Mapped[int] = mapped_column(Integer, default=0)
    errored: Mapped[int] = mapped_column(Integer, default=0)
    pass_rate: Mapped[float | None] = mapped_column(Float)
    scores: Mapped[dict[str, Any]] = mapped_column(JsonType, default=dict)
    """Each score's mean over the cases that have it."""
    cost: Mapped[Decimal | None] = mapped_column()
    """What the cases' model calls cost; None while a case's cost is unknown (an unpriced model)."""
    input_tokens: Mapped[int] = mapped_column(Integer, default=0)
    output_tokens: Mapped[int] = mapped_column(Integer, default=0)
    duration_ms: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column()
    finished_at: Mapped[datetime | None] = mapped_column()

    __table_args__ = (Index('ix_eval_runs_dataset', 'dataset_key', 'created_at'),)


class EvalCaseResult(Base):
    """One case of a run: its conversation, output, every evaluator's verdict and what it cost."""

    __tablename__ = 'eval_case_results'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    run_id: Mapped[str] = mapped_column(String(36))
    position: Mapped[int] = mapped_column(Integer)
    case_name: Mapped[str] = mapped_column(String(200))
    conversation_id: Mapped[str | None] = mapped_column(String(36))
    output: Mapped[Any] = mapped_column(JsonType, nullable=True)
    passed: Mapped[bool] = mapped_column(Boolean)
    """Every assertion held and the case ran to its end."""
    assertions: Mapped[dict[str, Any]] = mapped_column(JsonType, default=dict)
    """`{name: {"value": bool, "reason": str | None}}`."""
    scores: Mapped[dict[str, Any]] = mapped_column(JsonType, default=dict)
    labels: Mapped[dict[str, Any]] = mapped_column(JsonType, default=dict)
    error: Mapped[str | None] = mapped_column(Text)
    cost: Mapped[Decimal | None] = mapped_column()
    input_tokens: Mapped[int] = mapped_column(Integer, default=0)
    output_tokens: Mapped[int] = mapped_column(Integer, default=0)
    duration_ms: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (Index('ix_eval_case_results_run', 'run_id', 'position', unique=True),)
