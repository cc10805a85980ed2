"""Part 3 of `bench_memory.py`: `Recall.search` as one scope grows (`--sizes`), on every store.

`grow` inserts the memories of the scope `SCALE_SCOPE` in bulk, each with a random unit vector (what
a vector says does not change how long it takes to rank it); `time_searches` times `Recall.search`
end to end (the query embedded by the real embedder, its ledger row, the ranking and the rows read)
and the ranking alone (`Recall._nearest`) for the same queries, `embed_queries` the query's
embedding alone; `scale_report` puts them in one table. PostgreSQL without pgvector ranks in Python,
in time that grows with the scope, so it is searched only up to `exact_largest` memories
(`--exact-largest`).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table
from sqlalchemy import insert

from memory_recall import Backend, analyze
from memory_set import SEED
from results import Result, percentile

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))

from synapse_agents.memory import book
from synapse_agents.memory.recall import Recall
from synapse_agents.memory.tables import Memory, MemoryVector
from synapse_agents.scope import Scope
from synapse_agents.store import Store
from synapse_agents.store.ids import new_id
from synapse_agents.store.schema import utcnow
from synapse_agents.store.vectors import index_of

DIMENSIONS = 384
"""The length of the embedder's vectors (all-MiniLM-L6-v2)."""
SCALE_TENANT = 'org:scale'
SCALE_SCOPE = Scope(tenant=('org', 'scale'), actor=('user', 'reader'))
QUERIES = (
    'When does the office close?',
    'How often are invoices sent?',
    'Who is my manager?',
    'What format do I want documents in?',
    'Where is the fire assembly point?',
    'Which projects are late?',
    'What did we decide about pricing?',
    'Is anyone allergic to nuts?',
    'When is the next offsite?',
    'Who handles laptops for new people?',
    'How do I request holidays?',
    'What is the guest wifi password?',
    'Which client is the biggest?',
    'When do database backups run?',
    'Where can I park?',
    'Who approves refunds?',
    'What language is she learning?',
    'When does the fiscal year start?',
    'How fast must support reply?',
    'Which team is hiring?',
)


def grow(store: Store, embedder: str, start: int, stop: int, rng: np.random.Generator) -> None:
    """Memories `start`..`stop` of the scale scope, each with a random unit vector, inserted in bulk."""
    index_of(store.engine)
    now = utcnow()
    for first in range(start, stop, 5000):
        last = min(stop, first + 5000)
        vectors = rng.standard_normal((last - first, DIMENSIONS)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        ids = [new_id() for _ in range(first, last)]
        memories: list[dict[str, object]] = []
        for n in range(first, last):
            content = f'Synthetic memory {n}: something somebody said about project {n % 97} once.'
            memories.append(
                {
                    'id': ids[n - first],
                    'tenant': SCALE_TENANT,
                    'subject': None,
                    'applies_to': None,
                    'content': content,
                    'source': 'manual',
                    'created_by': None,
                    'agent_key': None,
                    'conversation_id': None,
                    'source_message_ids': [],
                    'fingerprint': book.fingerprint(content),
                    'created_at': now,
                    'updated_at': now,
                }
            )
        with store.write() as session:
            session.execute(insert(Memory), memories)
            session.execute(
                insert(MemoryVector),
                [
                    {
                        'memory_id': memory_id,
                        'tenant': SCALE_TENANT,
                        'embedder': embedder,
                        'dimensions': DIMENSIONS,
                        'embedding': vectors[position],
                    }
                    for position, memory_id in enumerate(ids)
                ],
            )
    analyze(store)


async def embed_queries(recall: Recall, queries: int) -> tuple[list[tuple[str, np.ndarray]], list[float]]:
    """`queries` of `QUERIES` with their vectors, and how long the embedder took for each (ms)."""
    assert recall.embedder is not None
    embedded: list[tuple[str, np.ndarray]] = []
    times: list[float] = []
    for n in range(queries):
        query = QUERIES[n % len(QUERIES)]
        started = time.perf_counter()
        vector = np.asarray((await recall.embedder.embed_query([query])).embeddings[0], dtype=np.float32)
        times.append((time.perf_counter() - started) * 1000)
        embedded.append((query, vector))
    return embedded, times


async def time_searches(
    recall: Recall, queries: list[tuple[str, np.ndarray]], warmup: int = 2
) -> tuple[list[float], list[float]]:
    """Per query: `Recall.search` end to end, and the ranking alone with the query's vector (ms)."""
    search: list[float] = []
    rank: list[float] = []
    for position, (query, vector) in enumerate([*queries[:warmup], *queries]):
        started = time.perf_counter()
        answer = await recall.search(SCALE_SCOPE, query, 10)
        searched = time.perf_counter()
        ranked = recall._nearest(SCALE_SCOPE, vector, 10)
        done = time.perf_counter()
        if len(answer.results) != 10 or len(ranked) != 10 or answer.ranked_by != 'similarity':
            raise RuntimeError(
                f'search found {len(answer.results)} by {answer.ranked_by}, ranking {len(ranked)}'
            )
        if position >= warmup:
            search.append((searched - started) * 1000)
            rank.append((done - searched) * 1000)
    return search, rank


async def scale_report(found: list[Backend], sizes: list[int], exact_largest: int, queries: int,
                       console: Console) -> list[Result]:  # fmt: skip
    """Part 3: search latency as one scope grows."""
    table = Table(
        title=f'Recall.search in one scope, k=10, {queries} queries a size (ms; the memories have random '
        'unit vectors, inserted in bulk)'
    )
    for column in ('store', 'memories', 'search p50', 'p95', 'ranking p50', 'p95', 'load s'):
        table.add_column(column, justify='left' if column == 'store' else 'right')
    rng = np.random.default_rng(SEED)
    skipped: list[str] = []
    vectors, embed = await embed_queries(found[0].recall, queries)
    results = [Result.of('Memory search', "a query's embedding alone (the offline model)", embed)]
    for backend in found:
        largest = exact_largest if backend.recall.index.kind == 'exact' else sizes[-1]
        have, ranking = 0, 0.0
        for size in sizes:
            if size > largest:
                skipped.append(f'{backend.name} at {size:,} (ranking took {ranking:,.0f} ms at {have:,})')
                continue
            loading = time.perf_counter()
            grow(backend.store, backend.recall.embedder_name or '', have, size, rng)
            load_s, have = time.perf_counter() - loading, size
            search, rank = await time_searches(backend.recall, vectors)
            ranking = statistics.median(rank)
            table.add_row(
                backend.short,
                f'{size:,}',
                f'{statistics.median(search):.1f}',
                f'{percentile(search, 0.95):.1f}',
                f'{statistics.median(rank):.1f}',
                f'{percentile(rank, 0.95):.1f}',
                f'{load_s:.1f}',
            )
            group = f'Memory search ({backend.name}, {backend.recall.index.kind})'
            results += [
                Result.of(group, f'search, {size:,} memories in the scope', search),
                Result.of(group, f'ranking alone, {size:,} memories', rank),
            ]
    console.print(table)
    console.print(
        'search: Recall.search end to end (embeds the query, writes its ledger row, ranks, reads the '
        "rows); ranking: Recall._nearest with the query's vector (the SQL, or on PostgreSQL without "
        'pgvector the read of every vector of the scope and the ranking in Python). Embedding a query '
        f'alone (the same {queries} queries, once): p50 {statistics.median(embed):.1f} ms, p95 '
        f'{percentile(embed, 0.95):.1f} ms. The vectors are random: how long ranking takes does not '
        'depend on what they say.'
    )
    if skipped:
        console.print(
            f'Not measured: {", ".join(skipped)}: without pgvector every vector of the scope is read into '
            'Python and ranked there, in time that grows with the scope (see --exact-largest).'
        )
    return results
