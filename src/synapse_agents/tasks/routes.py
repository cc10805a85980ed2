"""The task area's HTTP API: standing agents, their tasks (runs) and logs, events, schedule previews.

Ids in a path are checked to be Synapse ids (`require_id`) before anything is read. The services
are blocking and run in a thread; their refusals (`TaskError`) become JSON errors with the same
status, words and fields. Text no database can hold (a NUL character) is refused here with a 422,
before anything is looked up or stored. Queued tasks reach whoever runs tasks through
`task_service(runtime)` (the in-process worker of `synapse serve`, or Celery workers).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Depends, Query
from starlette.concurrency import run_in_threadpool

from ..store.ids import is_valid_id, shown_id
from ..web.context import SynapseContext, get_context
from ..web.errors import ApiError, error_responses, require_id
from . import agents, queue, standing_store
from .decisions import waiting_calls
from .errors import TaskError
from .queue import TaskFilters
from .schedule import Schedule, ScheduleError
from .schemas import (
    DecisionsIn,
    EventIn,
    FiredOut,
    RunQueued,
    SchedulePreview,
    StandingAgentList,
    StandingAgentOut,
    TaskDetail,
    TaskPage,
    TaskSummary,
)
from .service import task_service
from .standing_store import EVENT_PATTERN, StandingInput, StandingPatch, split_ref
from .tables import StandingAgent

router = APIRouter(tags=['tasks'])

Context = Annotated[SynapseContext, Depends(get_context)]
Status = Literal['queued', 'running', 'awaiting', 'succeeded', 'failed', 'cancelled']
"""`tables.STATUSES`."""
Trigger = Literal['schedule', 'event', 'manual']
"""`tables.TRIGGERS`."""
MAX_PAGE = 200

_ID: dict[str, Any] = {
    'type': 'string',
    'pattern': r'^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$',
}
"""A Synapse id (`ids.is_valid_id`), as the schema states it; the route checks it itself."""

Result = TypeVar('Result')


async def call(function: Callable[..., Result], *args: Any) -> Result:
    """Run a blocking service call in a thread; its refusals as JSON errors."""
    try:
        return await run_in_threadpool(function, *args)
    except TaskError as exc:
        raise _api_error(exc) from None


async def awaited(step: Awaitable[Result]) -> Result:
    """Await an async service call; its refusals as JSON errors."""
    try:
        return await step
    except TaskError as exc:
        raise _api_error(exc) from None


def _api_error(exc: TaskError) -> ApiError:
    extra: dict[str, Any] = {'fields': exc.fields} if exc.fields else {}
    return ApiError(exc.status, exc.message, **extra)


def refuse_nul(value: Any, location: str) -> None:
    """A 422 naming `location` when a string in `value` (keys included) holds a NUL character:
    PostgreSQL can neither store nor compare one."""
    if isinstance(value, str):
        found = '\x00' in value
    elif isinstance(value, dict):
        for key, item in value.items():
            refuse_nul(key, location)
            refuse_nul(item, f'{location}.{key}')
        return
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            refuse_nul(item, f'{location}.{index}')
        return
    else:
        return
    if found:
        name = location.split('.', 1)[-1]
        raise ApiError(
            422,
            f'{name}: NUL characters are not accepted.',
            fields=[{'location': location, 'message': 'NUL characters are not accepted'}],
        )


def query_id(value: str | None, name: str, what: str) -> str | None:
    """A query parameter that must be an id: a 422 naming it when it is not one."""
    if value is not None and not is_valid_id(value):
        raise ApiError(
            422,
            f'{name}: {shown_id(value)} is not {what} id.',
            fields=[{'location': f'query.{name}', 'message': f'not {what} id'}],
        )
    return value


# -- standing agents ---------------------------------------------------------------------------


def _out(context: SynapseContext, rows: list[StandingAgent]) -> list[StandingAgentOut]:
    """The rows with their last runs (one query for all of them)."""
    runs = queue.recent_runs(context.store, [row.id for row in rows])
    return [StandingAgentOut.of(row, runs.get(row.id, [])) for row in rows]


def _listing(context: SynapseContext) -> list[StandingAgentOut]:
    return _out(context, standing_store.list_all(context.store))


def _one(context: SynapseContext, standing_id: str) -> StandingAgentOut:
    return _out(context, [standing_store.get(context.store, standing_id)])[0]


def _created(context: SynapseContext, body: StandingInput) -> StandingAgentOut:
    return _out(context, [standing_store.create(context.store, body)])[0]


def _updated(context: SynapseContext, standing_id: str, body: StandingPatch) -> StandingAgentOut:
    return _out(context, [standing_store.update(context.store, standing_id, body)])[0]


def _enabled(context: SynapseContext, standing_id: str, enabled: bool) -> StandingAgentOut:
    return _out(context, [standing_store.set_enabled(context.store, standing_id, enabled)])[0]


@router.get('/api/standing-agents', response_model=StandingAgentList)
async def standing_agents(context: Context) -> StandingAgentList:
    """Every standing agent, newest first, with its schedule in words and its last runs."""
    return StandingAgentList(standing_agents=await call(_listing, context))


@router.post('/api/standing-agents', response_model=StandingAgentOut, status_code=201)
async def create_standing_agent(body: StandingInput, context: Context) -> StandingAgentOut:
    """Add a standing agent: an agent, an instruction, and a schedule, events, or neither."""
    refuse_nul(body.model_dump(), 'body')
    await awaited(agents.check_agent(context, body.agent))
    return await call(_created, context, body)


@router.get('/api/standing-agents/{standing_id}', response_model=StandingAgentOut)
async def standing_agent(standing_id: str, context: Context) -> StandingAgentOut:
    """One standing agent with its last runs."""
    require_id(standing_id, 'standing agent')
    return await call(_one, context, standing_id)


@router.patch('/api/standing-agents/{standing_id}', response_model=StandingAgentOut)
async def update_standing_agent(standing_id: str, body: StandingPatch, context: Context) -> StandingAgentOut:
    """Change a standing agent: the fields given replace its own (`cron: null` removes the schedule)."""
    require_id(standing_id, 'standing agent')
    refuse_nul(body.model_dump(exclude_unset=True), 'body')
    await call(standing_store.get, context.store, standing_id)
    if body.agent is not None:
        await awaited(agents.check_agent(context, body.agent))
    return await call(_updated, context, standing_id, body)


@router.delete('/api/standing-agents/{standing_id}', status_code=204)
async def delete_standing_agent(standing_id: str, context: Context) -> None:
    """Remove a standing agent (its tasks stay: they are history)."""
    require_id(standing_id, 'standing agent')
    await call(standing_store.remove, context.store, standing_id)


def _run_now(context: SynapseContext, standing_id: str) -> RunQueued:
    queued = task_service(context).run_now(standing_id)
    task, _logs = queue.get_task(context.store, queued.task_id)
    return RunQueued(task=TaskSummary.of(task), notice=queued.notice)


@router.post('/api/standing-agents/{standing_id}/run', response_model=RunQueued, status_code=202)
async def run_standing_agent(standing_id: str, context: Context) -> RunQueued:
    """Queue a run now (paused or not); the task as it was queued (a `notice` says when the broker
    did not answer: the task stays queued and is published when it does)."""
    require_id(standing_id, 'standing agent')
    return await call(_run_now, context, standing_id)


@router.post('/api/standing-agents/{standing_id}/pause', response_model=StandingAgentOut)
async def pause_standing_agent(standing_id: str, context: Context) -> StandingAgentOut:
    """Stop its schedule and events from firing it (run now still works)."""
    require_id(standing_id, 'standing agent')
    return await call(_enabled, context, standing_id, False)


@router.post('/api/standing-agents/{standing_id}/resume', response_model=StandingAgentOut)
async def resume_standing_agent(standing_id: str, context: Context) -> StandingAgentOut:
    """Fire it again; its schedule counts from now (what it missed while paused is not owed)."""
    require_id(standing_id, 'standing agent')
    return await call(_enabled, context, standing_id, True)


# -- tasks -------------------------------------------------------------------------------------


@router.get('/api/tasks', response_model=TaskPage)
async def tasks(
    context: Context,
    status: Annotated[list[Status], Query(default_factory=list, description='Repeatable.')],
    standing_agent: Annotated[
        str | None, Query(description="Only this standing agent's tasks.", json_schema_extra=_ID)
    ] = None,
    agent: Annotated[str | None, Query(min_length=1, max_length=255, description='An agent key.')] = None,
    trigger: Trigger | None = None,
    tenant: Annotated[
        str | None,
        Query(pattern=r'^[^:\x00]{1,255}(:[^\x00]{0,255})?$', description='type:id, or type alone.'),
    ] = None,
    event: Annotated[str | None, Query(pattern=EVENT_PATTERN)] = None,
    before: Annotated[
        str | None,
        Query(description='The `next_before` of the previous page.', json_schema_extra=_ID),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = queue.PAGE_SIZE,
) -> TaskPage:
    """Tasks, newest first, one page; `next_before` continues it."""
    filters = TaskFilters(
        status=list(dict.fromkeys(status)),
        standing_agent_id=query_id(standing_agent, 'standing_agent', 'a standing agent'),
        agent=agent,
        trigger=trigger,
        tenant=tenant,
        event=event,
        before=query_id(before, 'before', 'a task'),
        limit=limit,
    )
    rows = await call(queue.list_tasks, context.store, filters)
    return TaskPage(
        tasks=[TaskSummary.of(row) for row in rows],
        next_before=rows[-1].id if len(rows) == limit else None,
    )


@router.get('/api/tasks/{task_id}', response_model=TaskDetail, responses=error_responses(409))
async def task(task_id: str, context: Context) -> TaskDetail:
    """One task with its instruction, context, output and log; a 409 `corrupt_row` when its stored
    context cannot be read."""
    require_id(task_id, 'task')
    row, logs = await call(queue.get_task, context.store, task_id)
    waiting = await call(waiting_calls, context.store, row)
    return TaskDetail.with_logs(row, logs, waiting)


@router.post('/api/tasks/{task_id}/cancel', response_model=TaskSummary, responses=error_responses(409))
async def cancel_task(task_id: str, context: Context) -> TaskSummary:
    """Cancel a queued task at once, or ask a running one to stop; a finished one is a 409."""
    require_id(task_id, 'task')
    return TaskSummary.of(await call(queue.cancel, context.store, task_id))


@router.post(
    '/api/tasks/{task_id}/decisions', response_model=TaskSummary, responses=error_responses(409, 422)
)
async def decide_task(task_id: str, body: DecisionsIn, context: Context) -> TaskSummary:
    """Answer the tool calls an awaiting task waits on; it is queued again and resumes its run."""
    require_id(task_id, 'task')
    refuse_nul(body.decisions, 'body.decisions')
    return TaskSummary.of(await call(task_service(context).decide, task_id, body.decisions))


# -- events and schedules ----------------------------------------------------------------------


def _pair(value: str | None) -> tuple[str, str] | None:
    kind, ident = split_ref(value)
    return (kind, ident) if kind is not None and ident is not None else None


def _fire(context: SynapseContext, body: EventIn) -> FiredOut:
    fired = task_service(context).fire(
        body.event, tenant=_pair(body.tenant), subject=_pair(body.subject), context=body.context
    )
    return FiredOut(event=fired.event, queued=fired.queued, debounced=fired.debounced, notice=fired.notice)


@router.post('/api/events', response_model=FiredOut, status_code=202)
async def fire_event(body: EventIn, context: Context) -> FiredOut:
    """Fire an event: every enabled standing agent listening to it in that tenant runs (or a queued
    run within its debounce window takes this firing). A `notice` says when the broker did not
    answer: the tasks stay queued and are published when it does."""
    refuse_nul(body.model_dump(), 'body')
    return await call(_fire, context, body)


@router.get('/api/schedules/preview', response_model=SchedulePreview)
async def schedule_preview(
    cron: Annotated[str, Query(max_length=100, description='Five cron fields or a nickname (`@daily`).')],
    timezone: Annotated[str, Query(max_length=64, description='An IANA time zone.')] = 'UTC',
) -> SchedulePreview:
    """A cron expression checked: its words and its next three fire times (a 422 says what is wrong)."""
    try:
        schedule = Schedule.parse(cron, timezone)
    except ScheduleError as exc:
        raise ApiError(
            422, str(exc), fields=[{'location': f'query.{exc.field}', 'message': str(exc)}]
        ) from None
    return SchedulePreview(
        cron=schedule.cron, timezone=schedule.timezone, words=schedule.words(), next=schedule.upcoming(3)
    )
