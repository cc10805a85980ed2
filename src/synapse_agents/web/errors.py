"""JSON errors everywhere: every 4xx/5xx the API returns has the same small shape.

    {"error": {"code": "not_found", "message": "No agent with slug 'x'.", "fields": [...]}}

`message` says what was wrong in words a user can act on; `fields` (validation errors only)
lists each bad input as {"location", "message"}.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

logger = logging.getLogger('synapse.web')

_CODES = {
    400: 'bad_request',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'not_found',
    405: 'method_not_allowed',
    409: 'conflict',
    413: 'too_large',
    415: 'unsupported_media_type',
    422: 'invalid_request',
    429: 'too_many_requests',
}


class ApiError(Exception):
    """Raise from a route to answer with a JSON error."""

    def __init__(self, status: int, message: str, *, code: str | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code or _CODES.get(status, 'error')
        self.extra = extra


def error_body(status: int, message: str, code: str | None = None, **extra: Any) -> dict[str, Any]:
    return {'error': {'code': code or _CODES.get(status, 'error'), 'message': message, **extra}}


def error_response(
    status: int, message: str, code: str | None = None, headers: dict[str, str] | None = None, **extra: Any
) -> JSONResponse:
    return JSONResponse(error_body(status, message, code, **extra), status_code=status, headers=headers)


def _location(loc: tuple[Any, ...] | list[Any]) -> str:
    return '.'.join(str(part) for part in loc)


def install_error_handlers(app: FastAPI) -> None:
    """Answer every error as JSON: validation, HTTP errors, and anything unexpected."""

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.message, exc.code, **exc.extra)

    @app.exception_handler(RequestValidationError)
    async def _validation(_request: Request, exc: RequestValidationError) -> JSONResponse:
        fields = [
            {'location': _location(e.get('loc', ())), 'message': e.get('msg', '')} for e in exc.errors()
        ]
        first = fields[0] if fields else {'location': 'request', 'message': 'invalid'}
        return error_response(422, f'{first["location"]}: {first["message"]}', fields=fields)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        message = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        return error_response(exc.status_code, message, headers=getattr(exc, 'headers', None))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        # Logged with its traceback on the server; the response names the class only.
        logger.exception('unhandled error on %s %s', request.method, request.url.path)
        return error_response(500, f'Internal error ({type(exc).__name__}); see the server log.', 'internal')
