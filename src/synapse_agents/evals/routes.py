"""The eval datasets' HTTP API: create, list, read (now or at a version), change, delete, versions,
a case added by hand or from a turn that happened, import and export as pydantic-evals files.

Cases and evaluators are pydantic-evals' own serialised form (`evals/cases.py`). A bad input is a
422 naming the field (`EvalInvalid`), an unknown key or version a 404, a change made on a version
that is no longer the latest (or a key already taken) a 409; blocking work runs in a thread.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool
from starlette.concurrency import run_in_threadpool

from ..errors import EvalConflict, EvalDatasetNotFound
from ..web.context import SynapseContext, get_context
from ..web.errors import error_responses
from ..wire_types import Timestamp
from . import book
from .cases import Format, file_text, parse_file
from .evaluator_routes import evaluator_types
from .from_messages import Expected, case_from_message
from .tables import EvalDataset, EvalDatasetVersion

router = APIRouter(tags=['evals'])

Context = Annotated[SynapseContext, Depends(get_context)]
Key = Annotated[str, Path(json_schema_extra={'pattern': book.KEY.pattern}, description='A dataset key.')]
NAME = r'^[^\x00]*[^\s\x00][^\x00]*$'
KeyIn = Annotated[
    str,
    Field(json_schema_extra={'pattern': book.KEY.pattern, 'maxLength': 100}, examples=['support-refunds']),
]
NameIn = Annotated[str, Field(json_schema_extra={'pattern': NAME, 'maxLength': 200}, examples=['Support'])]
DescriptionIn = Annotated[str, Field(json_schema_extra={'pattern': r'^[^\x00]*$', 'maxLength': 4000})]
TagsIn = Annotated[
    list[Annotated[str, Field(json_schema_extra={'pattern': NAME, 'maxLength': book.MAX_TAG})]],
    Field(json_schema_extra={'maxItems': book.MAX_TAGS}),
]
CASE_EXAMPLE = {
    'name': 'refund for a late order',
    'inputs': {'message': 'My order A-1001 is late, can I get a refund?'},
    'expected_output': None,
    'evaluators': [{'Contains': 'refund'}, {'ToolCalled': 'lookup_order'}],
}


class DatasetIn(BaseModel):
    """A new dataset: its key, name, cases and the evaluators applied to every case."""

    model_config = ConfigDict(extra='forbid')

    key: KeyIn
    name: NameIn
    description: DescriptionIn | None = None
    tags: TagsIn = Field(default_factory=list)
    cases: list[Any] = Field(default_factory=list, examples=[[CASE_EXAMPLE]])
    evaluators: list[Any] = Field(default_factory=list, examples=[['EqualsExpected']])


class DatasetPatch(BaseModel):
    """What the next version changes; a field left out stays. `cases` replaces them all."""

    model_config = ConfigDict(extra='forbid')

    version: int | None = Field(
        None, description='The version this change was made on: 409 if it is not the latest.'
    )
    name: NameIn | None = None
    description: DescriptionIn | None = None
    tags: TagsIn | None = None
    cases: list[Any] | None = None
    evaluators: list[Any] | None = None


class DatasetCaseIn(BaseModel):
    """One case to add, as pydantic-evals writes it."""

    model_config = ConfigDict(extra='forbid')

    case: dict[str, Any] = Field(examples=[CASE_EXAMPLE])
    version: int | None = Field(
        None, description='The version this case was added on: 409 if it is not the latest.'
    )


class CaseFromMessageIn(BaseModel):
    """A turn that happened, as a case: `message_id` is its user message or its answer."""

    model_config = ConfigDict(extra='forbid')

    message_id: str = Field(max_length=200)
    name: str | None = Field(None, description='The case name; by default the question, shortened.')
    expected: Expected = Field(
        'output', description='The answer as the expected output, as a reference in the metadata, or neither.'
    )
    include_history: StrictBool = Field(False, description='Send the conversation before the question too.')
    evaluators: list[Any] = Field(default_factory=list)


class DatasetImportIn(BaseModel):
    """A pydantic-evals dataset file: a new dataset, or the next version of `key` when it exists."""

    model_config = ConfigDict(extra='forbid')

    key: KeyIn
    name: NameIn | None = Field(None, description='By default the key (a new dataset) or the name it has.')
    format: Format = 'yaml'
    text: str = Field(max_length=20_000_000)


class DatasetSummary(BaseModel):
    key: str
    name: str
    description: str | None
    tags: list[str]
    version: int
    case_count: int
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, row: EvalDataset) -> DatasetSummary:
        return cls(
            key=row.key,
            name=row.name,
            description=row.description,
            tags=list(row.tags or []),
            version=row.version,
            case_count=row.case_count,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )


class DatasetList(BaseModel):
    datasets: list[DatasetSummary]


class DatasetOut(BaseModel):
    """A dataset at one version, with its cases."""

    key: str
    version: int
    latest_version: int
    name: str
    description: str | None
    tags: list[str]
    cases: list[dict[str, Any]]
    evaluators: list[Any]
    change: str = Field(description='What made this version.')
    created_at: Timestamp = Field(description='When this version was written.')

    @classmethod
    def of(cls, found: book.DatasetVersion) -> DatasetOut:
        return cls(
            key=found.key,
            version=found.version,
            latest_version=found.latest,
            name=found.name,
            description=found.description,
            tags=found.tags,
            cases=found.cases,
            evaluators=found.evaluators,
            change=found.change,
            created_at=found.created_at,
        )


class DatasetVersionOut(BaseModel):
    version: int
    name: str
    case_count: int
    change: str
    created_at: Timestamp

    @classmethod
    def of(cls, row: EvalDatasetVersion) -> DatasetVersionOut:
        return cls(
            version=row.version,
            name=row.name,
            case_count=len(row.cases or []),
            change=row.change,
            created_at=row.created_at,
        )


class DatasetVersionList(BaseModel):
    versions: list[DatasetVersionOut]


class DatasetDeleted(BaseModel):
    deleted: str
    versions: int


@router.get('/api/evals/datasets', response_model=DatasetList)
async def list_datasets(
    context: Context, tag: Annotated[str | None, Query(max_length=50)] = None
) -> DatasetList:
    """Every dataset, most recently changed first; with `tag`, those carrying it."""
    rows = await run_in_threadpool(book.listed, context.store, tag or None)
    return DatasetList(datasets=[DatasetSummary.of(row) for row in rows])


@router.post(
    '/api/evals/datasets', response_model=DatasetOut, status_code=201, responses=error_responses(409)
)
async def create_dataset(body: DatasetIn, context: Context) -> DatasetOut:
    """A new dataset at version 1 (its key taken: 409)."""
    types = await evaluator_types(context)
    created = await run_in_threadpool(
        lambda: book.create(
            context.store,
            body.key,
            body.name,
            cases=body.cases,
            evaluators=body.evaluators,
            description=body.description,
            tags=body.tags,
            types=types,
        )
    )
    return DatasetOut.of(created)


@router.post('/api/evals/datasets/import', response_model=DatasetOut, responses=error_responses(409))
async def import_dataset(body: DatasetImportIn, context: Context) -> DatasetOut:
    """A pydantic-evals dataset file (YAML or JSON) as a new dataset, or as the next version of `key`."""
    raw = parse_file(body.text, body.format)
    key = book.check_key(body.key)
    types = await evaluator_types(context)

    def imported() -> book.DatasetVersion:
        try:
            book.read(context.store, key)
        except EvalDatasetNotFound:
            return book.create(
                context.store,
                key,
                body.name or key,
                cases=raw['cases'],
                evaluators=raw.get('evaluators'),
                note='imported',
                types=types,
            )
        change = book.DatasetChange(
            name=body.name, cases=raw['cases'], evaluators=raw.get('evaluators') or []
        )
        return book.change(context.store, key, change, note='imported', types=types)

    return DatasetOut.of(await run_in_threadpool(imported))


@router.get('/api/evals/datasets/{key}', response_model=DatasetOut)
async def get_dataset(
    key: Key, context: Context, version: Annotated[int | None, Query(ge=1)] = None
) -> DatasetOut:
    """The dataset now, or at `version`."""
    return DatasetOut.of(await run_in_threadpool(book.read, context.store, key, version))


@router.patch('/api/evals/datasets/{key}', response_model=DatasetOut, responses=error_responses(409))
async def change_dataset(key: Key, body: DatasetPatch, context: Context) -> DatasetOut:
    """The next version, with the fields given changed."""
    sent = body.model_fields_set
    change = book.DatasetChange(
        name=body.name,
        description=body.description,
        tags=body.tags,
        cases=body.cases,
        evaluators=body.evaluators,
        clear_description='description' in sent and body.description is None,
    )
    types = await evaluator_types(context)
    changed = await run_in_threadpool(
        lambda: book.change(context.store, key, change, expected_version=body.version, types=types)
    )
    return DatasetOut.of(changed)


@router.delete('/api/evals/datasets/{key}', response_model=DatasetDeleted)
async def delete_dataset(key: Key, context: Context) -> DatasetDeleted:
    """Delete the dataset and every version of it."""
    versions = await run_in_threadpool(book.remove, context.store, key)
    return DatasetDeleted(deleted=key, versions=versions)


@router.get('/api/evals/datasets/{key}/versions', response_model=DatasetVersionList)
async def dataset_versions(key: Key, context: Context) -> DatasetVersionList:
    """The dataset's versions, newest first."""
    rows = await run_in_threadpool(book.versions, context.store, key)
    return DatasetVersionList(versions=[DatasetVersionOut.of(row) for row in rows])


@router.post('/api/evals/datasets/{key}/cases', response_model=DatasetOut, responses=error_responses(409))
async def add_case(key: Key, body: DatasetCaseIn, context: Context) -> DatasetOut:
    """The next version, with `case` added at the end."""
    types = await evaluator_types(context)

    def added() -> book.DatasetVersion:
        current = book.read(context.store, key)
        if body.version is not None and body.version != current.version:
            raise EvalConflict(
                f'Dataset {key!r} is at version {current.version}, not {body.version}: '
                'read it again and retry.'
            )
        return book.change_with_cases(
            context.store, current, [*current.cases, body.case], 'case added', types=types
        )

    return DatasetOut.of(await run_in_threadpool(added))


@router.post(
    '/api/evals/datasets/{key}/cases/from-message', response_model=DatasetOut, responses=error_responses(409)
)
async def add_case_from_message(key: Key, body: CaseFromMessageIn, context: Context) -> DatasetOut:
    """The next version, with the turn of `message_id` added as a case ("Save as test case")."""
    types = await evaluator_types(context)

    def added() -> book.DatasetVersion:
        current = book.read(context.store, key)
        case = case_from_message(
            context.store,
            body.message_id,
            taken_names={c['name'] for c in current.cases},
            name=body.name,
            expected=body.expected,
            include_history=body.include_history,
            evaluators=body.evaluators,
        )
        return book.change_with_cases(
            context.store, current, [*current.cases, case], 'case added from a message', types=types
        )

    return DatasetOut.of(await run_in_threadpool(added))


@router.get(
    '/api/evals/datasets/{key}/export',
    response_class=Response,
    responses={200: {'content': {'application/yaml': {}, 'application/json': {}}}},
)
async def export_dataset(
    key: Key,
    context: Context,
    format: Literal['yaml', 'json'] = 'yaml',
    version: Annotated[int | None, Query(ge=1)] = None,
) -> Response:
    """The dataset as a pydantic-evals dataset file (`Dataset.from_file` reads it)."""
    found = await run_in_threadpool(book.read, context.store, key, version)
    text = file_text(found.cases, found.evaluators, format)
    media = 'application/json' if format == 'json' else 'application/yaml'
    filename = f'{found.key}.v{found.version}.{format}'
    return Response(
        text, media_type=media, headers={'Content-Disposition': f'attachment; filename="{filename}"'}
    )
