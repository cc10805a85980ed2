"""Conversations as a plugin: their tables (conversations, messages, tool invocations, the
pydantic-ai conversation log). Their routes are the playground's (`chat/plugin.py`)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Table

from ..plugins.hookspecs import hookimpl
from ..store.schema import tables_declared_in


@hookimpl
def register_tables() -> Sequence[Table]:
    """Conversations, messages, tool invocations and the conversation log."""
    from . import tables

    return tables_declared_in(tables.__name__)
