"""Conversations as a plugin: their tables (conversations, messages, tool invocations, the
pydantic-ai conversation log). Their routes are the playground's (`chat/plugin.py`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..plugins.hookspecs import hookimpl

if TYPE_CHECKING:
    from sqlalchemy import Table


@hookimpl
def register_tables() -> Sequence[Table]:
    """Conversations, messages, tool invocations, the conversation log, and what filled each prompt."""
    from ..store.schema import tables_declared_in
    from . import prompt_contexts, tables

    return [*tables_declared_in(tables.__name__), *tables_declared_in(prompt_contexts.__name__)]
