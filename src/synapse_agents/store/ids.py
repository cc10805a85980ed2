"""Identifiers: UUIDv7 strings, so ordering by id is ordering by creation time."""

from __future__ import annotations

import uuid_utils


def new_id() -> str:
    """A new k-sortable UUIDv7 string."""
    return str(uuid_utils.uuid7())
