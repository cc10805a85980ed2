"""Request limits (body size, no NUL in URLs) and the security headers every response carries."""

from __future__ import annotations

from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import error_response
from .headers import CONTENT_SECURITY_POLICY, SECURITY_HEADERS

__all__ = ['CONTENT_SECURITY_POLICY', 'SECURITY_HEADERS', 'BodyLimitMiddleware', 'SecurityHeadersMiddleware']


class SecurityHeadersMiddleware:
    """Adds `SECURITY_HEADERS` to every HTTP response (a route's own values win).

    The JSON 500 answer is the one exception it never sees: Starlette writes it from its outermost
    middleware, so `errors.install_error_handlers` puts the same headers on it itself.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope['type'] != 'http':
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message['type'] == 'http.response.start':
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    if name not in headers:
                        headers[name] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)


class BodyLimitMiddleware:
    """Refuses what no route should have to parse: large bodies and URLs carrying NUL characters.

    A request body larger than `max_bytes` is a 413 before it fills the disk: a declared
    `Content-Length` over the limit is refused before reading; a body without one is counted as it
    arrives. A path or query string with a NUL character (`%00`) is a 400: no id, slug or filter
    contains one, PostgreSQL cannot even compare text with one, and SQLite's full-text search
    misreads it.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope['type'] != 'http':
            await self.app(scope, receive, send)
            return
        if _has_nul(scope):
            await error_response(400, 'NUL characters are not accepted in URLs.')(scope, receive, send)
            return
        declared = Headers(scope=scope).get('content-length')
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await error_response(413, self._message())(scope, receive, send)
            return
        received = 0

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message['type'] == 'http.request':
                received += len(message.get('body', b''))
                if received > self.max_bytes:
                    raise HTTPException(413, self._message())
            return message

        await self.app(scope, counting_receive, send)

    def _message(self) -> str:
        return f'Request body is larger than the {self.max_bytes} bytes this server accepts.'


def _has_nul(scope: Scope) -> bool:
    path = str(scope.get('path', ''))
    query = bytes(scope.get('query_string', b'')).lower()
    return '\x00' in path or b'%00' in query or b'\x00' in query
