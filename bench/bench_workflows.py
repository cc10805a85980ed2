"""What a workflow run adds over the same agent runs called one after another directly.

A project agent (a `FunctionModel`: one tool call, then 20 streamed chunks; no network) runs five
times two ways, interleaved round by round, on each store:

- direct: `agent.run_stream_events(message)` consumed five times, one after the other, each
  message the answer before it (the engine streams too);
- workflow: one run of a 5-step workflow whose steps are that agent, each step's message the
  previous step's answer (`$.steps.PREV.output.answer`), through `workflows.execute` as the task
  job runs it: the run claimed, each step a stored, traced, ledgered conversation with origin
  `workflow`, its row written as it starts and ends, the outputs resolved and the run finished.
  The wait for a worker to take the task is not included (see `bench_tasks.py`).

Reported: p50 / p95 ms per 5-step run and the difference.

    python bench/bench_workflows.py                   # SQLite, and PostgreSQL when reachable
    python bench/bench_workflows.py --rounds 20 --postgres postgresql://postgres@127.0.0.1:5432/postgres
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
from typing import Any

from rich.console import Console
from rich.table import Table

from bench_python_api import postgres_database
from results import Result, percentile, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))

from synapse_agents import Synapse
from synapse_agents.chat.service import current_snapshot
from synapse_agents.workflows import book, runs
from synapse_agents.workflows.execute import execute

STEPS = 5
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


def definition(slug: str) -> dict[str, Any]:
    steps: list[dict[str, Any]] = [
        {'name': 's0', 'agent_name': slug, 'input_mapping': {'message': '$.input'}}
    ]
    for index in range(1, STEPS):
        mapping = {'message': f'$.steps.s{index - 1}.output.answer'}
        steps.append({'name': f's{index}', 'agent_name': slug, 'input_mapping': mapping})
    return {'version': 1, 'steps': steps, 'outputs': {'final': f'$.steps.s{STEPS - 1}.output.answer'}}


async def measure(project: Path, database_url: str, rounds: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {'direct': [], 'workflow run': []}
    async with Synapse(
        project, home=project / '.synapse', database_url=database_url, agents=['agents']
    ) as syn:
        runtime = syn.runtime
        slug = next(a.slug for a in (await current_snapshot(runtime.catalog)).agents if a.name == 'bench')
        agent = sys.modules['agents.shop'].bench_agent
        workflow = book.create(runtime.store, 'bench', 'Bench', definition(slug))
        for round_ in range(rounds + 1):  # the first round warms up
            started = time.perf_counter()
            message = f'Find thing {round_}'
            for _ in range(STEPS):
                async with agent.run_stream_events(message) as events:
                    seen = [event async for event in events]
                    assert seen, 'the run streamed nothing'
                message = str(seen[-1].result.output)
            direct = (time.perf_counter() - started) * 1000
            run = runs.create_run(runtime.store, workflow, f'Find thing {round_}')
            started = time.perf_counter()
            ended = await execute(runtime, run.id)
            flowed = (time.perf_counter() - started) * 1000
            assert ended.status == 'completed', ended.error
            if round_:
                samples['direct'].append(direct)
                samples['workflow run'].append(flowed)
    return samples


def report(dialect: str, samples: dict[str, list[float]], console: Console) -> list[Result]:
    group = f'Workflows ({dialect})'
    direct, flowed = samples['direct'], samples['workflow run']
    d50, d95 = statistics.median(direct), percentile(direct, 0.95)
    w50, w95 = statistics.median(flowed), percentile(flowed, 0.95)
    table = Table(
        title=f'A {STEPS}-step workflow run against {STEPS} agent runs called directly — {dialect} (ms)'
    )
    for column in ('way', 'p50', 'p95', 'added p50', 'added p95'):
        table.add_column(column, justify='left' if column == 'way' else 'right')
    table.add_row('direct', f'{d50:.2f}', f'{d95:.2f}', '', '')
    table.add_row('workflow run', f'{w50:.2f}', f'{w95:.2f}', f'{w50 - d50:+.2f}', f'{w95 - d95:+.2f}')
    console.print(table)
    return [
        Result.of(group, f'{STEPS} agent runs called directly', direct),
        Result.of(group, f'a {STEPS}-step workflow run', flowed),
        Result(group, f'added by a {STEPS}-step workflow run', w50 - d50, w95 - d95, samples=len(flowed)),
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
    with tempfile.TemporaryDirectory(prefix='synapse-bench-workflows-') as folder:
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
