"""JSON errors everywhere: every 4xx/5xx the API returns has the same small shape.

    {"error": {"code": "not_found", "message": "No agent with slug 'x'.", "fields": [...]}}

`message` says what was wrong in words a user can act on; `fields` (validation errors only)
lists each bad input as {"location", "message"}.

A domain error (`errors.py`) a route lets through is answered by `domain_error`: no such
conversation or agent is a 404, a conflict with the conversation's state a 409 (`scope_mismatch`,
`approval_pending`, `not_awaiting`), input a turn cannot run with a 422 (`decisions_invalid`,
`deps_invalid`, ...), uploads the disk refused a 507 (`store_full`) or 503 (`store_unavailable`).

A stored row Synapse cannot read (`corrupt.CorruptRow`: edited by hand, or damaged) is a 409 with
code `corrupt_row` and the row named: `{"code": "corrupt_row", "message": ..., "table": ...,
"id": ..., "detail": ...}`.

A failing database (unreachable, locked past the busy timeout, a corrupted file) is a 503 with code
`store_unavailable`; anything else unexpected is a 500 with code `internal`. Both are logged with
their traceback, and both carry the security headers: the 500 answer is written by Starlette's
outermost middleware, outside `SecurityHeadersMiddleware`, so it adds them itself.

The OpenAPI schema declares these answers on every operation (`declare_errors`): 400 (a NUL in
the URL, a body that cannot be parsed), the access refusals (401, 403) and 422 everywhere, 404
where a path names something, 413 where a body is sent, plus what a route declares itself with
`error_responses(...)`. FastAPI's own 422 shape
(`HTTPValidationError`), which this API never sends, is replaced by `Error`.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.exc import DataError, DBAPIError, IntegrityError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..corrupt import CorruptRow
from ..errors import (
    AgentAccessDenied,
    ApprovalPending,
    AttachmentsNotSaved,
    ConversationNotFound,
    DecisionsInvalid,
    DepsRejected,
    EvalConflict,
    EvalDatasetNotFound,
    EvalPresetNotFound,
    EvalRunNotFound,
    InvalidScope,
    MemoryNotFound,
    NotAUserMessage,
    NotAwaiting,
    RuleInvalid,
    RuleNotFound,
    ScopeMismatch,
    SourceConflict,
    SourceInvalid,
    SourceNotFound,
    SynapseError,
    TaskError,
    TurnInFlight,
    TurnInvalid,
    UnknownAgent,
    VectorStoreUnavailable,
    WorkflowConflict,
    WorkflowInvalid,
    WorkflowNotFound,
    WorkflowRunNotFound,
    WrongAgent,
)
from ..store.ids import is_valid_id, shown_id
from .headers import SECURITY_HEADERS

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
    503: 'store_unavailable',
}


_DESCRIPTIONS = {
    400: 'The request is malformed: a NUL character in the URL, or a body that cannot be parsed.',
    401: 'Authorisation is required (token mode): a Bearer token or the session cookie.',
    403: 'Refused: a Host that is not allowed, a cross-site write, or `authorize` said no.',
    404: 'Nothing with that id or slug.',
    409: 'Conflict with the current state.',
    413: 'The request body, or an attachment, is too large.',
    422: 'The input is invalid; `fields` says which.',
    429: 'Too many failed attempts.',
    503: 'The store (the database) is failing: unreachable, locked or damaged.',
}


class ErrorField(BaseModel):
    """One invalid input."""

    location: str = Field(description="Where, e.g. 'query.page' or 'body.message'.")
    message: str


class ErrorDetail(BaseModel):
    """What went wrong."""

    model_config = ConfigDict(extra='allow')

    code: str = Field(description="'not_found', 'invalid_request', 'too_large', ...")
    message: str
    fields: list[ErrorField] | None = Field(None, description='Validation errors only.')


class Error(BaseModel):
    """The body of every error answer."""

    error: ErrorDetail


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` entries for these error statuses (JSON `Error` bodies)."""
    return {
        status: {'model': Error, 'description': _DESCRIPTIONS.get(status, 'Error.')} for status in statuses
    }


class ApiError(Exception):
    """Raise from a route to answer with a JSON error."""

    def __init__(self, status: int, message: str, *, code: str | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code or _CODES.get(status, 'error')
        self.extra = extra


# The HTTP answer to each domain error (`errors.py`): its status and code (None: the status's own).
# The first class an error is an instance of decides, so a subclass comes before its base.
_DOMAIN: tuple[tuple[type[SynapseError], int, str | None], ...] = (
    (ConversationNotFound, 404, None),
    (UnknownAgent, 404, None),
    (NotAUserMessage, 404, None),
    (WrongAgent, 409, None),
    (ScopeMismatch, 409, 'scope_mismatch'),
    (ApprovalPending, 409, 'approval_pending'),
    (NotAwaiting, 409, 'not_awaiting'),
    (TurnInFlight, 409, None),
    (AgentAccessDenied, 403, None),
    (DecisionsInvalid, 422, 'decisions_invalid'),
    (DepsRejected, 422, None),  # its own code: deps_invalid, deps_required, deps_unexpected
    (TurnInvalid, 422, None),
    (InvalidScope, 422, None),
    (RuleNotFound, 404, None),
    (MemoryNotFound, 404, None),
    (EvalDatasetNotFound, 404, None),
    (EvalRunNotFound, 404, None),
    (EvalPresetNotFound, 404, None),
    (EvalConflict, 409, 'conflict'),
    (RuleInvalid, 422, None),  # MemoryInvalid and EvalInvalid too
    (WorkflowNotFound, 404, None),
    (WorkflowRunNotFound, 404, None),
    (WorkflowConflict, 409, 'conflict'),
    (WorkflowInvalid, 422, None),
    (SourceNotFound, 404, None),
    (SourceConflict, 409, 'conflict'),
    (SourceInvalid, 422, None),
    (VectorStoreUnavailable, 503, 'vector_store_unavailable'),
)


def domain_error(exc: SynapseError) -> ApiError | None:
    """The JSON error answering a domain error of `errors.py`, or None when it has no HTTP answer
    (a spending error ends a turn inside its stream, never a request)."""
    fields = getattr(exc, 'fields', None)
    extra: dict[str, Any] = {'fields': fields} if fields else {}
    if isinstance(exc, AttachmentsNotSaved):
        return ApiError(
            507 if exc.full else 503, str(exc), code='store_full' if exc.full else 'store_unavailable'
        )
    if isinstance(exc, TaskError):
        return ApiError(exc.status, exc.message, **extra)
    for kind, status, code in _DOMAIN:
        if isinstance(exc, kind):
            code = exc.code if isinstance(exc, DepsRejected) else code
            return ApiError(status, str(exc), code=code, **extra)
    return None


def require_id(value: str, what: str) -> str:
    """`value` when it is a Synapse id, else a 404 `ApiError` ("No conversation with id ...", cut short).

    Called before anything reads the database or the disk: an id that cannot be one of Synapse's
    names nothing, whatever it would have meant as a file name.
    """
    if not is_valid_id(value):
        raise ApiError(404, f'No {what} with id {shown_id(value)}.')
    return value


def error_body(status: int, message: str, code: str | None = None, **extra: Any) -> dict[str, Any]:
    return {'error': {'code': code or _CODES.get(status, 'error'), 'message': message, **extra}}


def error_response(
    status: int, message: str, code: str | None = None, headers: dict[str, str] | None = None, **extra: Any
) -> JSONResponse:
    return JSONResponse(error_body(status, message, code, **extra), status_code=status, headers=headers)


def _location(loc: tuple[Any, ...] | list[Any]) -> str:
    return '.'.join(str(part) for part in loc)


def install_error_handlers(app: FastAPI) -> None:
    """Answer every error as JSON (validation, HTTP errors, anything unexpected); declare them in OpenAPI."""
    _install_openapi(app)

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.message, exc.code, **exc.extra)

    @app.exception_handler(SynapseError)
    async def _domain(request: Request, exc: SynapseError) -> JSONResponse:
        error = domain_error(exc)
        if error is None:
            return await _unexpected(request, exc)
        return error_response(error.status, error.message, error.code, **error.extra)

    @app.exception_handler(CorruptRow)
    async def _corrupt(_request: Request, exc: CorruptRow) -> JSONResponse:
        logger.warning('a stored row cannot be read: %s', exc)
        return error_response(409, str(exc), 'corrupt_row', table=exc.table, id=exc.row_id, detail=exc.detail)

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

    async def _store_failed(request: Request, exc: Exception) -> JSONResponse:
        if isinstance(exc, IntegrityError | DataError):
            # A constraint or a value the database refused is a bug of Synapse's, not an outage.
            return await _unexpected(request, exc)
        logger.exception('the store failed on %s %s', request.method, request.url.path)
        return error_response(503, _store_message(request, exc), 'store_unavailable')

    app.add_exception_handler(DBAPIError, _store_failed)
    app.add_exception_handler(PoolTimeout, _store_failed)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        # Logged with its traceback on the server; the response names the class only.
        logger.exception('unhandled error on %s %s', request.method, request.url.path)
        return error_response(
            500,
            f'Internal error ({type(exc).__name__}); see the server log.',
            'internal',
            headers=dict(SECURITY_HEADERS),
        )


def _store_message(request: Request, exc: Exception) -> str:
    """What the store said, in one line: the driver's own words without the SQL or its parameters."""
    store = getattr(getattr(request.app.state, 'synapse', None), 'store', None)
    dialect = getattr(store, 'dialect', 'database')
    original = getattr(exc, 'orig', None) or exc
    said = (str(original).strip().splitlines() or [type(original).__name__])[0][:200]
    return f'The store is failing: the {dialect} database answered "{said}". See the server log.'


_ERROR_REF = {'$ref': '#/components/schemas/Error'}
_WRITES = ('post', 'put', 'patch')


def declare_errors(schema: dict[str, Any]) -> dict[str, Any]:
    """Add the JSON error answers every operation can give to an OpenAPI schema (in place)."""
    for path, operations in schema.get('paths', {}).items():
        for method, operation in operations.items():
            statuses = [400, 401, 403, 422]  # 400: a NUL in the URL, a body that cannot be parsed
            if '{' in path:
                statuses.append(404)
            if method in _WRITES or 'requestBody' in operation:
                statuses.append(413)
            responses = operation.setdefault('responses', {})
            if '503' not in responses:  # a route that answers 503 itself declares its own body
                statuses.append(503)
            for status in statuses:
                entry = responses.setdefault(str(status), {'description': _DESCRIPTIONS[status]})
                entry['content'] = {'application/json': {'schema': _ERROR_REF}}
    components = schema.setdefault('components', {}).setdefault('schemas', {})
    if 'Error' not in components:
        definition = Error.model_json_schema(ref_template='#/components/schemas/{model}')
        components.update(definition.pop('$defs', {}))
        components['Error'] = definition
    text = repr(schema.get('paths', {}))
    for unused in ('HTTPValidationError', 'ValidationError'):
        if f'#/components/schemas/{unused}' not in text:
            components.pop(unused, None)
    return schema


def _install_openapi(app: FastAPI) -> None:
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = declare_errors(generate())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
