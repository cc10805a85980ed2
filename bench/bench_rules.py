"""What `Rules()` adds to a run when its tenant has 1,000 rules.

The same `FunctionModel` agent (one streamed call) runs interleaved, on each store:

- without: `agent.run_stream_events(prompt)` with the scope in its metadata and no `Rules()`;
- with: the same run with `Rules()` on the store: one read of the scope's enabled rules (in a
  thread) at the start of the run, and the block put before the instructions of the request.

The tenant holds 1,000 rules: 400 tenant-wide and shared, 300 about other subjects, 200 for other
people, 50 paused, 50 for the run's own subject and actor; a second tenant holds 1,000 more. The
run's prompt therefore gets 450 rules (a block of about 34,000 characters).

    python bench/bench_rules.py                        # SQLite, and PostgreSQL when reachable
    python bench/bench_rules.py --runs 300 --postgres postgresql://postgres@127.0.0.1:5432/postgres
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

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

from synapse_agents.rules.capability import RulesCapability
from synapse_agents.rules.tables import Rule
from synapse_agents.scope import METADATA_KEY, Scope
from synapse_agents.settings import Settings
from synapse_agents.store import Store, upgrade

SCOPE = Scope(tenant=('org', 'bench'), actor=('user', 'me'), subject=('case', 'mine'))
SENT: list[int] = []


async def _text(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    SENT.append(len(info.instructions or ''))
    for _ in range(20):
        yield 'chunk '


def seed(store: Store) -> None:
    """1,000 rules in the bench tenant (450 of them the run's), 1,000 in another tenant."""
    rows: list[Rule] = []
    for tenant in ('org:bench', 'org:other'):
        for index in range(1000):
            subject, person, enabled = None, None, True
            if 400 <= index < 700:
                subject = f'case:{index}'
            elif 700 <= index < 900:
                person = f'user:{index}'
            elif 900 <= index < 950:
                enabled = False
            elif index >= 950:
                subject, person = ('case:mine', None) if index % 2 else (None, 'user:me')
            text = f'Rule {index} of {tenant}: always do the thing the firm asks for in case {index}.'
            rows.append(
                Rule(
                    tenant=tenant,
                    subject=subject,
                    applies_to=person,
                    text=text,
                    priority=index % 7,
                    enabled=enabled,
                )
            )
    with store.write() as session:
        session.add_all(rows)


async def timed(agent: Agent[None, str], capabilities: list[AbstractCapability[Any]]) -> float:
    started = time.perf_counter()
    async with agent.run_stream_events(
        'hello', capabilities=capabilities, metadata={METADATA_KEY: SCOPE.as_json()}
    ) as events:
        async for event in events:
            if isinstance(event, AgentRunResultEvent):
                return (time.perf_counter() - started) * 1000
    raise RuntimeError('the run ended without a result')


async def measure(database_url: str, runs: int, warmup: int) -> tuple[dict[str, list[float]], int]:
    store = Store.open(database_url, Path('/nonexistent'))
    upgrade(store.engine)
    seed(store)
    agent: Agent[None, str] = Agent(FunctionModel(stream_function=_text, model_name='bench'), name='bench')
    rules = RulesCapability(store=store, settings=Settings())
    samples: dict[str, list[float]] = {'without': [], 'with Rules()': []}
    try:
        for index in range(warmup + runs):
            without = await timed(agent, [])
            with_rules = await timed(agent, [rules])
            if index >= warmup:
                samples['without'].append(without)
                samples['with Rules()'].append(with_rules)
    finally:
        store.close()
    return samples, max(SENT)


def report(dialect: str, samples: dict[str, list[float]], block: int, console: Console) -> list[Result]:
    group = f'Rules ({dialect})'
    floor, ruled = samples['without'], samples['with Rules()']
    f50, f95 = statistics.median(floor), percentile(floor, 0.95)
    r50, r95 = statistics.median(ruled), percentile(ruled, 0.95)
    table = Table(title=f'A run with 1,000 rules in its tenant — {dialect} (ms; block {block:,} characters)')
    for column in ('way', 'p50', 'p95', 'added p50', 'added p95'):
        table.add_column(column, justify='left' if column == 'way' else 'right')
    table.add_row('without', f'{f50:.2f}', f'{f95:.2f}', '', '')
    table.add_row('with Rules()', f'{r50:.2f}', f'{r95:.2f}', f'{r50 - f50:+.2f}', f'{r95 - f95:+.2f}')
    console.print(table)
    return [
        Result.of(group, 'run without Rules()', floor),
        Result.of(group, 'run with Rules(), 1,000 rules in the tenant', ruled),
        Result(group, 'added by Rules()', r50 - f50, r95 - f95, samples=len(ruled)),
    ]


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
    with tempfile.TemporaryDirectory(prefix='synapse-bench-rules-') as folder:
        sqlite = f'sqlite:///{Path(folder) / "synapse.db"}'
        results += report('SQLite', *await measure(sqlite, args.runs, args.warmup), console)
    with postgres_database(args.postgres) as postgres:
        if postgres is not None:
            results += report('PostgreSQL', *await measure(postgres, args.runs, args.warmup), console)
    write_json(args.json, results)


if __name__ == '__main__':
    asyncio.run(main())
