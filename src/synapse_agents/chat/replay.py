"""Conversation memory: the stored `model_messages` of earlier turns, replayed as history.

Only completed turns are replayed, exactly as they were stored (a turn that failed or was interrupted
left no answer the model could build on, and half a tool exchange is invalid history). Uploaded files
are read back from disk into the turns' `BinaryContent`; a file that is gone replays as empty bytes.
A turn whose stored messages cannot be read (a row edited by hand: not JSON, not a list, or not
model messages) stops the replay with `corrupt.CorruptRow` naming its message row: the new turn is
refused before it starts rather than run without that memory.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from collections import OrderedDict
from copy import copy
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter
from sqlalchemy import Text, cast, select

from ..conversations.decisions import paused_message_run
from ..conversations.files import resolve_path
from ..conversations.history import attachment_references
from ..conversations.tables import Message
from ..corrupt import CorruptRow, json_problem, read_json
from ..store import Store
from .attachments import restore_binary

_VALIDATED: OrderedDict[tuple[str, str], list[ModelMessage]] = OrderedDict()
"""Validated messages of completed rows without files, by row id and stored text (LRU)."""
_KEPT = 4096
_LOCK = threading.Lock()


def load_history(store: Store, conversation_id: str, attachments_dir: Path) -> list[ModelMessage]:
    """The model messages of the conversation's completed turns, oldest first (blocking).

    The rows are read every time; a row whose stored text was validated before (same id, same
    text, no files) reuses those messages instead of parsing and validating them again."""
    with store.read() as session:
        rows = session.execute(
            select(
                Message.id,
                Message.run_id,
                Message.role,
                Message.status,
                cast(Message.model_messages, Text),
                Message.attachments,
            )
            .where(
                Message.conversation_id == conversation_id,
                Message.role.in_(('user', 'assistant')),
            )
            .order_by(Message.id)
        ).all()
    files_by_run: dict[str | None, list[bytes]] = {}
    segments: list[list[ModelMessage] | tuple[int, int]] = []
    dumped: list[Any] = []
    starts: list[int] = []
    owners: list[str] = []
    keys: list[tuple[str, str] | None] = []
    for message_id, run_id, role, status, raw, attachments in rows:
        if role == 'user':
            files_by_run[run_id] = [
                _read(attachments_dir, reference, conversation_id, message_id)
                for reference in attachment_references(attachments)
            ]
            continue
        if raw is None or status != 'complete':
            continue
        files = files_by_run.get(run_id, [])
        key = None if files else (message_id, raw)
        if key is not None and (known := _known(key)) is not None:
            segments.append(known)
            continue
        model_messages = read_json(raw)
        if not model_messages:
            continue
        if (problem := json_problem('model_messages', model_messages, list)) is not None:
            raise CorruptRow('messages', message_id, problem)
        if files:
            try:
                model_messages = restore_binary(model_messages, files)
            except (AttributeError, TypeError):  # items that are not objects
                raise CorruptRow('messages', message_id, f'{NOT_MESSAGES} (not objects)') from None
        segments.append((len(dumped), len(dumped) + len(model_messages)))
        starts.append(len(dumped))
        owners.append(message_id)
        keys.append(key)
        dumped.extend(model_messages)
    validated = _validated(dumped, starts, owners)
    with _LOCK:
        for key, start, end in zip(keys, starts, [*starts[1:], len(dumped)][: len(starts)], strict=True):
            if key is not None:
                _VALIDATED[key] = [copy(message) for message in validated[start:end]]
                if len(_VALIDATED) > _KEPT:
                    _VALIDATED.popitem(last=False)
    history: list[ModelMessage] = []
    for segment in segments:
        history.extend(validated[segment[0] : segment[1]] if isinstance(segment, tuple) else segment)
    return history


def _known(key: tuple[str, str]) -> list[ModelMessage] | None:
    with _LOCK:
        found = _VALIDATED.get(key)
        if found is None:
            return None
        _VALIDATED.move_to_end(key)
    # A run may reassign a message's fields (its instructions, its parts): each turn gets its own.
    return [copy(message) for message in found]


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
