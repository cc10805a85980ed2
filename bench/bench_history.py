"""History list and replay times on a large store, SQLite and PostgreSQL side by side.

Seeds (once; see seed_history.py) 100,000 conversations / 1,000,000 messages / 500,000 tool rows
on each database, then times through the HTTP API (in-process ASGI, JSON included):

- `GET /api/conversations` plain, searched (a rare word, a common word, a title word), and filtered
  by agent + status + tool + dates;
- `GET /api/conversations/{id}` for the 60-message thread with 480 tool calls (and its payload size);

with the number of SQL statements each request ran, and the same requests on a small store
(`--small` conversations) beside them: the statement count must not grow with the data. Prints
p50/p95 in milliseconds.

    python bench/bench_history.py                          # both databases, 100,000 conversations
    python bench/bench_history.py --db sqlite --conversations 10000
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

import httpx
from sqlalchemy import event, select

from results import Result, percentile, write_json
from seed_history import AGENTS, REPLAY_TITLE, TOOLS, open_seeded
from synapse_agents.conversations.tables import Conversation
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.settings import load_settings
from synapse_agents.store import Store
from synapse_agents.web.app import create_app

DEFAULT_URLS = {
    'sqlite': 'sqlite:////tmp/synapse-bench-history.db',
    'postgresql': 'postgresql://postgres@127.0.0.1:5432/synapse_bench',
}


async def measure(
    client: httpx.AsyncClient, store: Store, path: str, params: Any, runs: int
) -> dict[str, Any]:
    statements: list[str] = []

    def count(*_args: Any) -> None:
        statements.append('x')

    timings: list[float] = []
    size = 0
    for run in range(runs + 2):
        if run == 2:
            event.listen(store.engine, 'before_cursor_execute', count)
        started = time.perf_counter()
        response = await client.get(path, params=params)
        elapsed = (time.perf_counter() - started) * 1000
        assert response.status_code == 200, response.text
        size = len(response.content)
        if run >= 2:  # two warm-up runs
            timings.append(elapsed)
    event.remove(store.engine, 'before_cursor_execute', count)
    return {
        'timings': timings,
        'p50': statistics.median(timings),
        'p95': percentile(timings, 0.95),
        'queries': len(statements) / runs,
        'bytes': size,
        'total': response.json().get('total'),
    }


CASES: list[tuple[str, str, Any]] = [
    ('list', '/api/conversations', {}),
    ('list page 40', '/api/conversations', {'page': 40}),
    ('search rare word', '/api/conversations', {'search': 'zanzibar'}),
    ('search common word', '/api/conversations', {'search': 'refund'}),
    ('search phrase of common words', '/api/conversations', {'search': 'refund shipping invoice'}),
    (
        'filter agent+status+tool+dates',
        '/api/conversations',
        {
            'agents': [AGENTS[1]],
            'status': 'error',
            'tools': [TOOLS[3]],
            'from': '2000-01-01',
            'to': '2100-01-01',
        },
    ),
    ('filter agents+tools', '/api/conversations', {'agents': [AGENTS[2], AGENTS[5]], 'tools': TOOLS[:2]}),
    (
        'search + filters',
        '/api/conversations',
        {'search': 'refund', 'agents': [AGENTS[1]], 'status': 'error', 'tools': [TOOLS[3]]},
    ),
    ('replay 60 messages / 480 tools', '/api/conversations/{replay}', {}),
]
LIST_LIMIT_MS = 30.0
REPLAY_LIMIT_KB = 150.0


async def bench(url: str, conversations: int, runs: int) -> tuple[dict[str, dict[str, Any]], float | None]:
    store, seeded = open_seeded(url, conversations)
    with store.read() as session:
        replay_id = session.scalar(select(Conversation.id).where(Conversation.title == REPLAY_TITLE).limit(1))
    settings = load_settings({'database_url': url})
    context = SynapseContext(loaded=settings, store=store)
    app = create_app(context)
    results: dict[str, dict[str, Any]] = {}
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url='http://127.0.0.1') as client:
        for name, path, params in CASES:
            results[name] = await measure(client, store, path.format(replay=replay_id), params, runs)
    store.close()
    return results, seeded


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument('--db', choices=('sqlite', 'postgresql', 'all'), default='all')
    parser.add_argument('--conversations', type=int, default=100_000)
    parser.add_argument('--small', type=int, default=1_000, help='conversations of the small-scale store')
    parser.add_argument('--runs', type=int, default=30)
    parser.add_argument('--sqlite-url', default=DEFAULT_URLS['sqlite'])
    parser.add_argument('--postgresql-url', default=DEFAULT_URLS['postgresql'])
    parser.add_argument('--json', help='also write the results here (see results.py)')
    args = parser.parse_args()
    dialects = ['sqlite', 'postgresql'] if args.db == 'all' else [args.db]
    urls = {'sqlite': args.sqlite_url, 'postgresql': args.postgresql_url}
    large: dict[str, dict[str, dict[str, Any]]] = {}
    small: dict[str, dict[str, dict[str, Any]]] = {}
    seeding: dict[str, float | None] = {}
    for dialect in dialects:
        large[dialect], seeding[dialect] = asyncio.run(bench(urls[dialect], args.conversations, args.runs))
        small[dialect], _ = asyncio.run(bench(small_url(urls[dialect]), args.small, args.runs))
    print(
        f'\n{args.conversations:,} conversations (and, for scale, {args.small:,}); p50 / p95 in ms over '
        f'{args.runs} runs after 2 warm-up runs; q = SQL statements per request\n'
    )
    print(f'{"request":34}' + ''.join(f'{d:>44}' for d in dialects))
    results: list[Result] = []
    for name, _path, _params in CASES:
        cells = []
        for dialect in dialects:
            big, little = large[dialect][name], small[dialect][name]
            cells.append(
                f'{big["p50"]:7.1f} / {big["p95"]:6.1f}  ({little["p50"]:5.1f})  '
                f'q={big["queries"]:.0f} ({little["queries"]:.0f})  {big["bytes"] / 1024:6.1f} KB'
            )
            replay = name.startswith('replay')
            passed = big['p50'] <= LIST_LIMIT_MS
            note = (
                f'{little["p50"]:.1f} ms at {args.small:,} conversations; '
                f'{big["queries"]:.0f} SQL statements '
                f'({little["queries"]:.0f} at small scale); {big["bytes"] / 1024:.1f} KB'
            )
            if big['total'] is not None:
                note += f'; {big["total"]:,} matches'
            if replay:
                passed = passed and big['bytes'] / 1024 <= REPLAY_LIMIT_KB
            results.append(
                Result.of(
                    f'history ({dialect})',
                    name,
                    big['timings'],
                    target=f'p50 <= {LIST_LIMIT_MS:.0f} ms'
                    + (f', <= {REPLAY_LIMIT_KB:.0f} KB' if replay else ''),
                    passed=passed,
                    note=note,
                )
            )
        print(f'{name:34}' + ''.join(f'{c:>44}' for c in cells))
    print('\n(in brackets: the same request on the small store)')
    for dialect, seconds in seeding.items():
        if seconds is not None:
            print(f'seeding {dialect}: {seconds:.0f} s')
            results.append(
                Result('seeding', f'seed {args.conversations:,} conversations ({dialect})', seconds, unit='s')
            )
    write_json(args.json, results)


def small_url(url: str) -> str:
    """Where the small-scale store of `url` lives."""
    if url.startswith('sqlite'):
        return url.removesuffix('.db') + '-small.db'
    return url + '_small'


if __name__ == '__main__':
    main()
