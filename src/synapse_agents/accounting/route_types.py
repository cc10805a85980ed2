"""What the accounting routes share: the query and field types, the call of a blocking service
(its `LimitError` as a JSON error) and the `from`/`to` bounds of a query."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Query
from pydantic import Field, PlainSerializer
from starlette.concurrency import run_in_threadpool

from ..web.context import SynapseContext, get_context
from ..web.errors import ApiError
from .limits_store import LimitError
from .spend import day_bound, decimal_text

Context = Annotated[SynapseContext, Depends(get_context)]
Name = Annotated[str | None, Query(min_length=1, max_length=255, pattern=r'^[^\x00]+$')]
ScopeName = Annotated[
    str | None,
    Query(min_length=1, max_length=255, pattern=r'^[^\x00]+$', description='type:id, or type alone.'),
]
DecimalText = Annotated[
    Decimal,
    PlainSerializer(decimal_text, return_type=str),
    Field(description='A decimal amount as a string, e.g. "2.5".'),
]
Day = Annotated[date, Field(description='A calendar day, YYYY-MM-DD.')]
_ISO = {
    'anyOf': [
        {'type': 'string', 'format': 'date'},
        {'type': 'string', 'format': 'date-time'},
        {'type': 'string', 'maxLength': 0},
    ],
    'description': 'An ISO 8601 date (a whole day) or datetime; with no offset, in the report time zone.',
}
ID_SCHEMA: dict[str, Any] = {
    'type': 'string',
    'pattern': r'^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$',
}
"""A Synapse id (`ids.is_valid_id`), as the schema states it; the route checks it itself."""
From = Annotated[str, Query(alias='from', max_length=64, json_schema_extra=_ISO)]
To = Annotated[str, Query(alias='to', max_length=64, json_schema_extra=_ISO)]

Result = TypeVar('Result')


async def call(function: Callable[..., Result], *args: Any) -> Result:
    """Run a blocking service call in a thread; its refusals as JSON errors."""
    try:
        return await run_in_threadpool(function, *args)
    except LimitError as exc:
        extra: dict[str, Any] = {'fields': exc.fields} if exc.fields else {}
        raise ApiError(exc.status, exc.message, **extra) from None


def bound(value: str, name: str, zone: str, *, end: bool) -> datetime | None:
    """A `from`/`to` query value as a UTC datetime; a 422 naming it when it is no ISO date."""
    try:
        return day_bound(value, zone, end=end)
    except ValueError as exc:
        raise ApiError(
            422,
            f'{name}: not an ISO date or datetime.',
            fields=[{'location': f'query.{name}', 'message': str(exc)}],
        ) from None
