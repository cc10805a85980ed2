"""What filled each prompt: a turn's (`GET /api/messages/{id}/context`) and one model call's
(`GET /api/traces/calls/{id}/context`).

The rows are written with the turn (`chat/prompt_context.py`); the playground draws one stacked bar
per request from them and the trace view shows the one of its model call.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from ...conversations.prompt_contexts import for_message, for_request
from ...traces.read import call_place
from ..context import SynapseContext, get_context
from ..errors import ApiError, error_responses, require_id

router = APIRouter(tags=['conversations'])

Context = Annotated[SynapseContext, Depends(get_context)]
Kind = Literal[
    'rules', 'instructions', 'memories', 'tools', 'summary', 'history', 'message', 'run', 'retrieved'
]


class ContextBlock(BaseModel):
    """One source of the request's context window."""

    kind: Kind
    label: str
    tokens: int = Field(description='An estimate (about four characters a token).')
    text: str | None = Field(
        None, description='The block as sent, cut at 4,000 characters; null when the turn kept no bodies.'
    )
    truncated: bool = False


class RequestContext(BaseModel):
    """One model request of the turn, by source."""

    position: int = Field(description="0 for the turn's first request.")
    run_id: str | None
    model: str | None
    provider: str | None
    context_window: int | None = Field(
        description="The model's window in tokens, when genai-prices knows it."
    )
    estimated_tokens: int = Field(description='The sum of the blocks (estimates).')
    input_tokens: int | None = Field(
        description='What the provider counted for the whole request, when it said.'
    )
    estimated: bool = True
    blocks: list[ContextBlock]


class TurnContext(BaseModel):
    requests: list[RequestContext]


class CallContext(BaseModel):
    context: RequestContext | None = Field(
        description="The model call's request by source; null for a call of a run no turn recorded "
        '(a nested run) or recorded before this was kept.'
    )


@router.get('/api/messages/{message_id}/context', response_model=TurnContext, responses=error_responses(404))
async def message_context(message_id: str, context: Context) -> TurnContext:
    """What filled each prompt of the turn whose answer is `message_id`: an empty list for a turn
    recorded before this was kept (or that made no model request)."""
    require_id(message_id, 'message')
    rows = await run_in_threadpool(for_message, context.store, message_id)
    return TurnContext(requests=[RequestContext.model_validate(row) for row in rows])


@router.get(
    '/api/traces/calls/{debug_id}/context', response_model=CallContext, responses=error_responses(404)
)
async def call_context(debug_id: str, context: Context) -> CallContext:
    """What filled the prompt of one model call of a trace."""
    require_id(debug_id, 'model call')
    place = await run_in_threadpool(call_place, context.store, debug_id)
    if place is None:
        raise ApiError(404, f'No model call with id {debug_id}.')
    row = await run_in_threadpool(for_request, context.store, *place)
    return CallContext(context=RequestContext.model_validate(row) if row is not None else None)
