"""One check of every JSON request body for text no database can store, before any route reads it.

FastAPI reads a body as JSON when it has no content type or a JSON one (`application/json`,
`application/*+json`); so does this middleware. A body that parses and holds a lone UTF-16 surrogate
(`"\\ud800"`, in a value or a key, at any depth) is a 422 naming where it is, e.g.
`body.options.headers.0`, before a route could store it. A body that does not parse goes on
unchanged, so FastAPI answers it as it always does (a 400, or a 422 for malformed JSON). NUL
characters are left to each field's own rule (`registry/fields.py`, the routes' checks), which
names them in the same way.
"""

from __future__ import annotations

import json
from email.message import Message as MimeMessage
from typing import Any

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .._storable import flaw
from .errors import error_response

_BODY_METHODS = frozenset({'POST', 'PUT', 'PATCH', 'DELETE'})


def _is_json(content_type: str | None) -> bool:
    if not content_type:
        return True
    message = MimeMessage()
    message['content-type'] = content_type
    if message.get_content_maintype() != 'application':
        return False
    subtype = message.get_content_subtype()
    return subtype == 'json' or subtype.endswith('+json')


class StorableJsonMiddleware:
    """Refuses a JSON body holding a lone surrogate with a 422 naming its place (see the module)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope['type'] != 'http'
            or scope.get('method') not in _BODY_METHODS
            or not _is_json(Headers(scope=scope).get('content-type'))
        ):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        try:
            while True:
                message = await receive()
                if message['type'] != 'http.request':
                    break
                chunks.append(message.get('body', b''))
                if not message.get('more_body', False):
                    break
        except HTTPException as exc:  # the body limit, raised while counting
            await error_response(exc.status_code, str(exc.detail))(scope, receive, send)
            return
        body = b''.join(chunks)
        refusal = _refusal(body)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {'type': 'http.request', 'body': body, 'more_body': False}
            return await receive()

        await self.app(scope, replay, send)


def _refusal(body: bytes) -> Any:
    """The 422 answer for a body holding a lone surrogate, or None (it is fine, or not JSON)."""
    if not body:
        return None
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return None  # FastAPI answers it
    found = flaw(value, nul=False)
    if found is None:
        return None
    location = found.location('body').encode('utf-8', 'backslashreplace').decode('ascii')
    return error_response(
        422, f'{location}: {found.message}', fields=[{'location': location, 'message': found.message}]
    )
