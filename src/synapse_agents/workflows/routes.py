"""The workflows' HTTP API: create, list, read (now or at a version), change, delete, versions,
validate a definition, and start a run (on the task queue).

A definition that cannot be accepted is a 422 whose `fields` name each step and path at fault
(`body.definition.steps.1.input_mapping.text`); an unknown key or version a 404; a key already
taken, or a change made on a version that is no longer the latest, a 409. Sandbox workflows are
left out of the listing unless `?sandbox=include` or `only` asks for them; a key always finds them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query
from pydantic import BaseModel, ConfigDict, Field, StrictBool
from starlette.concurrency import run_in_threadpool

from ..web.context import SynapseContext, get_context
from ..web.errors import error_responses
from ..wire_types import Timestamp
from . import book, runs
from .agents import checked
from .execute import queue_run
from .run_routes import WorkflowRunOut
from .tables import Workflow, WorkflowRun, WorkflowVersion

router = APIRouter(tags=['workflows'])

Context = Annotated[SynapseContext, Depends(get_context)]
Key = Annotated[str, Path(json_schema_extra={'pattern': book.KEY.pattern}, description='A workflow key.')]
NAME = r'^[^\x00]*[^\s\x00][^\x00]*$'
KeyIn = Annotated[
    str, Field(json_schema_extra={'pattern': book.KEY.pattern, 'maxLength': 100}, examples=['triage-reply'])
]
NameIn = Annotated[str, Field(json_schema_extra={'pattern': NAME, 'maxLength': 200}, examples=['Triage'])]
DescriptionIn = Annotated[str, Field(json_schema_extra={'pattern': r'^[^\x00]*$', 'maxLength': 4000})]
EXAMPLE = {
    'version': 1,
    'steps': [
        {
            'name': 'step1',
            'agent_name': 'summariser',
            'input_mapping': {'message': '$.input.text'},
            'output_key': 'summary',
        }
    ],
    'outputs': {'final': '$.steps.step1.output.answer'},
}


class WorkflowIn(BaseModel):
    """A new workflow: its key, name and definition (checked against the agents it names)."""

    model_config = ConfigDict(extra='forbid')

    key: KeyIn
    name: NameIn
    description: DescriptionIn | None = None
    definition: dict[str, Any] = Field(examples=[EXAMPLE])
    is_sandbox: StrictBool = False


class WorkflowPatch(BaseModel):
    """What the next version changes; a field left out stays."""

    model_config = ConfigDict(extra='forbid')

    version: int | None = Field(
        None, description='The version this change was made on: 409 if it is not the latest.'
    )
    name: NameIn | None = None
    description: DescriptionIn | None = None
    definition: dict[str, Any] | None = None


class WorkflowDefinitionIn(BaseModel):
    """A definition to check without saving it."""

    model_config = ConfigDict(extra='forbid')

    definition: dict[str, Any] = Field(examples=[EXAMPLE])


class WorkflowRunIn(BaseModel):
    """A run's input: `$.input` of the definition's paths."""

    model_config = ConfigDict(extra='forbid')

    input: Any = Field(None, examples=[{'text': 'A long text to summarise.'}])


class WorkflowSummary(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    key: str
    name: str
    description: str | None
    version: int
    step_count: int
    is_sandbox: bool
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, row: Workflow) -> WorkflowSummary:
        return cls.model_validate(row)


class WorkflowList(BaseModel):
    workflows: list[WorkflowSummary]


class WorkflowOut(BaseModel):
    """A workflow at one version."""

    model_config = ConfigDict(from_attributes=True, populate_by_name=True)

    key: str
    version: int
    latest_version: int = Field(validation_alias='latest')
    name: str
    description: str | None
    definition: dict[str, Any]
    is_sandbox: bool
    change: str
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, found: book.WorkflowView) -> WorkflowOut:
        return cls.model_validate(found)


class WorkflowVersionOut(BaseModel):
    version: int
    name: str
    description: str | None
    definition: dict[str, Any]
    change: str
    created_at: Timestamp

    @classmethod
    def of(cls, row: WorkflowVersion) -> WorkflowVersionOut:
        return cls(
            version=row.version,
            name=row.name,
            description=row.description,
            definition=dict(row.definition or {}),
            change=row.change,
            created_at=row.created_at,
        )


class WorkflowVersionList(BaseModel):
    versions: list[WorkflowVersionOut]


class WorkflowDeleted(BaseModel):
    deleted: str
    runs_kept: int = Field(description='Runs of it that stay, their link to it set to null.')


class WorkflowValidation(BaseModel):
    valid: bool
    step_count: int


@router.get('/api/workflows', response_model=WorkflowList)
async def list_workflows(
    context: Context, sandbox: Annotated[Literal['exclude', 'include', 'only'], Query()] = 'exclude'
) -> WorkflowList:
    """Every workflow by key (sandboxes left out unless `sandbox` asks for them)."""
    rows = await run_in_threadpool(book.listed, context.store, sandbox)
    return WorkflowList(workflows=[WorkflowSummary.of(row) for row in rows])


@router.post('/api/workflows', response_model=WorkflowOut, status_code=201, responses=error_responses(409))
async def create_workflow(body: WorkflowIn, context: Context) -> WorkflowOut:
    """A new workflow at version 1 (a bad definition: 422 naming the step and path; key taken: 409)."""
    await checked(context, body.definition)
    created = await run_in_threadpool(
        lambda: book.create(
            context.store,
            body.key,
            body.name,
            body.definition,
            description=body.description,
            is_sandbox=body.is_sandbox,
        )
    )
    return WorkflowOut.of(created)


@router.post('/api/workflows/validate', response_model=WorkflowValidation)
async def validate_definition(body: WorkflowDefinitionIn, context: Context) -> WorkflowValidation:
    """Check a definition as saving it would (422 naming each step and path at fault)."""
    definition = await checked(context, body.definition)
    return WorkflowValidation(valid=True, step_count=len(definition.steps))


@router.get('/api/workflows/{key}', response_model=WorkflowOut)
async def get_workflow(
    key: Key, context: Context, version: Annotated[int | None, Query(ge=1)] = None
) -> WorkflowOut:
    """The workflow now, or at `version` (a sandbox too)."""
    return WorkflowOut.of(await run_in_threadpool(book.read, context.store, key, version))


@router.patch('/api/workflows/{key}', response_model=WorkflowOut, responses=error_responses(409))
async def change_workflow(key: Key, body: WorkflowPatch, context: Context) -> WorkflowOut:
    """The next version, with the fields given changed (a new definition is checked first)."""
    if body.definition is not None:
        await checked(context, body.definition)
    changed = await run_in_threadpool(
        lambda: book.change(
            context.store,
            key,
            name=body.name,
            description=body.description,
            definition=body.definition,
            expected_version=body.version,
        )
    )
    return WorkflowOut.of(changed)


@router.delete('/api/workflows/{key}', response_model=WorkflowDeleted)
async def delete_workflow(key: Key, context: Context) -> WorkflowDeleted:
    """Delete the workflow and its versions; its runs stay (their link set to null)."""
    kept = await run_in_threadpool(book.remove, context.store, key)
    return WorkflowDeleted(deleted=key, runs_kept=kept)


@router.get('/api/workflows/{key}/versions', response_model=WorkflowVersionList)
async def workflow_versions(key: Key, context: Context) -> WorkflowVersionList:
    """The workflow's versions, newest first."""
    rows = await run_in_threadpool(book.versions, context.store, key)
    return WorkflowVersionList(versions=[WorkflowVersionOut.of(row) for row in rows])


@router.post('/api/workflows/{key}/validate', response_model=WorkflowValidation)
async def validate_workflow(
    key: Key, context: Context, version: Annotated[int | None, Query(ge=1)] = None
) -> WorkflowValidation:
    """Check a stored definition (the latest, or `version`) against the agents as they are now (a
    422 naming each step and path at fault: an agent removed or changed since it was saved)."""
    found = await run_in_threadpool(book.read, context.store, key, version)
    definition = await checked(context, found.definition)
    return WorkflowValidation(valid=True, step_count=len(definition.steps))


@router.post('/api/workflows/{key}/run', response_model=WorkflowRunOut, status_code=202)
async def run_workflow(key: Key, body: WorkflowRunIn, context: Context) -> WorkflowRunOut:
    """Start a run of the workflow's latest version on the task queue (poll
    `GET /api/workflow-runs/{id}`); its agents are checked again first (422)."""
    found = await run_in_threadpool(book.read, context.store, key)
    await checked(context, found.definition)

    def queued() -> WorkflowRun:
        run = runs.create_run(context.store, found, body.input)
        queue_run(context, run.id)
        return runs.get_run(context.store, run.id)

    return WorkflowRunOut.of(await run_in_threadpool(queued))
