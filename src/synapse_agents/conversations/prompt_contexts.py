"""What filled each prompt: one row per model request of a turn (migration 0015), read on demand.

The engine builds each row from the request as it was sent (`chat/prompt_context.py`) and writes it
with the turn; `for_message` reads a turn's rows for the playground's context bars and the trace
view. A row belongs to its conversation and is deleted with it.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Integer, String, select
from sqlalchemy.orm import Mapped, mapped_column

from ..store import Store
from ..store.ids import new_id
from ..store.schema import Base, JsonType
from ..store.tables import register_table


class PromptContext(Base):
    """One model request's context window, by source."""

    __tablename__ = 'prompt_contexts'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    conversation_id: Mapped[str] = mapped_column(String(36), index=True)
    message_id: Mapped[str] = mapped_column(String(36), index=True)
    """The assistant message of the turn."""
    run_id: Mapped[str | None] = mapped_column(String(64))
    position: Mapped[int] = mapped_column(Integer)
    """The request's place in the turn (0 first)."""
    data: Mapped[dict[str, Any]] = mapped_column(JsonType)
    """`{model, provider, context_window, estimated_tokens, input_tokens, blocks: [...]}`."""


register_table(PromptContext, owner='conversation', key='conversation_id')


def for_message(store: Store, message_id: str) -> list[dict[str, Any]]:
    """The requests of the turn whose assistant message is `message_id`, in order (blocking)."""
    query = (
        select(PromptContext.position, PromptContext.run_id, PromptContext.data)
        .where(PromptContext.message_id == message_id)
        .order_by(PromptContext.position)
    )
    with store.read() as session:
        return [
            {'position': position, 'run_id': run_id, **data}
            for position, run_id, data in session.execute(query)
            if isinstance(data, dict)
        ]


def for_request(store: Store, run_id: str, position: int) -> dict[str, Any] | None:
    """The request at `position` of the turn run `run_id` (blocking); None when not recorded."""
    query = select(PromptContext.data).where(
        PromptContext.run_id == run_id, PromptContext.position == position
    )
    with store.read() as session:
        data = session.scalars(query.limit(1)).first()
    return {'position': position, 'run_id': run_id, **data} if isinstance(data, dict) else None
