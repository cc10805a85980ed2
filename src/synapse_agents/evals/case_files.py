"""The files a case sends with its message: `inputs.attachments`, each `{"name", "media_type",
"data"}` with the bytes in base64, so a dataset (and its pydantic-evals file) carries them whole.

A turn saved as a case takes its question's files from the conversation's folder
(`files_of_turn`); a case written by hand or imported may carry them too (`check_files`). A run
sends them with the message as the playground would (`attachments_of`), and the engine checks them
as it checks an upload. `MAX_BYTES` bounds a case's files together: a dataset version is one row.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from ..conversations.files import resolve_path
from ..conversations.history import attachment_references
from ..errors import EvalInvalid
from ..store import Store

MAX_BYTES = 8 * 1024 * 1024
"""The most a case's files may weigh together, decoded."""
MAX_FILES = 10
_FIELDS = frozenset({'name', 'media_type', 'data'})


def _decoded(data: str) -> bytes:
    return base64.b64decode(data.encode('ascii'), validate=True)


def check_files(value: Any, where: str) -> None:
    """`EvalInvalid` naming the entry and field of `value` (a case's `inputs.attachments`) that is
    not a file as this module describes it, or when they weigh more than `MAX_BYTES`."""
    if not isinstance(value, list) or len(value) > MAX_FILES:
        raise EvalInvalid(
            where, f'a list of at most {MAX_FILES} files, each {{"name", "media_type", "data"}}'
        )
    total = 0
    for index, item in enumerate(value):
        at = f'{where}.{index}'
        if not isinstance(item, dict) or set(item) != _FIELDS:
            raise EvalInvalid(at, 'a file is {"name", "media_type", "data"} (data in base64)')
        for field in ('name', 'media_type'):
            if not isinstance(item[field], str) or not item[field].strip() or len(item[field]) > 255:
                raise EvalInvalid(f'{at}.{field}', '1 to 255 characters')
        if not isinstance(item['data'], str):
            raise EvalInvalid(f'{at}.data', "the file's bytes in base64")
        try:
            total += len(_decoded(item['data']))
        except (binascii.Error, ValueError, UnicodeEncodeError):
            raise EvalInvalid(f'{at}.data', "the file's bytes in base64") from None
        if total > MAX_BYTES:
            raise EvalInvalid(at, f"a case's files weigh at most {MAX_BYTES // (1024 * 1024)} MB together")


def files_of_turn(
    store: Store, conversation_id: str, message_id: str, attachments: Any
) -> list[dict[str, Any]]:
    """The files of a stored user message as case files; `EvalInvalid` when one is missing from the
    conversation's folder or they weigh more than `MAX_BYTES` (nothing is saved then)."""
    files: list[dict[str, Any]] = []
    total = 0
    for reference in attachment_references(attachments):
        name = str(reference.get('name') or 'file')
        path = resolve_path(store.attachments_dir, reference, conversation_id, message_id)
        if path is None or not path.is_file():
            raise EvalInvalid(
                'message_id', f'the file {name!r} of this turn is no longer stored', where='body'
            )
        data = path.read_bytes()
        total += len(data)
        if total > MAX_BYTES or len(files) == MAX_FILES:
            raise EvalInvalid(
                'message_id',
                f"this turn's files are more than a case holds ({MAX_FILES} files, "
                f'{MAX_BYTES // (1024 * 1024)} MB): save a turn with fewer',
                where='body',
            )
        media_type = str(reference.get('media_type') or 'application/octet-stream')
        files.append({'name': name, 'media_type': media_type, 'data': base64.b64encode(data).decode('ascii')})
    return files


def attachments_of(inputs: dict[str, Any]) -> list[tuple[str, bytes, str]]:
    """A case's files as the Python API's attachments: `(name, bytes, media type)`."""
    return [
        (item['name'], _decoded(item['data']), item['media_type']) for item in inputs.get('attachments') or []
    ]
