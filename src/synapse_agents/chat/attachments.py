"""Chat attachments: saved under SYNAPSE_HOME, referenced from the message row, never embedded.

A file goes to `<attachments>/<conversation id>/<message id>/<index>-<sanitised name>`; the user
message row keeps `{"index", "name", "media_type", "size", "path"}` (path relative to the
attachments folder). The agent gets the bytes as pydantic-ai `BinaryContent`. When the turn's
`model_messages` are stored, the bytes are dropped from them and read back from disk on replay.
There is no MIME allowlist: a model that cannot read a file says so, and that shows as an error.
"""

from __future__ import annotations

import base64
import mimetypes
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic_ai.messages import BinaryContent

_UNSAFE = re.compile(r'[^A-Za-z0-9._-]+')
MAX_NAME = 120


def sanitise_name(name: str | None) -> str:
    """A file name safe on every filesystem: no folders, no control or special characters."""
    base = (name or '').replace('\\', '/').rsplit('/', 1)[-1]
    base = unicodedata.normalize('NFKD', base).encode('ascii', 'ignore').decode('ascii')
    base = _UNSAFE.sub('_', base).strip('._') or 'file'
    if len(base) > MAX_NAME:
        stem, dot, ext = base.rpartition('.')
        base = (stem[: MAX_NAME - len(ext) - 1] + '.' + ext) if dot and len(ext) <= 16 else base[:MAX_NAME]
    return base


def guess_media_type(name: str, declared: str | None) -> str:
    """The declared type when it says something, else a guess from the name."""
    if declared and declared != 'application/octet-stream':
        return declared
    return mimetypes.guess_type(name)[0] or declared or 'application/octet-stream'


@dataclass
class Upload:
    """A file received with a chat message, held in memory until it is saved."""

    name: str
    media_type: str
    data: bytes


@dataclass
class SavedAttachment:
    """A saved file: its reference for the message row and its content for the agent."""

    index: int
    name: str
    media_type: str
    size: int
    path: str
    data: bytes

    def reference(self) -> dict[str, Any]:
        return {
            'index': self.index,
            'name': self.name,
            'media_type': self.media_type,
            'size': self.size,
            'path': self.path,
        }

    def content(self) -> BinaryContent:
        return BinaryContent(data=self.data, media_type=self.media_type)


def save_uploads(
    attachments_dir: Path, conversation_id: str, message_id: str, uploads: list[Upload]
) -> list[SavedAttachment]:
    """Write the uploads to disk (blocking: call from a thread)."""
    saved: list[SavedAttachment] = []
    if not uploads:
        return saved
    folder = attachments_dir / conversation_id / message_id
    folder.mkdir(parents=True, exist_ok=True)
    for index, upload in enumerate(uploads):
        name = sanitise_name(upload.name)
        file_name = f'{index}-{name}'
        (folder / file_name).write_bytes(upload.data)
        saved.append(
            SavedAttachment(
                index=index,
                name=name,
                media_type=guess_media_type(name, upload.media_type),
                size=len(upload.data),
                path=f'{conversation_id}/{message_id}/{file_name}',
                data=upload.data,
            )
        )
    return saved


def resolve_path(attachments_dir: Path, reference: dict[str, Any]) -> Path | None:
    """The file a reference points at, or None when it would leave the attachments folder."""
    relative = str(reference.get('path') or '')
    if not relative:
        return None
    root = attachments_dir.resolve()
    candidate = (root / relative).resolve()
    if root not in candidate.parents:
        return None
    return candidate


def _prompt_items(model_messages: list[Any]) -> list[dict[str, Any]]:
    """The binary items of the turn's own prompt: the first user-prompt part of the turn."""
    for message in model_messages:
        if message.get('kind') != 'request':
            continue
        for part in message.get('parts', []):
            if part.get('part_kind') == 'user-prompt':
                content = part.get('content')
                if not isinstance(content, list):
                    return []
                return [item for item in content if isinstance(item, dict) and item.get('kind') == 'binary']
    return []


def strip_binary(model_messages: list[Any]) -> list[Any]:
    """Drop the uploaded bytes from a turn's dumped `model_messages`, in place."""
    for item in _prompt_items(model_messages):
        item['data'] = ''
    return model_messages


def restore_binary(model_messages: list[Any], files: list[bytes]) -> list[Any]:
    """A copy of dumped `model_messages` with the uploaded files' bytes put back, in order."""
    import copy

    restored = copy.deepcopy(model_messages)
    for item, data in zip(_prompt_items(restored), files, strict=False):
        item['data'] = base64.b64encode(data).decode('ascii')
    return restored
