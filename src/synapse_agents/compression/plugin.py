"""Compression as a plugin: the `history_summaries` table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..plugins.hookspecs import hookimpl

if TYPE_CHECKING:
    from sqlalchemy import Table


@hookimpl
def register_tables() -> Sequence[Table]:
    """The conversations' stored summaries."""
    from ..store.schema import tables_declared_in
    from . import tables

    return tables_declared_in(tables.__name__)
