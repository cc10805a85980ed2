"""The field types registry inputs are made of: keys, texts without NUL, JSON values, amounts.

Each type states its limits in the JSON schema too (patterns, bounds), so the OpenAPI document says
what is accepted. A NUL character or a non-finite number can be stored by neither database, so they
are refused here as input errors. Numbers are numbers: `true` or `"5"` is no count.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from decimal import Decimal
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, BeforeValidator, Field, SecretStr, WithJsonSchema
from pydantic_core import PydanticCustomError

from .._storable import text_flaw

KEY_PATTERN = r'^[A-Za-z0-9._-]{1,100}$'
MODEL_KEY_PATTERN = r'^[A-Za-z0-9._-]{1,100}:[A-Za-z0-9._:@+-]{1,154}$'
INT32_MAX = 2**31 - 1
MAX_PRICE = Decimal(1_000_000)
JSON_DEPTH = 32

PROVIDER_KINDS = ('openai', 'anthropic', 'google', 'groq', 'mistral', 'openai-compatible')
ProviderKind = Literal['openai', 'anthropic', 'google', 'groq', 'mistral', 'openai-compatible']


def refused(message: str) -> PydanticCustomError:
    """A validation error whose message is exactly `message` (no "Value error, " before it)."""
    return PydanticCustomError('invalid', message)


def _no_nul(value: str) -> str:
    problem = text_flaw(value)  # a NUL character or a lone UTF-16 surrogate
    if problem is not None:
        raise refused(problem)
    return value


def _json(value: Any, depth: int = 0) -> None:
    if depth > JSON_DEPTH:
        raise refused(f'nested deeper than {JSON_DEPTH} levels')
    if isinstance(value, str):
        _no_nul(value)
    elif isinstance(value, float) and not math.isfinite(value):
        raise refused('NaN and infinite numbers are not accepted')
    elif isinstance(value, dict):
        for key, item in value.items():
            _no_nul(str(key))
            _json(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _json(item, depth + 1)


def _json_object(value: dict[str, Any]) -> dict[str, Any]:
    _json(value)
    return value


def _json_value(value: Any) -> Any:
    _json(value)
    return value


def _url(value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ('http', 'https') or not parts.hostname:
        raise refused('expected an http:// or https:// URL with a host')
    return value


Key = Annotated[
    str,
    Field(
        min_length=1,
        max_length=100,
        pattern=KEY_PATTERN,
        description='1 to 100 characters of letters, digits, `.`, `_` and `-`.',
    ),
]
ModelKey = Annotated[
    str,
    Field(
        max_length=255,
        pattern=MODEL_KEY_PATTERN,
        description='`provider:name` style: a key, a colon, then letters, digits and `._:@+-`.',
    ),
]
Text = Annotated[str, Field(max_length=255), AfterValidator(_no_nul)]
LongText = Annotated[str, Field(max_length=100_000), AfterValidator(_no_nul)]
Word = Annotated[
    str, Field(min_length=1, max_length=255, pattern=r'^[^\s\x00]+$', description='No whitespace.')
]
Url = Annotated[str, Field(max_length=2000, pattern=r'^https?://[^\s\x00]+$'), AfterValidator(_url)]
JsonObject = Annotated[dict[str, Any], AfterValidator(_json_object)]
JsonValue = Annotated[Any, AfterValidator(_json_value)]
Flag = Annotated[bool, Field(strict=True)]
"""`true` or `false`, never `1` or `"yes"`."""


def _a_number(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise refused('expected a number')
    return value


def _not_a_flag(value: Any) -> Any:
    if isinstance(value, bool):
        raise refused('expected a decimal string or a number, not true or false')
    return value


_ASCII_DECIMAL = re.compile(r'[0-9]+(\.[0-9]+)?', re.ASCII)


def _ascii_decimal(value: Any) -> Any:
    """A string amount is ASCII digits with an optional fraction: `Decimal` would also read a
    fullwidth ten (U+FF11 U+FF10), signs, spaces and exponents, which the schema does not allow."""
    if isinstance(value, str) and not _ASCII_DECIMAL.fullmatch(value):
        raise refused('expected a decimal of ASCII digits, such as "2.5"')
    return value


Count = Annotated[int, BeforeValidator(_a_number), Field(ge=1, le=INT32_MAX)]
AMOUNT_SCHEMA = {
    'anyOf': [
        {'type': 'number', 'minimum': 0, 'maximum': 1_000_000},
        {'type': 'string', 'pattern': r'^(1000000|[0-9]{1,6})(\.[0-9]{1,10})?$'},
    ],
    'description': 'A decimal amount, as a string ("2.5") or a number: 0 to 1000000, 10 decimals at most.',
}
Amount = Annotated[
    Decimal,
    BeforeValidator(_ascii_decimal),
    BeforeValidator(_not_a_flag),
    WithJsonSchema(AMOUNT_SCHEMA),
    Field(
        ge=0, le=MAX_PRICE, decimal_places=10, allow_inf_nan=False, description='A decimal string or number.'
    ),
]
Scope = Annotated[
    str,
    Field(
        pattern=r'^[^:\x00]{1,255}(:[^\x00]{0,255})?$',
        description='`type:id` (split at the first colon), or `type` alone for every id of that type.',
    ),
]
Secret = Annotated[SecretStr, Field(min_length=1, max_length=4000)]


def secret_text(value: SecretStr | None) -> SecretStr | None:
    """An API key as given, refused when it holds whitespace or NUL characters."""
    if value is not None and any(c.isspace() or c == '\x00' for c in value.get_secret_value()):
        raise refused('an API key has no whitespace or NUL characters')
    return value


def utc(value: datetime | None) -> datetime | None:
    """A moment in UTC (a naive one is taken as UTC); refused when UTC cannot hold it."""
    if value is None:
        return None
    try:
        return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
    except OverflowError:
        raise refused('out of range once converted to UTC') from None


Temperature = Annotated[float, Field(strict=True, ge=0, le=2, allow_inf_nan=False)]
TopP = Annotated[float, Field(strict=True, ge=0, le=1, allow_inf_nan=False)]
Timeout = Annotated[float, Field(strict=True, gt=0, le=86_400, allow_inf_nan=False, description='Seconds.')]


Emoji = Annotated[str, Field(max_length=16), AfterValidator(_no_nul)]


ToolRef = Annotated[str, Field(min_length=1, max_length=255, pattern=r'^[^\s\x00]+$')]
