"""A conversation's deps values: what the playground's deps form sent last, kept on its row.

`conversations.deps_values` (JSON, null until values are sent) holds the values a turn of an agent
with a deps schema ran with, so that later turns need not send them again; sending new ones
replaces them. A fork starts with its source's values (`conversations/forks.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, bindparam, update

from ..store.prepared import execute
from ..store.schema import Base
from .tables import Conversation

_conversations = Base.metadata.tables[Conversation.__tablename__]
_REMEMBER = (
    update(_conversations)
    .where(_conversations.c.id == bindparam('b_id'))
    .values(deps_values=bindparam('b_values', type_=_conversations.c.deps_values.type))
)


def remember_deps(conversation_id: str, values: dict[str, Any]) -> Callable[[Connection], None]:
    """A write (for the `WriteQueue`): store `values` as the conversation's deps values."""

    def write(connection: Connection) -> None:
        execute(connection, _REMEMBER, {'b_id': conversation_id, 'b_values': values})

    return write
