"""The eval runs' HTTP API: start a run (on the task queue), list, read with per-case results,
stop, and compare two runs case by case."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ..web.context import SynapseContext, get_context
from ..web.errors import error_responses
from ..wire_types import Timestamp
from . import runs
from .book import KEY
from .execute import queue_run
from .tables import EvalCaseResult, EvalRun

router = APIRouter(tags=['evals'])

Context = Annotated[SynapseContext, Depends(get_context)]
ID = r'^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
RunId = Annotated[str, Path(json_schema_extra={'pattern': ID}, description='An eval run id.')]


class RunIn(BaseModel):
    """A dataset to run against an agent, on its own model, on `model`, or with `preset`."""

    model_config = ConfigDict(extra='forbid')

    dataset: str = Field(json_schema_extra={'pattern': KEY.pattern, 'maxLength': 100})
    agent: str = Field(min_length=1, max_length=255, description='The agent slug.')
    model: str | None = Field(
        None, min_length=1, max_length=255, description="A model id; null: the agent's own."
    )
    preset: str | None = Field(
        None,
        min_length=1,
        max_length=100,
        description='A registry preset key: its model with its settings (not with `model`).',
    )
    version: int | None = Field(None, ge=1, description='The dataset version; null: the latest.')
    label: str | None = Field(None, max_length=200, pattern=r'^[^\x00]*$')
    concurrency: int = Field(4, ge=1, le=runs.MAX_CONCURRENCY, description='Cases run at once.')


class RunsIn(BaseModel):
    """A dataset to run against an agent on several models or presets at once, side by side: one run
    each."""

    model_config = ConfigDict(extra='forbid')

    dataset: str = Field(json_schema_extra={'pattern': KEY.pattern, 'maxLength': 100})
    agent: str = Field(min_length=1, max_length=255, description='The agent slug.')
    models: list[Annotated[str, Field(min_length=1, max_length=255)] | None] = Field(
        default_factory=list,
        max_length=runs.MAX_SIDE_BY_SIDE,
        description="Model ids, each run once; null: the agent's own. No id twice.",
    )
    presets: list[Annotated[str, Field(min_length=1, max_length=100)]] = Field(
        default_factory=list,
        max_length=runs.MAX_SIDE_BY_SIDE,
        description='Registry preset keys, each run once after the models (at most 6 runs in all).',
    )
    version: int | None = Field(None, ge=1, description='The dataset version; null: the latest.')
    label: str | None = Field(
        None, max_length=200, pattern=r'^[^\x00]*$', description="Each run's label is this and its model."
    )
    concurrency: int = Field(4, ge=1, le=runs.MAX_CONCURRENCY, description="Each run's cases at once.")


JsonObject = Annotated[dict[str, Any], BeforeValidator(lambda value: dict(value or {}))]
"""A JSON column read as an object (a null one as `{}`)."""


class RunOut(BaseModel):
    model_config = ConfigDict(from_attributes=True, populate_by_name=True)

    id: str
    dataset: str = Field(validation_alias='dataset_key')
    dataset_version: int
    agent: str = Field(validation_alias='agent_key')
    agent_version: int | None = Field(
        None, description="A configured agent's version when the run started; null for a code agent."
    )
    model: str | None
    preset: str | None = Field(description='The registry preset the cases ran with; null: none.')
    label: str | None
    status: str = Field(description='queued, running, stopping, succeeded, failed or cancelled.')
    concurrency: int
    task_id: str | None
    case_count: int
    passed: int
    failed: int
    errored: int
    pass_rate: float | None
    scores: Annotated[dict[str, float], BeforeValidator(lambda value: dict(value or {}))] = Field(
        description="Each score's mean over the cases that have it."
    )
    cost: Decimal | None = Field(description='null while any case cost is unknown (an unpriced model).')
    input_tokens: int
    output_tokens: int
    duration_ms: int
    error: str | None
    created_at: Timestamp
    started_at: Timestamp | None
    finished_at: Timestamp | None

    @classmethod
    def of(cls, run: EvalRun) -> RunOut:
        return cls.model_validate(run)


class CaseResultOut(BaseModel):
    model_config = ConfigDict(from_attributes=True, populate_by_name=True)

    position: int
    case: str = Field(validation_alias='case_name')
    passed: bool
    conversation_id: str | None = Field(description='The conversation the case ran in (origin eval).')
    output: Any
    assertions: JsonObject = Field(description='`{name: {"value": bool, "reason": str | null}}`.')
    scores: JsonObject
    labels: JsonObject
    error: str | None
    cost: Decimal | None
    input_tokens: int
    output_tokens: int
    duration_ms: int

    @classmethod
    def of(cls, row: EvalCaseResult) -> CaseResultOut:
        return cls.model_validate(row)


class RunDetail(RunOut):
    cases: list[CaseResultOut] = Field(description='Failing cases first, then in the dataset order.')


class RunList(BaseModel):
    runs: list[RunOut]


class CaseComparison(BaseModel):
    case: str
    change: str = Field(description='regressed, new, still failing, gone, fixed or still passing.')
    before: CaseResultOut | None
    after: CaseResultOut | None
    cost_delta: Decimal | None
    duration_delta_ms: int | None


class Comparison(BaseModel):
    before: RunOut
    after: RunOut
    cases: list[CaseComparison]


def _detail(run: EvalRun, rows: list[EvalCaseResult]) -> RunDetail:
    ordered = sorted(rows, key=lambda row: (row.passed, row.position))
    return RunDetail(**RunOut.of(run).model_dump(), cases=[CaseResultOut.of(row) for row in ordered])


@router.post('/api/evals/runs', response_model=RunOut, status_code=202, responses=error_responses(404))
async def start_run(body: RunIn, context: Context) -> RunOut:
    """Queue a run of the dataset against the agent; it runs on the task queue (poll `GET /{id}`).
    An unknown dataset or preset is a 404; `model` with `preset` a 422."""

    def queued() -> EvalRun:
        run = runs.create_run(
            context.store,
            body.dataset,
            body.agent,
            model=body.model,
            preset=body.preset,
            label=body.label,
            concurrency=body.concurrency,
            version=body.version,
        )
        queue_run(context, run.id)
        return runs.get_run(context.store, run.id)

    return RunOut.of(await run_in_threadpool(queued))


@router.post(
    '/api/evals/runs/side-by-side', response_model=RunList, status_code=202, responses=error_responses(404)
)
async def start_runs(body: RunsIn, context: Context) -> RunList:
    """Queue one run per model, then per preset, of the same dataset version, in the order given
    (open two of them in the comparison once they end)."""

    def queued() -> list[EvalRun]:
        created = runs.create_runs(
            context.store,
            body.dataset,
            body.agent,
            body.models,
            presets=body.presets,
            label=body.label,
            concurrency=body.concurrency,
            version=body.version,
        )
        for run in created:
            queue_run(context, run.id)
        return [runs.get_run(context.store, run.id) for run in created]

    return RunList(runs=[RunOut.of(run) for run in await run_in_threadpool(queued)])


@router.get('/api/evals/runs', response_model=RunList)
async def list_runs(
    context: Context,
    dataset: Annotated[str | None, Query(max_length=100)] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> RunList:
    """Runs, newest first; with `dataset`, that dataset's."""
    rows = await run_in_threadpool(runs.listed, context.store, dataset or None, limit)
    return RunList(runs=[RunOut.of(row) for row in rows])


@router.get('/api/evals/runs/compare', response_model=Comparison, responses=error_responses(404))
async def compare_runs(
    context: Context,
    before: Annotated[str, Query(json_schema_extra={'pattern': ID})],
    after: Annotated[str, Query(json_schema_extra={'pattern': ID})],
) -> Comparison:
    """Two runs case by case (by case name): what passed before and fails now first."""

    def compared() -> Comparison:
        changes = runs.compare(context.store, before, after)
        cases = []
        for change in changes:
            old, new = change.before, change.after
            cost_delta = None
            if old is not None and new is not None and old.cost is not None and new.cost is not None:
                cost_delta = new.cost - old.cost
            duration = (
                change.after.duration_ms - change.before.duration_ms
                if change.before is not None and change.after is not None
                else None
            )
            cases.append(
                CaseComparison(
                    case=change.case_name,
                    change=change.change,
                    before=CaseResultOut.of(change.before) if change.before else None,
                    after=CaseResultOut.of(change.after) if change.after else None,
                    cost_delta=cost_delta,
                    duration_delta_ms=duration,
                )
            )
        return Comparison(
            before=RunOut.of(runs.get_run(context.store, before)),
            after=RunOut.of(runs.get_run(context.store, after)),
            cases=cases,
        )

    return await run_in_threadpool(compared)


@router.get('/api/evals/runs/{run_id}', response_model=RunDetail)
async def get_run(run_id: RunId, context: Context) -> RunDetail:
    """The run with its cases' results (failing ones first)."""
    run = await run_in_threadpool(runs.get_run, context.store, run_id)
    return _detail(run, await run_in_threadpool(runs.results, context.store, run_id))


@router.post('/api/evals/runs/{run_id}/stop', response_model=RunOut, responses=error_responses(409))
async def stop_run(run_id: RunId, context: Context) -> RunOut:
    """Stop the run: queued, it is cancelled; running, no new case starts (409 once it has ended)."""
    return RunOut.of(await run_in_threadpool(runs.request_stop, context.store, run_id))
