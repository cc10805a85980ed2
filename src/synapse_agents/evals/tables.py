"""The eval tables (migration 0019): datasets and every version of each.

A dataset is a key (`support-refunds`), a name, tags and its cases; each change writes a new row in
`eval_dataset_versions` (1, 2, 3, ...) and moves the dataset's `version` to it, so a run can always
say which cases it ran and an old version can be read back. The cases and the dataset-wide
evaluators are stored in pydantic-evals' serialised form (`evals/cases.py`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

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
