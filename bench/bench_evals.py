"""What an eval run adds per case over running the same agent directly.

A project agent (a `FunctionModel`: one tool call, then 20 streamed chunks; no network) answers
the same 20 messages two ways, interleaved round by round, on each store:

- direct: `agent.run_stream_events(message)` consumed for each case, one after the other (the
  engine streams too);
- eval: one run of a 20-case dataset (`Contains` and `ToolCalled` on each case, concurrency 1)
  through `evals.execute`, as `synapse eval run` and the task queue run it: each case a stored,
  traced, ledgered conversation with origin `eval`, judged by pydantic-evals, its result written.

Reported: p50 / p95 ms per case (a run's wall time divided by its cases) and the difference.

    python bench/bench_evals.py                      # SQLite, and PostgreSQL when reachable
    python bench/bench_evals.py --rounds 20 --postgres postgresql://postgres@127.0.0.1:5432/postgres
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench_python_api import postgres_database
from results import Result, percentile, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))

from synapse_agents import Synapse
from synapse_agents.chat.service import current_snapshot
from synapse_agents.evals import book, runs
from synapse_agents.evals.execute import execute

CASES = 20
AGENT = textwrap.dedent('''
    import json
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

    def _called(messages):
        return any(getattr(p, 'part_kind', '') == 'tool-return' for m in messages for p in m.parts)

    def _once(messages, info: AgentInfo):
        if not _called(messages):
            return ModelResponse(parts=[ToolCallPart('lookup', {'q': 'x'}, tool_call_id='c1')])
        return ModelResponse(parts=[TextPart('found it ' * 20)])

    async def _stream(messages, info: AgentInfo):
        if not _called(messages):
            yield {0: DeltaToolCall(name='lookup', json_args=json.dumps({'q': 'x'}), tool_call_id='c1')}
            return
        for _ in range(20):
            yield 'found it '

    bench_agent = Agent(FunctionModel(_once, stream_function=_stream, model_name='bench'), name='bench')

    @bench_agent.tool_plain
    def lookup(q: str) -> str:
        """Look something up."""
        return f'result for {q}'
''')


async def measure(project: Path, database_url: str, rounds: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {'direct': [], 'eval run': []}
    async with Synapse(
        project, home=project / '.synapse', database_url=database_url, agents=['agents']
    ) as syn:
        runtime = syn.runtime
        slug = next(a.slug for a in (await current_snapshot(runtime.catalog)).agents if a.name == 'bench')
        agent = sys.modules['agents.shop'].bench_agent
        messages = [f'Find thing {index}' for index in range(CASES)]
        cases: list[dict[str, object]] = [
            {
                'name': f'case {index}',
                'inputs': {'message': messages[index]},
                'evaluators': [{'Contains': 'found'}, {'ToolCalled': 'lookup'}],
            }
            for index in range(CASES)
        ]
        book.create(runtime.store, 'bench', 'Bench', cases=cases)
        for round_ in range(rounds + 1):  # the first round warms up
            started = time.perf_counter()
            for message in messages:
                async with agent.run_stream_events(message) as events:
                    seen = [event async for event in events]
                    assert seen, 'the run streamed nothing'
            direct = (time.perf_counter() - started) * 1000 / CASES
            run = runs.create_run(runtime.store, 'bench', slug, concurrency=1)
            started = time.perf_counter()
            ended = await execute(runtime, run.id)
            evaluated = (time.perf_counter() - started) * 1000 / CASES
            assert ended.passed == CASES, (ended.status, ended.error)
            if round_:
                samples['direct'].append(direct)
                samples['eval run'].append(evaluated)
    return samples


def report(dialect: str, samples: dict[str, list[float]], console: Console) -> list[Result]:
    group = f'Evals ({dialect})'
    direct, evaluated = samples['direct'], samples['eval run']
    d50, d95 = statistics.median(direct), percentile(direct, 0.95)
    e50, e95 = statistics.median(evaluated), percentile(evaluated, 0.95)
    table = Table(title=f'Per case: an eval run against the agent run directly — {dialect} (ms)')
    for column in ('way', 'p50', 'p95', 'added p50', 'added p95'):
        table.add_column(column, justify='left' if column == 'way' else 'right')
    table.add_row('direct', f'{d50:.2f}', f'{d95:.2f}', '', '')
    table.add_row('eval run', f'{e50:.2f}', f'{e95:.2f}', f'{e50 - d50:+.2f}', f'{e95 - d95:+.2f}')
    console.print(table)
    return [
        Result.of(group, 'a case run directly', direct),
        Result.of(group, 'a case in an eval run', evaluated),
        Result(group, 'added per case by an eval run', e50 - d50, e95 - d95, samples=len(evaluated)),
    ]


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument('--rounds', type=int, default=10)
    parser.add_argument('--postgres', default='postgresql://postgres@127.0.0.1:5432/postgres')
    parser.add_argument('--json', default=None)
    args = parser.parse_args()
    console = Console()
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix='synapse-bench-evals-') as folder:
        project = Path(folder)
        (project / 'agents').mkdir()
        (project / 'agents' / '__init__.py').write_text('')
        (project / 'agents' / 'shop.py').write_text(AGENT)
        sqlite = f'sqlite:///{project / "synapse.db"}'
        results += report('SQLite', await measure(project, sqlite, args.rounds), console)
        with postgres_database(args.postgres) as postgres:
            if postgres is not None:
                results += report('PostgreSQL', await measure(project, postgres, args.rounds), console)
    write_json(args.json, results)


if __name__ == '__main__':
    asyncio.run(main())
