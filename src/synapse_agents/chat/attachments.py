"""Chat attachments: saved under SYNAPSE_HOME, referenced from the message row, never embedded.

A file goes to `<attachments>/<conversation id>/<message id>/<index>-<sanitised name>`; the user
message row keeps `{"index", "name", "media_type", "size", "path"}` (path relative to the
attachments folder). The agent gets the bytes as pydantic-ai `BinaryContent`. When the turn's
`model_messages` are stored, the bytes are dropped from them and read back from disk on replay.
There is no MIME allowlist: a model that cannot read a file says so, and that shows as an error.

A stored reference is read back only inside its own message's folder (`conversations.files`): a path
tampered with in the database, or a symlink put in the folder, resolves to nothing. Files are
written only under folders named by two Synapse ids (`save_uploads` refuses anything else), so no
input can choose where a file lands.
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

from ..store.ids import is_valid_id

_UNSAFE = re.compile(r'[^A-Za-z0-9._-]+')
_EXTENSION = re.compile(r'[A-Za-z0-9]{1,16}')
MAX_NAME = 120


def sanitise_name(name: str | None) -> str:
    """A file name safe on every filesystem, and stable (sanitising it again changes nothing).

    Only `[A-Za-z0-9._-]` (accents are dropped, anything else becomes `_`), no folders, never
    empty, never starting with `.`, `_` or `-` (no hidden files, `.` or `..`, nothing that reads
    as a command-line option), at most `MAX_NAME` characters. An extension of 1 to 16 letters and
    digits is kept even when the rest of the name had to go (`日本語.txt` becomes `file.txt`).
    """
    base = (name or '').replace('\\', '/').rsplit('/', 1)[-1]
    base = unicodedata.normalize('NFKD', base).rstrip('. ')
    stem, dot, extension = base.rpartition('.')
    if not (dot and stem and _EXTENSION.fullmatch(extension) and extension.isascii()):
        stem, extension = base, ''
    suffix = f'.{extension}' if extension else ''
    stem = stem.encode('ascii', 'ignore').decode('ascii')
    stem = _UNSAFE.sub('_', stem).lstrip('._-')[: MAX_NAME - len(suffix)]
    if not suffix:
        stem = stem.rstrip('.')
    return (stem or 'file') + suffix


_MEDIA_TYPE = re.compile(r'[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*')


def media_type_essence(declared: object) -> str | None:
    """The bare type of a declared media type (`type/subtype`, lowercased, no parameters), or None."""
    essence = str(declared or '').split(';', 1)[0].strip().lower()
    return essence if _MEDIA_TYPE.fullmatch(essence) else None


def guess_media_type(name: str, declared: str | None) -> str:
    """The declared type (its bare essence, lowercased) when it is one, else a guess from the name."""
    essence = media_type_essence(declared)
    if essence is not None and essence != 'application/octet-stream':
        return essence
    return mimetypes.guess_type(name)[0] or 'application/octet-stream'


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
    if not (is_valid_id(conversation_id) and is_valid_id(message_id)):
        raise ValueError('attachments are saved only under a conversation id and a message id')
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
