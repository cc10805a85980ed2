"""Shapes every area's API answers and queries share: a timestamp on the wire (ISO 8601 in UTC,
milliseconds), and a moment a query names (ISO 8601 only).

An area's response models (`traces/schemas.py`, `tasks/schemas.py`, the history answers in
`web/routes/schemas.py`) import it from here, below every area, so that no area imports the web
layer for a type.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, PlainSerializer


def iso(value: datetime) -> str:
    """ISO 8601 in UTC with milliseconds: `2026-11-30T06:11:50.884Z`."""
    return value.astimezone(UTC).strftime('%Y-%m-%dT%H:%M:%S.') + f'{value.microsecond // 1000:03d}Z'


Timestamp = Annotated[
    datetime,
    PlainSerializer(iso, return_type=str),
    Field(description='ISO 8601 in UTC with milliseconds: 2026-11-30T06:11:50.884Z.'),
]

_NUMBER = re.compile(r'\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*')


def _not_a_number(value: Any) -> Any:
    # pydantic reads a number as seconds since 1970; the API documents ISO 8601 alone, and a
    # client that sent a number meant something else.
    if isinstance(value, int | float) or (isinstance(value, str) and _NUMBER.fullmatch(value)):
        raise ValueError('expected an ISO 8601 date and time (2026-11-30T06:11:50Z), not a number')
    return value


IsoMoment = Annotated[datetime, BeforeValidator(_not_a_number)]
"""A moment a query or body names: ISO 8601 only (a bare number is refused, not read as epoch seconds)."""
