"""Conversation memory: the stored `model_messages` of earlier turns, replayed as history.

Only completed turns are replayed, exactly as they were stored (a turn that failed or was interrupted
left no answer the model could build on, and half a tool exchange is invalid history). Uploaded files
are read back from disk into the turns' `BinaryContent`; a file that is gone replays as empty bytes.
A turn whose stored messages cannot be read (a row edited by hand: not JSON, not a list, or not
model messages) stops the replay with `corrupt.CorruptRow` naming its message row: the new turn is
refused before it starts rather than run without that memory.
"""

from __future__ import annotations

from bisect import bisect_right
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter
from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from ..conversations.decisions import paused_message_run
from ..conversations.files import resolve_path
from ..conversations.history import attachment_references
from ..conversations.tables import Message
from ..corrupt import CorruptRow, json_problem
from ..store import Store
from .attachments import restore_binary


def load_history(store: Store, conversation_id: str, attachments_dir: Path) -> list[ModelMessage]:
    """The model messages of the conversation's completed turns, oldest first (blocking)."""
    with store.read() as session:
        return history_in(session, conversation_id, attachments_dir)


_TURNS = (
    select(
        Message.id,
        Message.run_id,
        Message.role,
        Message.status,
        Message.model_messages,
        Message.attachments,
    )
    .where(Message.conversation_id == bindparam('conversation_id'), Message.role.in_(('user', 'assistant')))
    .order_by(Message.id)
)


def history_in(session: Session, conversation_id: str, attachments_dir: Path) -> list[ModelMessage]:
    """`load_history` in an open read."""
    rows = session.execute(_TURNS, {'conversation_id': conversation_id}).all()
    files_by_run: dict[str | None, list[bytes]] = {}
    dumped: list[Any] = []
    starts: list[int] = []
    owners: list[str] = []
    for message_id, run_id, role, status, model_messages, attachments in rows:
        if role == 'user':
            files_by_run[run_id] = [
                _read(attachments_dir, reference, conversation_id, message_id)
                for reference in attachment_references(attachments)
            ]
        elif model_messages and status == 'complete':
            if (problem := json_problem('model_messages', model_messages, list)) is not None:
                raise CorruptRow('messages', message_id, problem)
            files = files_by_run.get(run_id, [])
            if files:
                try:
                    model_messages = restore_binary(model_messages, files)
                except (AttributeError, TypeError):  # items that are not objects
                    raise CorruptRow('messages', message_id, f'{NOT_MESSAGES} (not objects)') from None
            starts.append(len(dumped))
            owners.append(message_id)
            dumped.extend(model_messages)
    return _validated(dumped, starts, owners)


NOT_MESSAGES = 'model_messages are not model messages'


def _validated(dumped: list[Any], starts: list[int], owners: list[str]) -> list[ModelMessage]:
    """The messages validated in one call; `CorruptRow` naming the row whose items fail."""
    if not dumped:
        return []
    try:
        return ModelMessagesTypeAdapter.validate_python(dumped)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = error['loc'][0] if error['loc'] and isinstance(error['loc'][0], int) else 0
        owner = owners[max(bisect_right(starts, where) - 1, 0)]
        raise CorruptRow('messages', owner, f'{NOT_MESSAGES} ({error["msg"]})') from None


def _read(attachments_dir: Path, reference: dict[str, Any], conversation_id: str, message_id: str) -> bytes:
    path = resolve_path(attachments_dir, reference, conversation_id, message_id)
    return b'' if path is None else path.read_bytes()


def paused_history(store: Store, message_id: str) -> list[ModelMessage]:
    """The model messages of the one turn that paused on tool calls (a stateless agent's resume)."""
    dumped = paused_message_run(store, message_id)
    if (problem := json_problem('model_messages', dumped, list)) is not None:
        raise CorruptRow('messages', message_id, problem)
    return _validated(dumped, [0], [message_id]) if dumped else []
