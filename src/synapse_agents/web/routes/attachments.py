"""`GET /api/attachments/{message_id}/{index}`: a file sent with a chat message.

The file is found through the message row, never through the URL: `message_id` (checked to be a
Synapse id before anything is read) and `index` only select a stored reference, and the
reference's path must resolve inside that message's own folder
(`chat.attachments.resolve_path`). What a browser could run never renders: only an allowlist of
passive types is served inline, with the bare type (no parameters from the upload); everything else
is `application/octet-stream` with `Content-Disposition: attachment`. The file name in
`Content-Disposition` is sanitised again, so a tampered name cannot inject a header.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import FileResponse
from starlette.concurrency import run_in_threadpool

from ...chat.attachments import media_type_essence, sanitise_name
from ...conversations.files import resolve_path
from ...conversations.history import attachment_reference
from ...store.ids import is_valid_id, shown_id
from ..context import SynapseContext, get_context
from ..errors import ApiError, error_responses

router = APIRouter(tags=['attachments'])

INLINE_TYPES = frozenset(
    {
        'image/png',
        'image/jpeg',
        'image/gif',
        'image/webp',
        'application/pdf',
        'text/plain',
        'audio/mpeg',
        'audio/ogg',
        'audio/wav',
        'audio/webm',
        'audio/mp4',
        'audio/flac',
        'video/mp4',
        'video/webm',
        'video/ogg',
        'video/quicktime',
    }
)
"""Types served inline: no browser runs them. Anything else downloads as octet-stream."""

DOWNLOAD_TYPE = 'application/octet-stream'

ATTACHMENT_CSP = "default-src 'none'; sandbox"


def served_type(declared: object) -> str | None:
    """The type to serve a file inline with (its bare essence, lowercased), or None to download it."""
    essence = media_type_essence(declared)
    return essence if essence in INLINE_TYPES else None


@router.get(
    '/api/attachments/{message_id}/{index}',
    response_class=FileResponse,
    responses={
        200: {
            'description': 'The file: inline for passive types, otherwise a download.',
            'content': {DOWNLOAD_TYPE: {}, **{kind: {} for kind in sorted(INLINE_TYPES)}},
        },
        **error_responses(404),
    },
)
async def attachment(
    message_id: str, index: int, context: Annotated[SynapseContext, Depends(get_context)]
) -> FileResponse:
    """The stored file, with a safe content type and `nosniff`."""
    found = None
    if is_valid_id(message_id):
        found = await run_in_threadpool(attachment_reference, context.store, message_id, index)
    if found is None:
        raise ApiError(404, f'No attachment {index} on message {shown_id(message_id)}.')
    conversation_id, reference = found
    path = resolve_path(context.store.attachments_dir, reference, conversation_id, message_id)
    if path is None:
        raise ApiError(404, 'The attachment file is missing.')
    inline = served_type(reference.get('media_type'))
    return FileResponse(
        path,
        media_type=inline or DOWNLOAD_TYPE,
        filename=sanitise_name(str(reference.get('name') or path.name)),
        content_disposition_type='inline' if inline else 'attachment',
        headers={'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': ATTACHMENT_CSP},
    )
