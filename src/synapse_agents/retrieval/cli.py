"""`synapse rag`: add, index, status, search, remove and reembed retrieval sources.

`index` runs here with a Rich progress bar fed by the indexer's progress (`--queue` puts it on the
task queue instead). A refusal (a bad slug, an unknown source, one already being indexed) is one
line on standard error with exit code 1.
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from .. import cli_common
from ..cli_common import echo_json, when
from ..cli_tables import Column, fitted_table

if TYPE_CHECKING:
    from ..runtime.assembled import SynapseRuntime

rag_app = typer.Typer(
    help='Retrieval sources: folders and files indexed for search by meaning.', no_args_is_help=True
)
SOURCE_COLUMNS = (
    Column('Slug', least=8),
    Column('Kind', least=6, drop=3),
    Column('Tenant', least=8, drop=2),
    Column('Status', least=8),
    Column('Files', least=5, right=True),
    Column('Chunks', least=6, right=True),
    Column('Last indexed', least=10, drop=1),
)
FOUND_COLUMNS = (
    Column('Score', least=5, right=True),
    Column('File', least=10),
    Column('Chunk', least=5, right=True, drop=1),
    Column('Content', least=20),
)
SHOWN_CHARS = 160


def _refused(exc: Exception) -> tuple[str, int] | None:
    from ..embeddings.choose import EmbedderUnavailable
    from ..errors import SourceConflict, SourceInvalid, SourceNotFound, VectorStoreUnavailable

    known = SourceConflict | SourceInvalid | SourceNotFound | EmbedderUnavailable | VectorStoreUnavailable
    return (str(exc), 1) if isinstance(exc, known) else None


def _opened(ctx: typer.Context) -> AbstractContextManager[SynapseRuntime]:
    return cli_common.opened(ctx, refused=_refused)


def _say(text: str) -> None:
    Console().print(escape(text), highlight=False)


def _shown(content: str) -> str:
    text = ' '.join(content.split())
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + '…'


@rag_app.command('add')
def rag_add(
    ctx: typer.Context,
    slug: Annotated[str, typer.Argument(help='The source slug (a-z, 0-9, -).')],
    name: Annotated[str | None, typer.Option(help='Its name (default: the slug).')] = None,
    path: Annotated[str | None, typer.Option(help='The folder (kind folder).')] = None,
    include: Annotated[list[str] | None, typer.Option(help='Globs of files to index (repeat).')] = None,
    exclude: Annotated[list[str] | None, typer.Option(help='Globs of files to leave out (repeat).')] = None,
    kind: Annotated[str, typer.Option(help='folder, upload, urls, or a plugin connector kind.')] = 'folder',
    url: Annotated[list[str] | None, typer.Option(help='A URL to index (kind urls; repeat).')] = None,
    description: Annotated[str | None, typer.Option(help='What is in it.')] = None,
    tenant: Annotated[str | None, typer.Option(help="Only this tenant's ('type:id'); unset: shared.")] = None,
    as_json: Annotated[bool, typer.Option('--json', help='Print the source as JSON.')] = False,
) -> None:
    """Add a source (index it with `synapse rag index SLUG`)."""
    from . import sources

    fields: dict[str, Any] = {
        'path': path,
        'include': include or None,
        'exclude': exclude or None,
        'urls': url or None,
    }
    with _opened(ctx) as runtime:
        row = sources.create(
            runtime.store,
            runtime.settings,
            runtime.plugins,
            slug=slug,
            name=name or slug,
            kind=kind,
            description=description,
            tenant=tenant,
            **{k: v for k, v in fields.items() if v is not None},
        )
    if as_json:
        echo_json(sources.source_json(row))
        return
    _say(f'Added source {row.slug} ({row.kind}); index it with: synapse rag index {row.slug}')


def _index(ctx: typer.Context, slug: str, *, reembed: bool, queue: bool, as_json: bool) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from . import sources
    from .indexer import Progress as Step
    from .indexer import index_source
    from .jobs import queue_index

    with _opened(ctx) as runtime:
        if queue:
            task_id, _ = queue_index(runtime, slug, reembed=reembed)
            if as_json:
                echo_json({'task_id': task_id})
            else:
                _say(f'Queued indexing of {slug} (task {task_id}).')
            return
        source = sources.get(runtime.store, slug)
        console = Console(stderr=True)
        with Progress(
            TextColumn('[bold]{task.description}'),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn('{task.fields[file]}'),
            console=console,
            disable=as_json,
            transient=False,
        ) as bar:
            task = bar.add_task(slug, total=None, file='')

            def shown(step: Step) -> None:
                bar.update(
                    task, total=step.total, completed=step.processed, file=_shown(step.current_file or '')
                )

            outcome = asyncio.run(
                index_source(
                    runtime.store,
                    runtime.settings,
                    runtime.plugins,
                    source.id,
                    reembed=reembed,
                    progress=shown,
                )
            )
    if as_json:
        echo_json(outcome.as_json())
        return
    _say(
        f'{slug}: {outcome.status}; {outcome.files} files: {outcome.indexed} indexed, {outcome.unchanged} '
        f'unchanged, {outcome.reembedded} re-embedded, {outcome.failed} failed, {outcome.removed} removed; '
        f'{outcome.chunks} chunks.'
    )
    for error in outcome.errors[:10]:
        _say(f'  failed: {error}')
    if outcome.stale_chunks:
        _say(f'{outcome.stale_chunks} chunks were made by another embedder: synapse rag reembed {slug}')
    if outcome.status == 'failed':
        raise typer.Exit(1)


@rag_app.command('index')
def rag_index(
    ctx: typer.Context,
    slug: Annotated[str, typer.Argument(help='The source slug.')],
    queue: Annotated[bool, typer.Option('--queue', help='Queue it on the task queue instead.')] = False,
    as_json: Annotated[bool, typer.Option('--json', help='Print the outcome as JSON.')] = False,
) -> None:
    """Index a source here, with a progress bar (new and changed files; gone ones removed)."""
    _index(ctx, slug, reembed=False, queue=queue, as_json=as_json)


@rag_app.command('reembed')
def rag_reembed(
    ctx: typer.Context,
    slug: Annotated[str, typer.Argument(help='The source slug.')],
    queue: Annotated[bool, typer.Option('--queue', help='Queue it on the task queue instead.')] = False,
    as_json: Annotated[bool, typer.Option('--json', help='Print the outcome as JSON.')] = False,
) -> None:
    """Index a source and re-embed its chunks made by another embedder than the current one."""
    _index(ctx, slug, reembed=True, queue=queue, as_json=as_json)


@rag_app.command('status')
def rag_status(
    ctx: typer.Context,
    slug: Annotated[str | None, typer.Argument(help='One source (default: all).')] = None,
    as_json: Annotated[bool, typer.Option('--json', help='Print JSON.')] = False,
) -> None:
    """Sources with their indexing status and progress (one source: also its failed files)."""
    from . import sources
    from .embedding import RagEmbedder

    with _opened(ctx) as runtime:
        embedder = RagEmbedder.of(runtime.settings).name
        stale_after = runtime.settings.task_stale_seconds
        rows = [sources.get(runtime.store, slug)] if slug else sources.list_sources(runtime.store)
        stale = {row.id: sources.stale_chunks(runtime.store, row.id, embedder) for row in rows}
        failed = sources.files(runtime.store, slug, 'failed') if slug else []
    if as_json:
        echo_json(
            {
                'embedder': embedder,
                'sources': [
                    {**sources.source_json(r, stale_after), 'stale_chunks': stale[r.id]} for r in rows
                ],
                'failed_files': [sources.file_json(f) for f in failed],
            }
        )
        return
    table = fitted_table(
        'Sources',
        SOURCE_COLUMNS,
        [
            (
                r.slug,
                r.kind,
                r.tenant or 'shared',
                _status(r, stale_after),
                str(r.document_count),
                str(r.chunk_count),
                when(r.last_indexed_at),
            )
            for r in rows
        ],
    )
    Console().print(table)
    _say(f'Embedder: {embedder or "none (text search)"}')
    for row in rows:
        if stale[row.id]:
            _say(f'{row.slug}: {stale[row.id]} chunks of another embedder (synapse rag reembed {row.slug}).')
        last_error = sources.shown_state(row, stale_after)[1]
        if last_error:
            _say(f'{row.slug}: {last_error}')
    for item in failed:
        _say(f'failed: {item.error}')


def _status(row: Any, stale_after: float) -> str:
    from .sources import shown_state

    status = shown_state(row, stale_after)[0]
    if status == 'indexing':
        return f'indexing {row.processed_files}/{row.total_files}'
    return status


@rag_app.command('search')
def rag_search(
    ctx: typer.Context,
    slug: Annotated[str, typer.Argument(help='The source slug.')],
    query: Annotated[str, typer.Argument(help='What to look for.')],
    k: Annotated[int, typer.Option('-k', help='How many chunks.')] = 10,
    tenant: Annotated[str | None, typer.Option(help="As this tenant ('type:id').")] = None,
    as_json: Annotated[bool, typer.Option('--json', help='Print JSON.')] = False,
) -> None:
    """The chunks of a source closest to a query, with scores and citations."""
    from .search import search
    from .sources import check_tenant

    with _opened(ctx) as runtime:
        answer = asyncio.run(
            search(runtime.store, runtime.settings, query, sources=[slug], tenant=check_tenant(tenant), k=k)
        )
    if as_json:
        echo_json(answer.as_json())
        return
    rows = []
    for hit in answer.results:
        cite = hit.as_json()['chunk']['citation']
        place = cite['file'] + (f' p.{cite["page"]}' if cite['page'] else '')
        rows.append(
            (
                f'{hit.score:.3f}',
                place,
                f'{cite["chunk_index"] + 1}/{cite["chunk_total"]}',
                _shown(hit.chunk.content),
            )
        )
    Console().print(fitted_table(f'Search: {slug}', FOUND_COLUMNS, rows))
    _say(f'Ranked by {answer.ranked_by}' + (f' ({answer.embedder})' if answer.embedder else ''))


@rag_app.command('remove')
def rag_remove(
    ctx: typer.Context,
    slug: Annotated[str, typer.Argument(help='The source slug.')],
) -> None:
    """Delete a source, its chunks and its uploads (a folder source's folder is left alone)."""
    from . import sources

    with _opened(ctx) as runtime:
        sources.delete(runtime.store, runtime.settings, slug)
    _say(f'Removed source {slug}.')
