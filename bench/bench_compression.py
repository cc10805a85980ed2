"""What `Compression` saves over a long conversation, and what it costs.

One conversation of `--turns` turns (200 by default) through `Synapse().conversation(...)`, each user
message and answer about 60 tokens, with the history replayed every turn: once without compression,
once with `Compression(budget_tokens=2000, keep_last=4)` and a scripted summariser (a FunctionModel
that answers a 100-token summary). Reported: the tokens sent per turn (the same estimate the
capability uses: about four characters a token) at the median, at the last turn and in total, the
number of summary calls, and the median time of a turn.

    python bench/bench_compression.py            # SQLite
    python bench/bench_compression.py --turns 400
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
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from rich.console import Console
from rich.table import Table

from results import Result, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))

from synapse_agents import Synapse
from synapse_agents.capabilities import Compression
from synapse_agents.compression.history import estimate_tokens

WORDS = 'the customer asked about the delivery of order number 4711 and the refund policy ' * 3
BUDGET, KEEP = 2000, 4


async def converse(database_url: str, turns: int, compressed: bool) -> tuple[list[int], list[float], int]:
    """Tokens sent per turn, ms per turn, summary calls."""
    sent: list[int] = []
    summaries: list[int] = []

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        sent.append(estimate_tokens(messages))
        yield 'answer ' + WORDS

    def summarise(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        summaries.append(1)
        return ModelResponse(parts=[TextPart('summary ' + WORDS * 2)])

    capabilities: list[AbstractCapability[Any]] = []
    if compressed:
        summariser = FunctionModel(summarise, model_name='summariser')
        capabilities.append(Compression(budget_tokens=BUDGET, keep_last=KEEP, model=summariser))
    agent: Agent[Any, str] = Agent(
        FunctionModel(stream_function=stream, model_name='chat'), name='long', capabilities=capabilities
    )
    times: list[float] = []
    async with Synapse(database_url=database_url, agents=[]) as syn:
        conv = await syn.conversation(agent, tenant=('org', 'bench'))
        for index in range(turns):
            started = time.perf_counter()
            await conv.send(f'question {index}: {WORDS}')
            times.append((time.perf_counter() - started) * 1000)
    return sent, times, len(summaries)


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument('--turns', type=int, default=200)
    parser.add_argument('--json', default=None)
    args = parser.parse_args()
    console = Console()
    results: list[Result] = []
    table = Table(title=f'One conversation of {args.turns} turns (tokens are estimates)')
    for column in ('way', 'tokens/turn p50', 'last turn', 'total tokens', 'summary calls', 'ms/turn p50'):
        table.add_column(column, justify='left' if column == 'way' else 'right')
    group = 'History compression (SQLite)'
    for compressed in (False, True):
        with tempfile.TemporaryDirectory(prefix='synapse-bench-compression-') as folder:
            url = f'sqlite:///{Path(folder) / "synapse.db"}'
            sent, times, calls = await converse(url, args.turns, compressed)
        way = f'Compression({BUDGET}, keep_last={KEEP})' if compressed else 'without'
        table.add_row(
            way,
            f'{statistics.median(sent):,.0f}',
            f'{sent[-1]:,}',
            f'{sum(sent):,}',
            str(calls),
            f'{statistics.median(times):.1f}',
        )
        results.append(Result.of(group, f'turn {way}', times))
        results.append(Result(group, f'tokens sent per turn {way}', statistics.median(sent), unit='tokens'))
        results.append(Result(group, f'tokens sent in all {way}', sum(sent), unit='tokens'))
        results.append(Result(group, f'summary calls {way}', calls, unit='calls'))
    console.print(table)
    write_json(args.json, results)


if __name__ == '__main__':
    asyncio.run(main())
