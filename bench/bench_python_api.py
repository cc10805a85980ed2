"""What the Python API (`Synapse`, `Conversation.send`) adds to a turn, beside the same agent run directly.

Same agents, same prompts, interleaved in one run (direct, api, direct, api, ...), on each store:

- direct: `agent.run_stream_events(prompt, message_history=...)` consumed in this process, the
  history kept in memory (how the engine runs an agent);
- api: `await conversation.send(prompt)`: the turn engine (history read from the store, the
  recording capability, the scope in the run's metadata), every row written through the write
  queue, the final write committed before `send` returns.

Agents (FunctionModel, no network): `text` streams 20 text chunks; `tools` makes 10 tool calls in
one step, then streams 20 chunks. Three shapes of turn: the first turn of a new conversation; the
sixth turn of one, sent by the `Conversation` object that sent the first five (`6th turn`); and the
sixth turn of one opened again by its id first (`6th, reopened`: `synapse.conversation(agent,
id=...)` then `send`, as a web app does per request). Direct gets the five earlier turns as
`message_history`.
Reported: p50 / p95 ms per turn and the difference (api - direct).

    python bench/bench_python_api.py                      # SQLite, and PostgreSQL when reachable
    python bench/bench_python_api.py --runs 200 --postgres postgresql://postgres@127.0.0.1:5432/postgres
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.run import AgentRunResultEvent
from rich.console import Console
from rich.table import Table

from results import Result, percentile, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))

from synapse_agents import Synapse

WORDS = ['chunk'] * 20
HISTORY_TURNS = 5


async def _text(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    for word in WORDS:
        yield word + ' '


async def _tools(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
    last = messages[-1]
    if not any(getattr(p, 'part_kind', '') == 'tool-return' for p in last.parts):
        yield {
            i: DeltaToolCall(name='lookup', json_args=json.dumps({'n': i}), tool_call_id=f'c{i}')
            for i in range(10)
        }
        return
    for word in WORDS:
        yield word + ' '


def agents() -> dict[str, Agent[None, str]]:
    text = Agent(FunctionModel(stream_function=_text, model_name='bench'), name='text_agent')
    tools = Agent(FunctionModel(stream_function=_tools, model_name='bench'), name='tools_agent')

    @tools.tool_plain
    def lookup(n: int) -> str:
        return f'result {n}'

    return {'text': text, 'tools': tools}


@contextmanager
def postgres_database(server_url: str) -> Iterator[str | None]:
    """A fresh, migrated PostgreSQL database (dropped afterwards), or None when there is no server."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    from synapse_agents.store import Store, upgrade

    url = make_url(server_url.replace('postgresql://', 'postgresql+psycopg://', 1))
    name = f'synapse_bench_{uuid.uuid4().hex[:8]}'
    admin = create_engine(url, isolation_level='AUTOCOMMIT')
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE {name}'))
    except Exception as exc:
        print(f'PostgreSQL not reachable at {server_url} ({type(exc).__name__}): SQLite only.')
        yield None
        return
    database = url.set(database=name).render_as_string(hide_password=False)
    try:
        store = Store.open(database, Path('/nonexistent'))
        upgrade(store.engine)
        store.close()
        yield database
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS {name} WITH (FORCE)'))
        admin.dispose()


async def timed(call: Callable[[], Awaitable[Any]]) -> float:
    started = time.perf_counter()
    await call()
    return (time.perf_counter() - started) * 1000


async def one_sample(
    syn: Synapse, agent: Agent[None, str], history: list[ModelMessage], kept: Any, long_id: str
) -> dict[tuple[str, str], float]:
    """One turn each way and shape, interleaved: ms keyed by (shape, way)."""
    return {
        ('new', 'direct'): await timed(lambda: _direct(agent, 'hello', [])),
        ('new', 'api'): await timed(lambda: _send(syn, agent, 'hello', tenant=('bench', '1'))),
        ('6th turn', 'direct'): await timed(lambda: _direct(agent, 'again', history)),
        ('6th turn', 'api'): await timed(lambda: kept.send('again')),
        ('6th, reopened', 'direct'): await timed(lambda: _direct(agent, 'again', history)),
        ('6th, reopened', 'api'): await timed(lambda: _send(syn, agent, 'again', id=long_id)),
    }


async def _direct(agent: Agent[None, str], prompt: str, history: list[ModelMessage]) -> list[ModelMessage]:
    """The agent run directly, as the engine runs it (its event stream consumed); its new messages."""
    async with agent.run_stream_events(prompt, message_history=history or None) as events:
        async for event in events:
            if isinstance(event, AgentRunResultEvent):
                return event.result.new_messages()
    raise RuntimeError('the run ended without a result')


async def _send(syn: Synapse, agent: Agent[None, str], message: str, **options: Any) -> Any:
    return await (await syn.conversation(agent, **options)).send(message)


async def measure(
    database_url: str, home: Path, runs: int, warmup: int
) -> dict[tuple[str, str, str], list[float]]:
    """Samples (ms) keyed by (agent, shape, way)."""
    samples: dict[tuple[str, str, str], list[float]] = {}
    found = agents()
    async with Synapse(home=home, database_url=database_url, agents=[]) as syn:
        for name, agent in found.items():
            # Conversations of HISTORY_TURNS turns: stored ones (one per sample, so each measured
            # turn is the sixth) and the same history in memory for the direct run.
            history: list[ModelMessage] = []
            for turn in range(HISTORY_TURNS):
                history.extend(await _direct(agent, f'turn {turn}', history))
            kept: list[Any] = []
            long_ids: list[str] = []
            for _ in range(warmup + runs):
                for _shape in ('kept', 'reopened'):
                    conv = await syn.conversation(agent, tenant=('bench', '1'))
                    for turn in range(HISTORY_TURNS):
                        await conv.send(f'turn {turn}')
                    assert conv.id is not None
                    kept.append(conv)
                long_ids.append(kept.pop().id)
            for index in range(warmup + runs):
                times = await one_sample(syn, agent, history, kept[index], long_ids[index])
                if index >= warmup:
                    for (shape, way), elapsed in times.items():
                        samples.setdefault((name, shape, way), []).append(elapsed)
    return samples


def report(dialect: str, samples: dict[tuple[str, str, str], list[float]], console: Console) -> list[Result]:
    table = Table(title=f'Python API vs direct run — {dialect} (ms per turn)')
    for column in (
        'agent',
        'turn',
        'direct p50',
        'api p50',
        'added p50',
        'direct p95',
        'api p95',
        'added p95',
    ):
        table.add_column(column, justify='right' if column not in ('agent', 'turn') else 'left')
    results: list[Result] = []
    for agent, shape in dict.fromkeys((a, s) for a, s, _ in samples):
        direct, api = samples[(agent, shape, 'direct')], samples[(agent, shape, 'api')]
        d50, a50 = statistics.median(direct), statistics.median(api)
        d95, a95 = percentile(direct, 0.95), percentile(api, 0.95)
        table.add_row(
            agent,
            shape,
            f'{d50:.2f}',
            f'{a50:.2f}',
            f'{a50 - d50:+.2f}',
            f'{d95:.2f}',
            f'{a95:.2f}',
            f'{a95 - d95:+.2f}',
        )
        group = f'Python API ({dialect})'
        results.append(Result.of(group, f'{agent}, {shape}: direct', direct))
        results.append(Result.of(group, f'{agent}, {shape}: api', api))
        results.append(
            Result(group, f'{agent}, {shape}: added by the API', a50 - d50, a95 - d95, samples=len(api))
        )
    console.print(table)
    return results


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument('--runs', type=int, default=150)
    parser.add_argument('--warmup', type=int, default=15)
    parser.add_argument('--postgres', default='postgresql://postgres@127.0.0.1:5432/postgres')
    parser.add_argument('--json', default=None)
    args = parser.parse_args()
    console = Console()
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix='synapse-bench-api-') as folder:
        home = Path(folder)
        sqlite = f'sqlite:///{home / "synapse.db"}'
        results += report('SQLite', await measure(sqlite, home, args.runs, args.warmup), console)
        with postgres_database(args.postgres) as postgres:
            if postgres is not None:
                results += report(
                    'PostgreSQL', await measure(postgres, home, args.runs, args.warmup), console
                )
    write_json(args.json, results)


if __name__ == '__main__':
    asyncio.run(main())
