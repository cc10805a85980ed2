"""`POST /api/agents/{slug}/chat` (the turn, streamed) and `GET /api/agents/{slug}/models`."""

from __future__ import annotations

from typing import Annotated, Any, cast

from fastapi import APIRouter, Depends, File, Form, UploadFile
from fastapi.responses import JSONResponse, StreamingResponse

from ..._storable import Unreadable, loads
from ...chat.attachments import Upload
from ...chat.request import InputLimits, TurnRequest, check_content, check_text
from ...chat.service import current_snapshot, find_agent, target_for
from ...conversations.deferred import Decisions, read_decisions
from ...errors import AgentLookupError, DecisionsInvalid
from ...scope import Scope, parse_label
from ...targets.deps_values import parse_values
from ...targets.model_choice import selectable_models
from ...targets.target import TurnTarget
from ..context import SynapseContext, get_context
from ..errors import ApiError, error_responses
from ..vercel import SDK_VERSION, STREAM_HEADERS, SdkVersion, encode_turn
from .schemas import STREAM_EVENT, STREAM_RESPONSE_HEADERS, ModelList

router = APIRouter(tags=['chat'])

Context = Annotated[SynapseContext, Depends(get_context)]
ScopeField = Annotated[
    str | None,
    Form(
        json_schema_extra={'pattern': r'^([^:\x00]{1,255}:[^\x00]{1,255})?$'},
        description="A `type:id` of the conversation's scope (`tenant`, `actor`, `subject`): chat as that "
        'tenant, person and subject, so `Rules()`, `Memory()` and spending limits see them. Only for a new '
        'conversation (a continued one keeps its own: another is a 409); empty or omitted: none.',
    ),
]


async def _found(context: SynapseContext, slug: str) -> Any:
    found = await find_agent(context, slug)
    if found is None:
        raise ApiError(404, f'No agent with slug {slug!r}.')
    return found


async def _discovered_agents(context: SynapseContext) -> list[Any]:
    """The discovered agents' objects (the followers of a turn's model: `chat/sub_agents.py`)."""
    if context.catalog is None:
        return []
    try:
        snapshot = await current_snapshot(context.catalog)
    except AgentLookupError:
        return []
    return [found.agent for found in snapshot.agents]


@router.get('/api/agents/{slug}/models', response_model=ModelList, responses=error_responses(409))
async def agent_models(slug: str, context: Context) -> JSONResponse:
    """The models the playground can run this agent on; `default` is preselected."""
    try:
        found = await _found(context, slug)
    except AgentLookupError as exc:
        raise ApiError(409, f'The agents could not be loaded: {exc}') from exc
    target = target_for(found)
    options = selectable_models(target.own_model_id, list(context.settings.models))
    return JSONResponse({'default': options[0].id, 'models': [o.as_dict() for o in options]})


async def _read_uploads(files: list[UploadFile], limit: int) -> list[Upload]:
    uploads: list[Upload] = []
    for file in files:
        if file.size is not None and file.size > limit:
            raise ApiError(413, f'{file.filename or "An attachment"} is larger than {limit} bytes.')
        data = await file.read()
        if len(data) > limit:
            raise ApiError(413, f'{file.filename or "An attachment"} is larger than {limit} bytes.')
        uploads.append(Upload(file.filename or 'file', file.content_type or '', data))
    return uploads


# What the form schema cannot say with optional fields alone: text that is not only whitespace, or
# at least one file (either field name).
_MESSAGE_OR_FILE = [
    {'required': ['message'], 'properties': {'message': {'pattern': r'\S'}}},
    {'required': ['attachments'], 'properties': {'attachments': {'minItems': 1}}},
    {'required': ['attachments[]'], 'properties': {'attachments[]': {'minItems': 1}}},
    {'required': ['decisions']},
]


@router.post(
    '/api/agents/{slug}/chat',
    response_class=StreamingResponse,
    responses={
        200: {
            'description': 'A Vercel AI UI message stream: `data: {json}` events ending with `data: [DONE]`.',
            'content': {'text/event-stream': {'schema': STREAM_EVENT}},
            'headers': STREAM_RESPONSE_HEADERS,
        },
        **error_responses(404, 409, 413, 422, 503, 507),
    },
    openapi_extra={
        'requestBody': {'content': {'multipart/form-data': {'schema': {'anyOf': _MESSAGE_OR_FILE}}}}
    },
)
async def chat(
    slug: str,
    context: Context,
    message: Annotated[str, Form(description='The user message.')] = '',
    attachments: Annotated[list[UploadFile] | None, File(description='Files sent with the message.')] = None,
    attachments_brackets: Annotated[list[UploadFile] | None, File(alias='attachments[]')] = None,
    conversation_id: Annotated[str | None, Form(description='Continue this conversation.')] = None,
    model: Annotated[str | None, Form(description='A model id from /models.')] = None,
    decisions: Annotated[
        str | None,
        Form(
            description='JSON: answers to the tool calls the conversation waits on, by tool call id: '
            '{"approved": true}, {"approved": false, "reason": "..."} or {"result": ...}. The turn '
            'resumes the paused run; `message` is then left empty.'
        ),
    ] = None,
    sdk_version: Annotated[
        int,
        Form(
            ge=5,
            le=7,
            description='The `ai` SDK version the stream targets: 6 and 7 add tool approval chunks.',
        ),
    ] = SDK_VERSION,
    deps: Annotated[
        str | None,
        Form(
            description="JSON object: values for the agent's `deps_schema`, checked against it and kept "
            "for the conversation (omitted: the conversation's stored values)."
        ),
    ] = None,
    tenant: ScopeField = None,
    actor: ScopeField = None,
    subject: ScopeField = None,
) -> StreamingResponse:
    """Send a message; the answer streams back as the Vercel AI UI message stream."""
    files = [*(attachments or []), *(attachments_brackets or [])]
    limits = InputLimits.of(context.settings)
    # The engine checks the turn again (`chat/request.py`); here first, so the answer is the same
    # whatever else is wrong with the request (an unknown agent, a file too large to read).
    check_text(
        message,
        conversation_id=conversation_id,
        model_id=model,
        file_names=[file.filename or '' for file in files],
        limits=limits,
    )
    scope = _scope(tenant, actor, subject)  # or InvalidScope, a 422 naming the field
    answers = _read_decisions(decisions)
    deps_values = parse_values(deps)  # or DepsRejected, a 422
    check_content(message, len(files), decisions=answers is not None)
    setup_error: BaseException | None = None
    try:
        target = target_for(await _found(context, slug))
    except AgentLookupError as exc:
        target, setup_error = TurnTarget(agent=None, slug=slug, name=slug), exc
    if model:
        allowed = {o.id for o in selectable_models(target.own_model_id, list(context.settings.models))}
        if model not in allowed:
            raise ApiError(422, f'model: {model!r} is not one of the models offered for this agent.')
    uploads = await _read_uploads(files, context.settings.attachments_max_bytes)
    service = context.chat_service()
    prepared = await service.engine.prepare(
        TurnRequest(
            target,
            message,
            uploads,
            conversation_id or None,
            model or None,
            origin='playground',
            sub_agents=await _discovered_agents(context),
            decisions=answers,
            deps_values=deps_values,
            scope=scope,
        )
    )
    if setup_error is not None:
        prepared.setup_error = setup_error
    return StreamingResponse(
        encode_turn(service.engine.stream(prepared), cast('SdkVersion', sdk_version)),
        media_type='text/event-stream',
        headers=STREAM_HEADERS,
    )


def _scope(tenant: str | None, actor: str | None, subject: str | None) -> Scope:
    """The scope the playground asks a new conversation to have (`type:id` labels; '' for none)."""
    labels = {'tenant': tenant, 'actor': actor, 'subject': subject}
    return Scope(**{axis: parse_label(axis, label) if label else None for axis, label in labels.items()})


def _read_decisions(raw: str | None) -> Decisions | None:
    """The `decisions` field read, or a 422 saying what is wrong with it."""
    if raw is None or not raw.strip():
        return None
    try:
        value = loads(raw)
    except Unreadable as exc:
        where = exc.flaw.location('body.decisions') if exc.flaw else 'body.decisions'
        raise ApiError(
            422, f'decisions: {exc.message}.', fields=[{'location': where, 'message': exc.message}]
        ) from None
    if not isinstance(value, dict):
        value = raw  # `read_decisions` says what it expected
    try:
        return read_decisions(value)
    except DecisionsInvalid as exc:
        raise ApiError(422, str(exc), fields=[{'location': 'body.decisions', 'message': str(exc)}]) from exc
