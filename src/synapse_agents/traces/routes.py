"""The trace area's HTTP API: roots, one tree, one model call.

A run id is pydantic-ai's (`run_id`, a UUID unless the app chose one), so paths are checked
against a plain id pattern rather than Synapse's own. Reads run in a thread.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query
from starlette.concurrency import run_in_threadpool

from ..store.ids import shown_id
from ..web.context import SynapseContext, get_context
from ..web.errors import ApiError, error_responses, require_id
from ..wire_types import IsoMoment
from . import read
from .edge import trimmed
from .schemas import ModelCallDetail, TraceNode, TracePage, TraceRoot, TraceTree

router = APIRouter(tags=['traces'])

Context = Annotated[SynapseContext, Depends(get_context)]
Origin = Literal['direct', 'code', 'config', 'ephemeral', 'workflow']
RUN_ID = r'^[A-Za-z0-9._:-]{1,64}$'
_RUN_ID = re.compile(RUN_ID)
MAX_PAGE = 200


def _run_id(value: str) -> str:
    if not _RUN_ID.fullmatch(value):
        raise ApiError(404, f'No run with id {shown_id(value)}.')
    return value


def _utc(moment: datetime | None) -> datetime | None:
    """A time without a zone is UTC."""
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment


@router.get('/api/traces', response_model=TracePage)
async def traces(
    context: Context,
    agent: Annotated[str | None, Query(min_length=1, max_length=255, description='An agent slug.')] = None,
    origin: Origin | None = None,
    workflow_run_id: Annotated[str | None, Query(pattern=RUN_ID)] = None,
    conversation_id: Annotated[str | None, Query(pattern=RUN_ID)] = None,
    message_id: Annotated[str | None, Query(pattern=RUN_ID)] = None,
    errors: Annotated[bool, Query(description='Only trees in which a run failed.')] = False,
    since: Annotated[IsoMoment | None, Query(description='Started at or after (ISO 8601).')] = None,
    until: Annotated[IsoMoment | None, Query(description='Started before (ISO 8601).')] = None,
    before: Annotated[
        str | None, Query(pattern=RUN_ID, description='The `next_before` of the last page.')
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = read.PAGE_SIZE,
) -> TracePage:
    """Root runs, newest first, one page (one query)."""
    filters = read.RootFilters(
        agent=agent,
        origin=origin,
        workflow_run_id=workflow_run_id,
        conversation_id=conversation_id,
        message_id=message_id,
        errors=errors,
        since=_utc(since),
        until=_utc(until),
        before=before,
        limit=limit,
    )
    await context.chat_service().writes.drain()  # the rows of turns that just ended
    rows = await run_in_threadpool(read.list_roots, context.store, filters)
    return TracePage(
        roots=[TraceRoot.of(row) for row in rows],
        next_before=rows[-1].agent_run_id if len(rows) == limit else None,
    )


@router.get('/api/traces/calls/{debug_id}', response_model=ModelCallDetail, responses=error_responses(404))
async def model_call(debug_id: str, context: Context) -> Any:
    """One model call's debug log with its request, history and response."""
    require_id(debug_id, 'model call')
    await context.chat_service().writes.drain()  # the rows of turns that just ended
    found = await run_in_threadpool(read.call_detail, context.store, debug_id)
    if found is None:
        raise ApiError(404, f'No model call with id {shown_id(debug_id)}.')
    return found


@router.get('/api/traces/{agent_run_id}', response_model=TraceTree, responses=error_responses(404))
async def trace(agent_run_id: str, context: Context) -> TraceTree:
    """The tree from this run down: its model calls, tool calls and the runs started inside them.

    A run 64 levels below this one is shown without what ran inside it (`hidden` counts it): ask for
    that run's trace to go on."""
    await context.chat_service().writes.drain()  # the rows of turns that just ended
    found = await run_in_threadpool(read.tree, context.store, _run_id(agent_run_id))
    if found is None:
        raise ApiError(404, f'No trace for run {shown_id(agent_run_id)}.')
    return TraceTree(root=TraceNode.model_validate(trimmed(found)))
