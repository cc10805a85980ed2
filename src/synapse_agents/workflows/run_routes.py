"""The workflow runs' HTTP API: list (by workflow, status, sandbox), read with its steps (each naming
its conversation), and PATCH a running run (a finished run is immutable: 409).

A run whose task ended without it (its worker died and the task sweep failed the task) is failed
when it is read, as the periodic `workflows.reconcile` job does: a run is never left `running`.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ..store.schema import utcnow
from ..web.context import SynapseContext, get_context
from ..web.errors import error_responses
from ..wire_types import Timestamp
from . import runs
from .tables import RUN_STATUSES, WorkflowRun, WorkflowRunStep

router = APIRouter(tags=['workflows'])

Context = Annotated[SynapseContext, Depends(get_context)]
ID = r'^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
RunId = Annotated[str, Path(json_schema_extra={'pattern': ID}, description='A workflow run id.')]
Status = Literal['running', 'completed', 'failed']
assert set(RUN_STATUSES) == {'running', 'completed', 'failed'}


class WorkflowRunOut(BaseModel):
    id: str
    workflow: str = Field(description="The workflow's key (kept when the workflow is deleted).")
    workflow_version: int
    workflow_deleted: bool = Field(description='The definition was deleted (the run stays).')
    is_sandbox: bool
    status: str = Field(description='running, completed or failed.')
    current_step_index: int = Field(description='The last step started (-1: none yet).')
    step_count: int
    input: Any
    output: Any
    error: str | None
    failed_step: str | None
    task_id: str | None
    total_tokens: int
    cost: Decimal | None = Field(description='null while a step cost is unknown (an unpriced model).')
    duration_ms: int | None
    started_at: Timestamp
    completed_at: Timestamp | None

    @classmethod
    def of(cls, run: WorkflowRun) -> WorkflowRunOut:
        return cls(
            id=run.id,
            workflow=run.workflow_key,
            workflow_version=run.workflow_version,
            workflow_deleted=run.workflow_id is None,
            is_sandbox=run.is_sandbox,
            status=run.status,
            current_step_index=run.current_step_index,
            step_count=run.step_count,
            input=run.input,
            output=run.output,
            error=run.error,
            failed_step=run.failed_step,
            task_id=run.task_id,
            total_tokens=run.total_tokens,
            cost=run.cost,
            duration_ms=run.duration_ms,
            started_at=run.started_at,
            completed_at=run.completed_at,
        )


class WorkflowStepOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    position: int
    name: str
    agent: str
    status: str = Field(description='running, completed or failed.')
    conversation_id: str | None = Field(description='The conversation the step ran in (origin workflow).')
    agent_run_id: str | None = Field(description="The step's agent run (its trace).")
    message: str | None
    output: Any
    error: str | None
    total_tokens: int
    cost: Decimal | None
    duration_ms: int | None
    started_at: Timestamp
    completed_at: Timestamp | None

    @classmethod
    def of(cls, row: WorkflowRunStep) -> WorkflowStepOut:
        return cls.model_validate(row)


class WorkflowRunDetail(WorkflowRunOut):
    steps: list[WorkflowStepOut]


class WorkflowRunList(BaseModel):
    runs: list[WorkflowRunOut]


class WorkflowRunPatch(BaseModel):
    """A change to a running run: `status: failed` stops it before its next step."""

    model_config = ConfigDict(extra='forbid')

    status: Literal['failed'] | None = None
    error: str | None = Field(None, max_length=4000, pattern=r'^[^\x00]*$')


@router.get('/api/workflow-runs', response_model=WorkflowRunList)
async def list_runs(
    context: Context,
    workflow: Annotated[str | None, Query(max_length=100)] = None,
    status: Annotated[Status | None, Query()] = None,
    sandbox: Annotated[Literal['exclude', 'include', 'only'], Query()] = 'exclude',
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> WorkflowRunList:
    """Runs, newest first; by workflow key and status (sandbox runs left out unless asked for)."""
    rows = await run_in_threadpool(
        lambda: runs.listed(context.store, workflow_key=workflow, status=status, sandbox=sandbox, limit=limit)
    )
    return WorkflowRunList(runs=[WorkflowRunOut.of(row) for row in rows])


def _detail(context: SynapseContext, run_id: str) -> WorkflowRunDetail:
    run = runs.get_run(context.store, run_id)
    if run.status == 'running' and run.task_id is not None and runs.reconcile(context.store, run_id):
        run = runs.get_run(context.store, run_id)
    steps = [WorkflowStepOut.of(row) for row in runs.steps(context.store, run_id)]
    return WorkflowRunDetail(**WorkflowRunOut.of(run).model_dump(), steps=steps)


@router.get('/api/workflow-runs/{run_id}', response_model=WorkflowRunDetail)
async def get_run(run_id: RunId, context: Context) -> WorkflowRunDetail:
    """The run with its steps in order, each naming its conversation."""
    return await run_in_threadpool(_detail, context, run_id)


@router.patch('/api/workflow-runs/{run_id}', response_model=WorkflowRunDetail, responses=error_responses(409))
async def change_run(run_id: RunId, body: WorkflowRunPatch, context: Context) -> WorkflowRunDetail:
    """Change a running run: `{"status": "failed", "error": "..."}` fails it (it stops before its
    next step). A finished run is immutable: 409."""

    def changed() -> WorkflowRunDetail:
        run = runs.get_run(context.store, run_id)
        values: dict[str, Any] = {}
        if body.status == 'failed':
            moment = utcnow()
            values = {
                'status': 'failed',
                'error': body.error or 'Failed by request.',
                'completed_at': moment,
                'duration_ms': round((moment - run.started_at).total_seconds() * 1000),
            }
        elif body.error is not None:
            values = {'error': body.error}
        if values:
            runs.update_running(context.store, run_id, **values)
        else:
            runs.check_running(context.store, run_id)
        return _detail(context, run_id)

    return await run_in_threadpool(changed)
