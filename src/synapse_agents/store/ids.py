"""Identifiers: UUIDv7 strings, so ordering by id is ordering by creation time.

Every id Synapse hands out comes from `new_id`. An id that arrives from outside (a URL, a form
field) is checked with `is_valid_id` before it reaches the database or names a folder: nothing
that is not the canonical lowercase UUIDv7 text can be one of Synapse's ids, and nothing that is
can contain `/`, `.` or `%`.
"""

from __future__ import annotations

import re

import uuid_utils

ID_LENGTH = 36
"""The length of every id: `xxxxxxxx-xxxx-7xxx-[89ab]xxx-xxxxxxxxxxxx`."""

_UUID7 = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}')


def new_id() -> str:
    """A new k-sortable UUIDv7 string."""
    return str(uuid_utils.uuid7())


def is_valid_id(value: object) -> bool:
    """Whether `value` is an id as `new_id` writes it (lowercase UUIDv7 text, nothing around it)."""
    return isinstance(value, str) and len(value) == ID_LENGTH and _UUID7.fullmatch(value) is not None


def shown_id(value: str, limit: int = 60) -> str:
    """`value` quoted for an error message, cut to `limit` characters so a huge input never echoes whole."""
    if len(value) <= limit:
        return repr(value)
    return f'{value[:limit]!r}… ({len(value)} characters)'
