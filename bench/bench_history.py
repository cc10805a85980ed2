"""History list and replay times on a large store, SQLite and PostgreSQL side by side.

Seeds (once; see seed_history.py) 100,000 conversations / 1,000,000 messages / 500,000 tool rows
on each database, then times through the HTTP API (in-process ASGI, JSON included):

- `GET /api/conversations` plain, searched (a rare word, a common word, a title word), and filtered
  by agent + status + tool + dates;
- `GET /api/conversations/{id}` for the 60-message thread with 480 tool calls (and its payload size);

with the number of SQL statements each request ran. Prints p50/p95 in milliseconds.

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

from seed_history import AGENTS, REPLAY_TITLE, TOOLS, open_seeded
from synapse_agents.settings import load_settings
from synapse_agents.store import Conversation, Store
from synapse_agents.web import SynapseContext, create_app

DEFAULT_URLS = {
    'sqlite': 'sqlite:////tmp/synapse-bench-history.db',
    'postgresql': 'postgresql://postgres@127.0.0.1:5432/synapse_bench',
}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


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
        'p50': statistics.median(timings),
        'p95': percentile(timings, 0.95),
        'queries': len(statements) / runs,
        'bytes': size,
        'total': response.json().get('total'),
    }


async def bench(url: str, conversations: int, runs: int) -> dict[str, dict[str, Any]]:
    store = open_seeded(url, conversations)
    with store.read() as session:
        replay_id = session.scalar(select(Conversation.id).where(Conversation.title == REPLAY_TITLE).limit(1))
    settings = load_settings({'database_url': url})
    context = SynapseContext(loaded=settings, store=store)
    app = create_app(context)
    results: dict[str, dict[str, Any]] = {}
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url='http://bench') as client:
        cases: list[tuple[str, str, Any]] = [
            ('list', '/api/conversations', {}),
            ('list page 40', '/api/conversations', {'page': 40}),
            ('search rare word', '/api/conversations', {'search': 'zanzibar'}),
            ('search common word', '/api/conversations', {'search': 'refund'}),
            ('search phrase', '/api/conversations', {'search': 'refund shipping invoice'}),
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
            (
                'filter agent+tools',
                '/api/conversations',
                {'agents': [AGENTS[2], AGENTS[5]], 'tools': TOOLS[:2]},
            ),
            ('replay 60 messages / 480 tools', f'/api/conversations/{replay_id}', {}),
        ]
        for name, path, params in cases:
            results[name] = await measure(client, store, path, params, runs)
    store.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument('--db', choices=('sqlite', 'postgresql', 'all'), default='all')
    parser.add_argument('--conversations', type=int, default=100_000)
    parser.add_argument('--runs', type=int, default=30)
    parser.add_argument('--sqlite-url', default=DEFAULT_URLS['sqlite'])
    parser.add_argument('--postgresql-url', default=DEFAULT_URLS['postgresql'])
    args = parser.parse_args()
    dialects = ['sqlite', 'postgresql'] if args.db == 'all' else [args.db]
    urls = {'sqlite': args.sqlite_url, 'postgresql': args.postgresql_url}
    all_results = {d: asyncio.run(bench(urls[d], args.conversations, args.runs)) for d in dialects}
    print(
        f'\n{args.conversations:,} conversations; p50 / p95 in ms over {args.runs} runs '
        '(after 2 warm-up runs)\n'
    )
    header = f'{"request":34}' + ''.join(f'{d:>34}' for d in dialects)
    print(header)
    for name in next(iter(all_results.values())):
        cells = []
        for d in dialects:
            r = all_results[d][name]
            cells.append(
                f'{r["p50"]:7.1f} / {r["p95"]:6.1f}  q={r["queries"]:.0f}  {r["bytes"] / 1024:6.1f} KB'
            )
        print(f'{name:34}' + ''.join(f'{c:>34}' for c in cells))
    print(
        '\nmatches:',
        {
            d: {n: r['total'] for n, r in res.items() if r['total'] is not None}
            for d, res in all_results.items()
        },
    )


if __name__ == '__main__':
    main()
