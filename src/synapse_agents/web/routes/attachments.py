"""`GET /api/attachments/{message_id}/{index}`: a file sent with a chat message."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import FileResponse
from starlette.concurrency import run_in_threadpool

from ...chat.attachments import resolve_path
from ...store.history import attachment_reference
from ..context import SynapseContext, get_context
from ..errors import ApiError

router = APIRouter(tags=['attachments'])

# Served inline only when a browser cannot run them; everything else downloads.
_INLINE = (
    'image/png',
    'image/jpeg',
    'image/gif',
    'image/webp',
    'application/pdf',
    'text/plain',
    'audio/',
    'video/',
)


@router.get('/api/attachments/{message_id}/{index}')
async def attachment(
    message_id: str, index: int, context: Annotated[SynapseContext, Depends(get_context)]
) -> FileResponse:
    """The stored file, with a safe content type and `nosniff`."""
    reference = await run_in_threadpool(attachment_reference, context.store, message_id, index)
    if reference is None:
        raise ApiError(404, f'No attachment {index} on message {message_id!r}.')
    path = resolve_path(context.store.attachments_dir, reference)
    if path is None or not path.is_file():
        raise ApiError(404, 'The attachment file is missing.')
    media_type = str(reference.get('media_type') or 'application/octet-stream')
    inline = any(
        media_type == kind or (kind.endswith('/') and media_type.startswith(kind)) for kind in _INLINE
    )
    if not inline:
        media_type = 'application/octet-stream'
    return FileResponse(
        path,
        media_type=media_type,
        filename=str(reference.get('name') or path.name),
        content_disposition_type='inline' if inline else 'attachment',
        headers={
            'X-Content-Type-Options': 'nosniff',
            'Content-Security-Policy': "default-src 'none'; sandbox",
        },
    )
