"""The retrieval HTTP API: sources, their indexing and progress, files, chunks, and search.

A bad input is a 422 naming the field (`SourceInvalid`), an unknown slug or chunk a 404
(`SourceNotFound`), a slug taken or a source already being indexed a 409 (`SourceConflict`);
blocking services run in a thread.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, File, Query, Response, UploadFile
from pydantic import BaseModel, ConfigDict, Field, StrictBool
from starlette.concurrency import run_in_threadpool

from ..errors import SourceInvalid
from ..web.context import SynapseContext, get_context
from ..web.errors import ApiError, error_responses
from ..wire_types import Timestamp
from . import sources
from .connectors import upload_target
from .jobs import queue_index
from .search import MAX_K, search

router = APIRouter(tags=['retrieval'])
MAX_UPLOAD_NAME = 200

Context = Annotated[SynapseContext, Depends(get_context)]
SLUG = r'^[a-z0-9][a-z0-9-]{0,63}$'
Slug = Annotated[str, Field(json_schema_extra={'pattern': SLUG}, examples=['handbook'])]
TENANT = r'^[^:\x00]{1,255}:[^\x00]{1,255}$'
Text = Annotated[str, Field(max_length=2000, pattern=r'^[^\x00]*$')]
Globs = Annotated[list[Annotated[str, Field(max_length=500, pattern=r'^[^\x00]*$')]], Field(max_length=100)]
Urls = Annotated[list[Annotated[str, Field(max_length=2000, pattern=r'^[^\x00]*$')]], Field(max_length=1000)]
ChunkId = Annotated[
    str,
    Field(
        json_schema_extra={
            'pattern': r'^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
        }
    ),
]


class SourceOut(BaseModel):
    """A source with its indexing state."""

    id: str
    slug: str
    name: str
    description: str | None
    kind: str
    config: dict[str, Any]
    tenant: str | None = Field(description='null: every tenant may use it; `type:id`: only that tenant.')
    active: bool
    status: Literal['pending', 'indexing', 'done', 'failed']
    last_error: str | None
    total_files: int
    processed_files: int
    current_file: str | None
    document_count: int = Field(description='Files indexed.')
    chunk_count: int
    embedder: str | None = Field(description='The embedder of the last run; null: none (text search).')
    last_indexed_at: Timestamp | None
    created_at: Timestamp
    updated_at: Timestamp


class SourceList(BaseModel):
    sources: list[SourceOut]


class SourceIn(BaseModel):
    """A new source; `path`, `include`, `exclude` and `urls` go into its config by kind."""

    model_config = ConfigDict(extra='forbid')

    slug: Slug
    name: Annotated[str, Field(min_length=1, max_length=200, pattern=r'^[^\x00]*\S[^\x00]*$')]
    description: Text | None = None
    kind: Annotated[str, Field(min_length=1, max_length=64, pattern=r'^[a-z0-9][a-z0-9_-]*$')]
    path: Text | None = None
    include: Globs | None = None
    exclude: Globs | None = None
    urls: Urls | None = None
    tenant: Annotated[str, Field(pattern=TENANT)] | None = None
    active: StrictBool = True


class SourcePatch(BaseModel):
    """The fields to change; the others stay."""

    model_config = ConfigDict(extra='forbid')

    name: Annotated[str, Field(min_length=1, max_length=200, pattern=r'^[^\x00]*\S[^\x00]*$')] | None = None
    description: Text | None = None
    active: StrictBool | None = None
    path: Text | None = None
    include: Globs | None = None
    exclude: Globs | None = None
    urls: Urls | None = None


class IndexIn(BaseModel):
    model_config = ConfigDict(extra='forbid')

    reembed: StrictBool = Field(False, description="Re-embed chunks made by another embedder than today's.")


class IndexQueued(BaseModel):
    task_id: str
    source: SourceOut


class ProgressOut(BaseModel):
    status: Literal['pending', 'indexing', 'done', 'failed']
    processed_files: int
    total_files: int
    current_file: str | None
    last_error: str | None
    chunk_count: int
    document_count: int
    last_indexed_at: Timestamp | None


class FileOut(BaseModel):
    identifier: str
    status: Literal['indexed', 'failed']
    error: str | None
    chunk_count: int
    size: int
    indexed_at: Timestamp | None


class FileList(BaseModel):
    files: list[FileOut]


class Uploaded(BaseModel):
    identifier: str
    size: int


class UploadedList(BaseModel):
    files: list[Uploaded]


class Citation(BaseModel):
    source: str
    source_name: str
    file: str
    page: int | None
    heading: str | None
    chunk_index: int
    chunk_total: int


class ChunkOut(BaseModel):
    id: str
    source: str
    content: str
    chunk_index: int
    chunk_total: int
    citation: Citation


class DocumentPage(BaseModel):
    chunks: list[ChunkOut]
    total: int


class SearchResult(BaseModel):
    score: float = Field(description='Cosine similarity, or the share of the query words held (text).')
    chunk: ChunkOut


class SearchOut(BaseModel):
    embedder: str | None
    ranked_by: Literal['similarity', 'text']
    results: list[SearchResult]


def _out(row: Any, context: SynapseContext) -> SourceOut:
    return SourceOut(**sources.source_json(row, context.settings.task_stale_seconds))


@router.get('/api/rag/sources', response_model=SourceList)
async def list_sources(context: Context) -> SourceList:
    """Every source, by slug."""
    rows = await run_in_threadpool(sources.list_sources, context.store)
    return SourceList(sources=[_out(r, context) for r in rows])


@router.post('/api/rag/sources', response_model=SourceOut, status_code=201, responses=error_responses(409))
async def create_source(body: SourceIn, context: Context) -> SourceOut:
    """A new source (`pending` until indexed)."""
    fields = body.model_dump(exclude_none=True)
    row = await run_in_threadpool(
        lambda: sources.create(context.store, context.settings, context.plugins, **fields)
    )
    return _out(row, context)


@router.get('/api/rag/sources/{slug}', response_model=SourceOut)
async def get_source(slug: str, context: Context) -> SourceOut:
    return _out(await run_in_threadpool(sources.get, context.store, slug), context)


@router.patch('/api/rag/sources/{slug}', response_model=SourceOut)
async def change_source(slug: str, body: SourcePatch, context: Context) -> SourceOut:
    """Change a source (a changed path or globs take effect at the next indexing)."""
    changes = body.model_dump(exclude_unset=True)
    if changes.get('name', '') is None or changes.get('active', False) is None:
        raise SourceInvalid('name and active cannot be null.')
    row = await run_in_threadpool(
        lambda: sources.update(context.store, context.settings, context.plugins, slug, changes)
    )
    return _out(row, context)


@router.delete('/api/rag/sources/{slug}', status_code=204, response_class=Response)
async def delete_source(slug: str, context: Context) -> Response:
    """Delete the source, its chunks and its uploads (a folder source's folder is left alone)."""
    await run_in_threadpool(sources.delete, context.store, context.settings, slug)
    return Response(status_code=204)


@router.post(
    '/api/rag/sources/{slug}/index',
    response_model=IndexQueued,
    status_code=202,
    responses=error_responses(409),
)
async def index_source(slug: str, context: Context, body: IndexIn | None = None) -> IndexQueued:
    """Queue an indexing run (409 while one runs or waits)."""
    reembed = body.reembed if body is not None else False
    task_id, row = await run_in_threadpool(lambda: queue_index(context, slug, reembed=reembed))
    return IndexQueued(task_id=task_id, source=_out(row, context))


@router.get('/api/rag/sources/{slug}/progress', response_model=ProgressOut)
async def source_progress(slug: str, context: Context) -> ProgressOut:
    row = await run_in_threadpool(sources.get, context.store, slug)
    return ProgressOut(**sources.progress_json(row, context.settings.task_stale_seconds))


@router.get('/api/rag/sources/{slug}/files', response_model=FileList)
async def source_files(
    slug: str, context: Context, status: Literal['indexed', 'failed'] | None = None
) -> FileList:
    rows = await run_in_threadpool(sources.files, context.store, slug, status)
    return FileList(files=[FileOut(**sources.file_json(r)) for r in rows])


@router.post(
    '/api/rag/sources/{slug}/files',
    response_model=UploadedList,
    status_code=201,
    responses=error_responses(409, 413),
)
async def upload_files(
    slug: str,
    context: Context,
    files: Annotated[list[UploadFile] | None, File(description='The files to add.')] = None,
    files_brackets: Annotated[list[UploadFile] | None, File(alias='files[]')] = None,
) -> UploadedList:
    """Add files to an `upload` source (indexed at its next run); a file of the same name is replaced."""
    row = await run_in_threadpool(sources.get, context.store, slug)
    if row.kind != 'upload':
        raise SourceInvalid('files: only an upload source takes uploaded files.')
    received = [*(files or []), *(files_brackets or [])]
    if not received:
        raise SourceInvalid('files: no file sent.')
    limit = context.settings.rag_max_file_bytes
    home = context.settings.home
    saved: list[Uploaded] = []
    for upload in received:
        name = (upload.filename or '').replace('\\', '/').rsplit('/', 1)[-1]
        if len(name) > MAX_UPLOAD_NAME or any(ord(c) < 32 or ord(c) == 127 for c in name):
            raise SourceInvalid(f'files: a file name of at most {MAX_UPLOAD_NAME} printable characters.')
        target = upload_target(home, row.id, name)
        if upload.size is not None and upload.size > limit:
            raise ApiError(413, f'{name} is larger than {limit} bytes.')
        data = await upload.read()
        if len(data) > limit:
            raise ApiError(413, f'{name} is larger than {limit} bytes.')
        await run_in_threadpool(_write, target, data)
        saved.append(Uploaded(identifier=target.name, size=len(data)))
    return UploadedList(files=saved)


@router.delete('/api/rag/sources/{slug}/files', status_code=204, response_class=Response)
async def delete_file(
    slug: str, context: Context, identifier: Annotated[str, Query(min_length=1, max_length=2000)]
) -> Response:
    """Remove an uploaded file and its chunks."""
    await run_in_threadpool(sources.remove_upload, context.store, context.settings, slug, identifier)
    return Response(status_code=204)


@router.get('/api/rag/sources/{slug}/documents', response_model=DocumentPage)
async def source_documents(
    slug: str,
    context: Context,
    file: Annotated[str | None, Query(max_length=2000)] = None,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
    limit: Annotated[int, Query(ge=1, le=sources.MAX_PAGE)] = 50,
) -> DocumentPage:
    """A page of the source's chunks, in file and chunk order."""
    chunks, total = await run_in_threadpool(
        lambda: sources.documents(context.store, slug, file=file or None, offset=offset, limit=limit)
    )
    return DocumentPage(chunks=[ChunkOut(**c) for c in chunks], total=total)


@router.get('/api/rag/chunks/{chunk_id}', response_model=ChunkOut)
async def get_chunk(chunk_id: str, context: Context) -> ChunkOut:
    """One chunk (opened from a citation)."""
    return ChunkOut(**await run_in_threadpool(sources.chunk, context.store, chunk_id))


@router.get('/api/rag/search', response_model=SearchOut, responses=error_responses(404))
async def search_sources(
    context: Context,
    q: Annotated[str, Query(min_length=1, max_length=4000, json_schema_extra={'pattern': r'\S'})],
    source: Annotated[list[str] | None, Query(description='Source slugs; none: every active one.')] = None,
    k: Annotated[int, Query(ge=1, le=MAX_K)] = 10,
    tenant: Annotated[
        str | None,
        Query(
            json_schema_extra={'pattern': r'^([^:\x00]{1,255}:[^\x00]{1,255})?$'},
            description="`type:id`; '' or none: shared sources only.",
        ),
    ] = None,
    file: Annotated[str | None, Query(max_length=2000)] = None,
) -> SearchOut:
    """The chunks closest to `q` in the sources a tenant may see, with scores and citations."""
    answer = await search(
        context.store,
        context.settings,
        q,
        sources=source or (),
        tenant=sources.check_tenant(tenant),
        k=k,
        file=file or None,
    )
    return SearchOut(**answer.as_json())


def _write(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix='.upload-')
    try:
        with os.fdopen(handle, 'wb') as out:
            out.write(data)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
