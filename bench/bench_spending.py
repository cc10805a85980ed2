"""What spending limits add to a model call: reserve before it, settle after it.

The same `FunctionModel` agent (one call, 20 text chunks, priced by the registry) runs interleaved,
on each store:

- without: `agent.run_stream_events(prompt)` with no spending capability (the floor);
- 0, 1 and 10 limits: the same run with `Spending` (on the store's write queue, as in a turn), with
  that many limits applying to the call (none of which it reaches): the read of the applicable
  limits, the worst-case estimate, the reservation's transaction (limit rows locked on PostgreSQL,
  the write lock on SQLite), and the settle (ledger row and reservation delete, queued).

Reported: p50 / p95 ms per call and the difference from `without`. Then 50 calls at once, with and
without the capability (1 and 10 limits): wall time and calls per second.

    python bench/bench_spending.py                      # SQLite, and PostgreSQL when reachable
    python bench/bench_spending.py --runs 300 --postgres postgresql://postgres@127.0.0.1:5432/postgres
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any, TypedDict

from pydantic_ai import Agent
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.run import AgentRunResultEvent
from rich.console import Console
from rich.table import Table

from bench_python_api import postgres_database
from results import Result, percentile, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))

from synapse_agents.accounting.capability import Spending
from synapse_agents.accounting.pricing import pricer
from synapse_agents.accounting.tables import SpendingLimit
from synapse_agents.registry.tables import ModelPrice, RegistryModel
from synapse_agents.settings import Settings
from synapse_agents.store import Store, upgrade
from synapse_agents.store.write_queue import WriteQueue

MODEL = 'bench-priced'
LIMITS = (0, 1, 10)
CONCURRENT = 50
PERIODS = ('calendar_day', 'calendar_month', 'sliding_day', 'sliding_month')


async def _text(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    for _ in range(20):
        yield 'chunk '


def agent() -> Agent[None, str]:
    model = FunctionModel(stream_function=_text, model_name=MODEL)
    return Agent(model, name='bench', model_settings={'max_tokens': 100})


def seed(store: Store) -> None:
    """The registry price, and the limits: 10 on the bench call's subject, 1 on `user:one`."""
    with store.write() as session:
        session.add(RegistryModel(key=f'bench:{MODEL}', provider_key='bench', name=MODEL))
        session.add(
            ModelPrice(
                model_key=f'bench:{MODEL}',
                input_per_mtok=Decimal('1'),
                output_per_mtok=Decimal('2'),
                valid_from=datetime.now(UTC) - timedelta(days=1),
            )
        )
        # Ten limits on the bench call (its user, agent and tenant, over every period), and one on
        # `user:one`; none is ever reached.
        scopes = [('user', 'user:bench')] * 4 + [('agent', 'bench')] * 3 + [('tenant', 'org:bench')] * 3
        for index, (scope, scope_id) in enumerate([*scopes, ('user', 'user:one')]):
            session.add(
                SpendingLimit(
                    scope=scope,
                    scope_id=scope_id,
                    period=PERIODS[index % 4],
                    amount=Decimal(1_000_000),
                    timezone='Europe/Paris',
                )
            )


class Subject(TypedDict):
    user: str
    tenant: str
    agent: str


def subject(limits: int) -> Subject:
    """Who a call is for so that exactly `limits` of the seeded limits apply."""
    if limits == 0:
        return {'user': 'user:nobody', 'tenant': 'org:nobody', 'agent': 'nobody'}
    if limits == 1:
        return {'user': 'user:one', 'tenant': 'org:nobody', 'agent': 'nobody'}
    return {'user': 'user:bench', 'tenant': 'org:bench', 'agent': 'bench'}


def _way(limits: int) -> str:
    return f'{limits} limit' if limits == 1 else f'{limits} limits'


async def run(bench: Agent[None, str], capabilities: list[AbstractCapability[Any]]) -> None:
    async with bench.run_stream_events('hello', capabilities=capabilities) as events:
        async for event in events:
            if isinstance(event, AgentRunResultEvent):
                return
    raise RuntimeError('the run ended without a result')


async def timed(bench: Agent[None, str], capabilities: list[AbstractCapability[Any]]) -> float:
    started = time.perf_counter()
    await run(bench, capabilities)
    return (time.perf_counter() - started) * 1000


async def measure(
    database_url: str, runs: int, warmup: int
) -> tuple[dict[str, list[float]], dict[str, float]]:
    """ms per call keyed by way; then the wall time of 50 calls at once, keyed by way."""
    store = Store.open(database_url, Path('/nonexistent'))
    upgrade(store.engine)
    seed(store)
    writes = WriteQueue(store)
    settings = Settings()
    prices = await pricer(store, settings)
    bench = agent()

    def spending(limits: int) -> list[AbstractCapability[Any]]:
        return [Spending(store, settings=settings, writes=writes, prices=prices, **subject(limits))]

    samples: dict[str, list[float]] = {}
    try:
        for index in range(warmup + runs):
            times = {'without': await timed(bench, [])}
            for limits in LIMITS:
                times[_way(limits)] = await timed(bench, spending(limits))
            if index >= warmup:
                for way, elapsed in times.items():
                    samples.setdefault(way, []).append(elapsed)
        await writes.drain()
        walls: dict[str, float] = {}
        for way, count in (('without', None), ('1 limit', 1), ('10 limits', 10)):
            capabilities = [] if count is None else spending(count)
            started = time.perf_counter()
            await asyncio.gather(*(run(bench, capabilities) for _ in range(CONCURRENT)))
            await writes.drain()
            walls[way] = time.perf_counter() - started
    finally:
        writes.close()
        store.close()
    return samples, walls


def report(
    dialect: str, samples: dict[str, list[float]], walls: dict[str, float], console: Console
) -> list[Result]:
    group = f'Spending limits ({dialect})'
    table = Table(title=f'Reserve + settle per model call — {dialect} (ms)')
    for column in ('way', 'p50', 'p95', 'added p50', 'added p95'):
        table.add_column(column, justify='left' if column == 'way' else 'right')
    floor = samples['without']
    f50, f95 = statistics.median(floor), percentile(floor, 0.95)
    results: list[Result] = [Result.of(group, 'call without the capability', floor)]
    table.add_row('without', f'{f50:.2f}', f'{f95:.2f}', '', '')
    for way, values in samples.items():
        if way == 'without':
            continue
        p50, p95 = statistics.median(values), percentile(values, 0.95)
        table.add_row(way, f'{p50:.2f}', f'{p95:.2f}', f'{p50 - f50:+.2f}', f'{p95 - f95:+.2f}')
        results.append(Result.of(group, f'call with {way}', values))
        results.append(Result(group, f'added by {way}', p50 - f50, p95 - f95, samples=len(values)))
    console.print(table)
    throughput = Table(title=f'{CONCURRENT} calls at once — {dialect}')
    for column in ('way', 'wall s', 'calls/s'):
        throughput.add_column(column, justify='left' if column == 'way' else 'right')
    for way, seconds in walls.items():
        throughput.add_row(way, f'{seconds:.3f}', f'{CONCURRENT / seconds:.0f}')
        results.append(
            Result(group, f'{CONCURRENT} calls at once, {way}', CONCURRENT / seconds, unit='calls/s')
        )
    console.print(throughput)
    return results


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument('--runs', type=int, default=200)
    parser.add_argument('--warmup', type=int, default=20)
    parser.add_argument('--postgres', default='postgresql://postgres@127.0.0.1:5432/postgres')
    parser.add_argument('--json', default=None)
    args = parser.parse_args()
    console = Console()
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix='synapse-bench-spending-') as folder:
        sqlite = f'sqlite:///{Path(folder) / "synapse.db"}'
        results += report('SQLite', *await measure(sqlite, args.runs, args.warmup), console)
    with postgres_database(args.postgres) as postgres:
        if postgres is not None:
            results += report('PostgreSQL', *await measure(postgres, args.runs, args.warmup), console)
    write_json(args.json, results)


if __name__ == '__main__':
    asyncio.run(main())
