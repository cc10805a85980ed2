"""Shapes every area's API answers share: a timestamp on the wire (ISO 8601 in UTC, milliseconds).

An area's response models (`traces/schemas.py`, `tasks/schemas.py`, the history answers in
`web/routes/schemas.py`) import it from here, below every area, so that no area imports the web
layer for a type.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import Field, PlainSerializer


def iso(value: datetime) -> str:
    """ISO 8601 in UTC with milliseconds: `2026-11-30T06:11:50.884Z`."""
    return value.astimezone(UTC).strftime('%Y-%m-%dT%H:%M:%S.') + f'{value.microsecond // 1000:03d}Z'


Timestamp = Annotated[
    datetime,
    PlainSerializer(iso, return_type=str),
    Field(description='ISO 8601 in UTC with milliseconds: 2026-11-30T06:11:50.884Z.'),
]
