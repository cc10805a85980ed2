"""Conversation memory: the stored `model_messages` of earlier turns, replayed as history.

Only completed turns are replayed, exactly as they were stored (a turn that failed or was interrupted
left no answer the model could build on, and half a tool exchange is invalid history). Uploaded files
are read back from disk into the turns' `BinaryContent`; a file that is gone replays as empty bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter
from sqlalchemy import select

from ..store import Message, Store
from .attachments import resolve_path, restore_binary


def load_history(store: Store, conversation_id: str, attachments_dir: Path) -> list[ModelMessage]:
    """The model messages of the conversation's completed turns, oldest first (blocking)."""
    with store.read() as session:
        rows = session.execute(
            select(Message.run_id, Message.role, Message.status, Message.model_messages, Message.attachments)
            .where(
                Message.conversation_id == conversation_id,
                Message.role.in_(('user', 'assistant')),
            )
            .order_by(Message.id)
        ).all()
    files_by_run: dict[str | None, list[dict[str, Any]]] = {}
    dumped: list[Any] = []
    for run_id, role, status, model_messages, attachments in rows:
        if role == 'user':
            files_by_run[run_id] = list(attachments or [])
        elif model_messages and status == 'complete':
            references = files_by_run.get(run_id, [])
            if references:
                model_messages = restore_binary(
                    model_messages, [_read(attachments_dir, r) for r in references]
                )
            dumped.extend(model_messages)
    return ModelMessagesTypeAdapter.validate_python(dumped) if dumped else []


def _read(attachments_dir: Path, reference: dict[str, Any]) -> bytes:
    path = resolve_path(attachments_dir, reference)
    if path is None or not path.is_file():
        return b''
    return path.read_bytes()
