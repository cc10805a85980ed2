"""Traces: what debug logs and export add to a model call, and the Traces page's reads at 100,000 roots.

1. Per model call: N chat-engine turns (`ChatEngine`, SQLite, every row recorded, the write queue
   drained after each turn) of a `FunctionModel` agent that answers at once with one tool call (two
   model calls a turn). The process's instrumentation cannot be taken back once installed, so:
   first, "tree only, first turns" (`debug_playground=False`: the trace tree without bodies; the
   first such turn installs the instrumentation) interleaved with a plain `agent.run` of the same
   agent; then, interleaved: `agent.run` again (the sampler drops its spans: what the
   instrumentation costs runs nobody traces), "tree only", "debug on" (bodies kept too),
   "exported" (`otel_endpoint` on a local HTTP server that accepts and discards OTLP) and "debug on
   + exported". Every Synapse turn records its tree, so every engine mode writes its debug logs,
   "tree only, app instrumentation off" (`Agent.instrument_all(False)` for its run) too: the
   app's switch does not turn Synapse's recording off. The exporter is flushed
   after each exported turn, outside its time, so its batch work is not charged to the next mode:
   that flush is reported on its own ("export work"). A floor for the installed modes interleaved
   with them: the same call with `Agent.instrument_all(False)` for its run ("instrumentation off").
   p50, mean and p95 per model call (a turn's time / 2), and the ratio to each mode's floor.
2. `GET /api/traces` at 100,000 roots (one child run, one tool call and two debug logs per 10
   roots; 1% of the trees failed; 10 agents, one rare), on SQLite and a fresh PostgreSQL database:
   the first page, a deep page (`before=` the middle root, the 50,000th), `errors=true`, `agent=`
   (10% and 0.1% of the roots) and one tree (`GET /api/traces/{id}`), through the app (in-process
   ASGI, JSON included) and `read.list_roots` / `read.tree` alone, beside the same reads at 1,000
   roots; p50 over repeated calls, with SQL statements per request. A read slower than 50 ms p50 prints its
   `EXPLAIN` plan (`--plans`: every read's).

    python bench/bench_traces.py
    python bench/bench_traces.py --turns 50 --roots 20000 --runs 10 --db sqlite
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import secrets
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from rich.console import Console
from rich.table import Table
from sqlalchemy import event, func, insert, select

from bench_python_api import postgres_database
from results import Result, percentile, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))

from synapse_agents.chat.engine import ChatEngine
from synapse_agents.chat.request import TurnRequest
from synapse_agents.events import TurnFinished
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.settings import Settings, load_settings
from synapse_agents.store import Store, upgrade
from synapse_agents.store.ids import new_id
from synapse_agents.store.write_queue import WriteQueue
from synapse_agents.targets.target import TurnTarget
from synapse_agents.traces import provider, read
from synapse_agents.traces.rows import pack
from synapse_agents.traces.tables import DebugLog, TraceRun, TraceTool
from synapse_agents.web.app import create_app

SLOW_MS = 50.0
AGENTS = [f'bench.agent_{index}' for index in range(10)]
RARE = 'bench.rare_agent'
"""One root in 1,000 is this agent's."""

# -- 1. the added time per model call -----------------------------------------------------------


def _returned(messages: list[ModelMessage]) -> bool:
    return any(getattr(part, 'part_kind', '') == 'tool-return' for part in messages[-1].parts)


def _answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if not _returned(messages):
        return ModelResponse([ToolCallPart('lookup', {'n': 1}, tool_call_id='c1')])
    return ModelResponse([TextPart('done')])


async def _stream(messages: list[ModelMessage], info: AgentInfo) -> Any:
    if not _returned(messages):
        yield {0: DeltaToolCall(name='lookup', json_args='{"n": 1}', tool_call_id='c1')}
        return
    yield 'done'


def quick_agent() -> Agent[None, str]:
    """Answers at once: a tool call, then text (two model calls)."""
    agent = Agent(FunctionModel(_answer, stream_function=_stream, model_name='bench'), name='quick')

    @agent.tool_plain
    def lookup(n: int) -> dict[str, int]:
        return {'n': n}

    return agent


@contextmanager
def otlp_sink() -> Iterator[tuple[str, dict[str, int]]]:
    """A local HTTP server that accepts OTLP/HTTP posts and discards them; its URL and counts."""
    seen = {'posts': 0, 'bytes': 0}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get('Content-Length') or 0))
            seen['posts'] += 1
            seen['bytes'] += len(body)
            self.send_response(200)
            self.send_header('Content-Type', 'application/x-protobuf')
            self.send_header('Content-Length', '0')
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            """Quiet: one line per request would drown the bench's output."""

    server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f'http://127.0.0.1:{server.server_address[1]}', seen
    finally:
        server.shutdown()
        server.server_close()


async def engine_turn(engine: ChatEngine, target: TurnTarget) -> float:
    """One turn until the stream ends and its writes are committed, in ms."""
    started = time.perf_counter()
    prepared = await engine.prepare(TurnRequest(target, 'go'))
    status = None
    async for item in engine.stream(prepared):
        if isinstance(item, TurnFinished):
            status = item.status
    await engine.writes.drain()
    if status != 'complete':
        raise RuntimeError(f'a bench turn ended {status}')
    return (time.perf_counter() - started) * 1000


async def plain_run(agent: Agent[None, str]) -> float:
    started = time.perf_counter()
    result = await agent.run('go')
    assert result.output == 'done'
    return (time.perf_counter() - started) * 1000


async def interleaved(
    ways: dict[str, Callable[[], Any]], turns: int, warmup: int, samples: dict[str, list[float]]
) -> None:
    """One sample of each way per round, the order rotated each round; warm-up rounds dropped."""
    names = list(ways)
    for index in range(warmup + turns):
        shift = index % len(names)
        for name in names[shift:] + names[:shift]:
            elapsed = await ways[name]()
            if index >= warmup:
                samples.setdefault(name, []).append(elapsed)


def uninstrumented(way: Callable[[], Any]) -> Callable[[], Any]:
    """`way` with the process's instrumentation switched off for its run (`Agent.instrument_all(False)`,
    then back on): the floor interleaved with the installed modes."""

    async def run() -> float:
        installed = Agent._instrument_default
        Agent.instrument_all(False)
        try:
            elapsed: float = await way()
        finally:
            Agent.instrument_all(installed)
        return elapsed

    return run


def flushing(way: Callable[[], Any], spent: list[float]) -> Callable[[], Any]:
    """`way`, then the exporter flushed outside the timing (the time it took goes to `spent`): the
    export's own work stays out of the next mode's samples and is reported on its own."""

    async def run() -> float:
        elapsed: float = await way()
        started = time.perf_counter()
        await asyncio.to_thread(provider.flush)
        spent.append((time.perf_counter() - started) * 1000)
        return elapsed

    return run


EXPORTS = ('exported', 'debug on + exported')
FLOORS = {
    'agent.run, never installed': 'agent.run, instrumentation off',
    'agent.run, installed (spans dropped)': 'agent.run, instrumentation off',
    'tree only, first turns': 'tree only, app instrumentation off',
    'tree only': 'tree only, app instrumentation off',
    'debug on': 'tree only',
    'exported': 'tree only',
    'debug on + exported': 'tree only',
}
"""What each mode is compared with (`x floor`); a floor itself is compared with nothing."""
MODES = (
    'agent.run, never installed',
    'agent.run, instrumentation off',
    'agent.run, installed (spans dropped)',
    'tree only, first turns',
    'tree only, app instrumentation off',
    'tree only',
    'debug on',
    'exported',
    'debug on + exported',
    *(f'{name}: export work' for name in EXPORTS),
)


async def measure_calls(folder: Path, turns: int, warmup: int) -> tuple[dict[str, list[float]], str]:
    """ms per turn keyed by mode, and a line on what was recorded and exported."""
    store = Store.open(f'sqlite:///{folder / "turns.db"}', folder / 'attachments')
    upgrade(store.engine)
    writes = WriteQueue(store)
    agent = quick_agent()
    target = TurnTarget.for_agent(agent, slug='bench.quick')
    samples: dict[str, list[float]] = {}
    with otlp_sink() as (url, seen):
        settings = {
            'tree only': Settings(debug_playground=False),
            'debug on': Settings(debug_playground=True),
            'exported': Settings(debug_playground=False, otel_endpoint=url),
            'debug on + exported': Settings(debug_playground=True, otel_endpoint=url),
        }
        engines = {name: ChatEngine(store, writes, values) for name, values in settings.items()}
        quiet = engines['tree only']
        try:
            before: dict[str, Callable[[], Any]] = {
                'agent.run, never installed': lambda: plain_run(agent),
                'tree only, first turns': lambda: engine_turn(quiet, target),
            }
            await interleaved(before, turns, warmup, samples)
            if not provider.install():
                raise RuntimeError('pydantic-ai was already instrumented in this process')
            ways: dict[str, Callable[[], Any]] = {
                'agent.run, instrumentation off': uninstrumented(lambda: plain_run(agent)),
                'agent.run, installed (spans dropped)': lambda: plain_run(agent),
                'tree only, app instrumentation off': uninstrumented(lambda: engine_turn(quiet, target)),
            }
            ways |= {name: partial(engine_turn, e, target) for name, e in engines.items()}
            spent: dict[str, list[float]] = {name: [] for name in EXPORTS}
            for name in EXPORTS:
                ways[name] = flushing(ways[name], spent[name])
            await interleaved(ways, turns, warmup, samples)
            for name, values in spent.items():
                samples[f'{name}: export work'] = values[warmup:]
            provider.flush()
            with store.read() as session:
                logs = session.scalar(select(func.count()).select_from(DebugLog)) or 0
                runs = session.scalar(select(func.count()).select_from(TraceRun)) or 0
        finally:
            writes.close()
            store.close()
    engine_modes = sum(
        1 for mode in MODES if mode.startswith(('tree only', 'debug on', 'exported')) and ':' not in mode
    )
    expected = engine_modes * 2 * (turns + warmup)  # every engine turn records its tree; two calls a turn
    if logs != expected:
        raise RuntimeError(f'{logs} debug logs recorded, {expected} expected')
    note = (
        f'{logs:,} debug logs and {runs:,} runs recorded; the OTLP server took {seen["posts"]} posts '
        f'({seen["bytes"] / 1024:,.0f} KB). "never installed" ran first, before install(); the rest '
        'interleaved. "export work": the exporter flushed after an exported turn (its batch encoded and '
        'posted; a background thread does it in a server).'
    )
    return samples, note


def report_calls(samples: dict[str, list[float]], note: str, console: Console) -> list[Result]:
    group = 'Traces: per model call (SQLite)'
    table = Table(title='Per model call (a turn / 2), ms — SQLite, the write queue drained each turn')
    for column in ('mode', 'p50', 'mean', 'p95', 'floor', 'added p50', 'x floor'):
        table.add_column(column, justify='left' if column in ('mode', 'floor') else 'right')
    results: list[Result] = []
    for name in MODES:
        per_call = [value / 2 for value in samples[name]]
        p50, mean, p95 = statistics.median(per_call), statistics.fmean(per_call), percentile(per_call, 0.95)
        cells = [name, f'{p50:.3f}', f'{mean:.3f}', f'{p95:.3f}', '—', '', '']
        note_text = f'mean {mean:.3f} ms'
        if name in FLOORS:
            floor = statistics.median(value / 2 for value in samples[FLOORS[name]])
            cells[4:] = [FLOORS[name], f'{p50 - floor:+.3f}', f'{p50 / floor:.2f}']
            note_text += f'; {p50 - floor:+.3f} ms p50 vs {FLOORS[name]} (x{p50 / floor:.2f})'
        table.add_row(*cells)
        results.append(Result.of(group, f'model call, {name}', per_call, note=note_text))
    console.print(table)
    console.print(note, highlight=False)
    return results


# -- 2. the reads at 100,000 roots --------------------------------------------------------------


def _hex(count: int) -> str:
    return secrets.token_hex(count // 2)


RUN: dict[str, Any] = {
    'module': 'chat',
    'workflow_run_id': None,
    'model': 'gpt-4o-mini',
    'input_tokens': 1200,
}
RUN |= {'output_tokens': 80, 'model_calls': 2, 'tool_calls': 1, 'output': 'On its way.', 'duration_ms': 2000}
CALL: dict[str, Any] = {
    'workflow_run_id': None,
    'module': 'chat',
    'model': 'gpt-4o-mini',
    'provider': 'openai',
}
CALL |= {'input_tokens': 600, 'output_tokens': 40, 'total_tokens': 640, 'cost': Decimal('0.0006')}
CALL |= {'finish_reason': 'stop', 'error': None, 'truncated': False, 'duration_ms': 300}
TOOL: dict[str, Any] = {
    'tool_call_id': 'call-1',
    'name': 'ask_helper',
    'arguments': {'q': 'x'},
    'result': {'ok': True},
}
TOOL |= {'status': 'success', 'error': None, 'duration_ms': 900}


def _tree(index: int, at: datetime, blob: tuple[bytes, int]) -> tuple[list[dict[str, Any]], ...]:
    """Root `index`'s rows: its run; every 10th root also a child run (started by a tool), the
    tool call and two model calls. Trees 100 and 0 (mod 200) failed: at the root, in the child."""
    run_id, span, conversation = new_id(), _hex(16), new_id()
    agent = RARE if index % 1000 == 500 else AGENTS[index % len(AGENTS)]
    failed = index % 200 == 100
    shared = RUN | {'root_run_id': run_id, 'conversation_id': conversation, 'trace_id': _hex(32)}
    shared |= {'started_at': at, 'finished_at': at + timedelta(seconds=2)}
    root = shared | {'agent_run_id': run_id, 'parent_run_id': None, 'depth': 0, 'is_root': True}
    root |= {'origin': ('code', 'code', 'code', 'config', 'ephemeral')[index % 5], 'agent_key': agent}
    root |= {'agent_name': agent.rsplit('.', 1)[-1], 'message_id': new_id(), 'span_id': span}
    root |= {'parent_span_id': None, 'status': 'error' if failed else 'ok'}
    root |= {'error': 'RuntimeError: model down' if failed else None}
    root |= {'cost': None if index % 7 == 0 else Decimal('0.0012')}
    if index % 10:
        return [root], [], []
    child_id, tool_span, child_failed = new_id(), _hex(16), index % 200 == 0
    child = shared | {'agent_run_id': child_id, 'parent_run_id': run_id, 'depth': 1, 'is_root': False}
    child |= {'origin': 'direct', 'agent_name': 'helper', 'agent_key': None, 'message_id': None}
    child |= {'span_id': _hex(16), 'parent_span_id': tool_span, 'cost': Decimal('0.0003')}
    child |= {'status': 'error' if child_failed else 'ok', 'started_at': at + timedelta(milliseconds=500)}
    child |= {'error': 'ValueError: bad input' if child_failed else None}
    tool = TOOL | {'id': new_id(), 'agent_run_id': run_id, 'root_run_id': run_id, 'span_id': tool_span}
    tool |= {'conversation_id': conversation, 'parent_span_id': span}
    tool |= {'started_at': at + timedelta(milliseconds=400)}
    calls = []
    for owner, parent, depth, offset in ((run_id, None, 0, 0), (child_id, run_id, 1, 600)):
        call = CALL | {'id': new_id(), 'agent_run_id': owner, 'parent_run_id': parent, 'depth': depth}
        call |= {'root_run_id': run_id, 'origin': 'direct' if depth else root['origin']}
        call |= {'conversation_id': conversation, 'action': 'agent_call' if depth else 'chat_turn'}
        call |= {'span_id': _hex(16), 'parent_span_id': span, 'data': blob[0], 'data_bytes': blob[1]}
        call |= {'started_at': at + timedelta(milliseconds=offset), 'created_at': at}
        calls.append(call)
    return [root, child], calls, [tool]


def seed(store: Store, roots: int, chunk: int = 5_000) -> tuple[list[str], float]:
    """`roots` trees, one a minute (`_tree`), in `executemany` chunks; the root ids oldest first and
    the seconds the load took."""
    data: dict[str, Any] = {'request': {'model': 'gpt-4o-mini', 'settings': {}}}
    data['history'] = [{'role': 'user', 'parts': [{'type': 'text', 'content': 'Where is my order?'}]}]
    data['turns'] = [{'role': 'assistant', 'parts': [{'type': 'text', 'content': 'On its way.'}]}]
    blob, size, _ = pack(data, 262_144)
    base, ids, started = datetime(2026, 1, 1, tzinfo=UTC), list[str](), time.perf_counter()
    for first in range(0, roots, chunk):
        rows: tuple[list[dict[str, Any]], ...] = ([], [], [])
        for index in range(first, min(roots, first + chunk)):
            found = _tree(index, base + timedelta(minutes=index), (blob, size))
            for into, more in zip(rows, found, strict=True):
                into.extend(more)
            ids.append(rows[0][-1 if index % 10 else -2]['agent_run_id'])
        with store.write() as session:
            for table, values in zip((TraceRun, DebugLog, TraceTool), rows, strict=True):
                session.connection().execute(insert(table), values)
    if store.dialect == 'postgresql':  # as autovacuum would, before anyone reads
        with store.write() as session:
            session.connection().exec_driver_sql('ANALYZE trace_runs, debug_logs, trace_tools')
    return ids, time.perf_counter() - started


def cases(ids: list[str]) -> list[tuple[str, dict[str, Any]]]:
    deep = ids[len(ids) // 2]  # the 50,000th of 100,000
    return [
        ('first page', {}),
        ('deep page (before= the middle root)', {'before': deep}),
        ('errors=true', {'errors': True}),
        ('agent= (10% of roots)', {'agent': AGENTS[3]}),
        ('agent= (0.1% of roots)', {'agent': RARE}),
    ]


def _query(params: dict[str, Any]) -> dict[str, Any]:
    return {key: str(value).lower() if isinstance(value, bool) else value for key, value in params.items()}


async def measure_reads(store: Store, runs: int) -> dict[str, Any]:
    """ms per request (API and read alone), SQL statements per request and the statements run."""
    with store.read() as session:
        roots = select(TraceRun.agent_run_id).where(TraceRun.is_root.is_(True))
        ids = list(session.scalars(roots.order_by(TraceRun.started_at)))
    tree_id = ids[len(ids) // 2 // 10 * 10]  # a root with a child, a tool call and two model calls
    ran: list[tuple[str, Any]] = []
    event.listen(store.engine, 'before_cursor_execute', lambda c, cur, s, p, *_: ran.append((s, p)))
    url = store.engine.url.render_as_string(hide_password=False)
    context = SynapseContext(loaded=load_settings({'database_url': url}), store=store)
    transport = httpx.ASGITransport(app=create_app(context))
    found: dict[str, Any] = {'api': {}, 'read': {}, 'sql': {}, 'statements': {}}
    reads: list[tuple[str, Callable[[], Any], Callable[[], Any]]] = []
    async with httpx.AsyncClient(transport=transport, base_url='http://127.0.0.1') as client:
        for name, params in cases(ids):
            filters = read.RootFilters(**params)
            listing = partial(client.get, '/api/traces', params=_query(params))
            reads.append((name, listing, partial(read.list_roots, store, filters)))
        reads.append(
            (
                'one tree (2 runs, 2 model calls, 1 tool)',
                partial(client.get, f'/api/traces/{tree_id}'),
                partial(read.tree, store, tree_id),
            )
        )
        for index in range(runs + 3):
            for name, api, alone in reads:
                ran.clear()
                started = time.perf_counter()
                response = await api()
                api_ms = (time.perf_counter() - started) * 1000
                if response.status_code != 200:
                    raise RuntimeError(f'{name}: {response.status_code} {response.text[:200]}')
                sql = len(ran)
                started = time.perf_counter()
                await asyncio.to_thread(alone)
                read_ms = (time.perf_counter() - started) * 1000
                found['statements'][name] = list(ran[sql:])
                if index >= 3:  # warm-up
                    found['api'].setdefault(name, []).append(api_ms)
                    found['read'].setdefault(name, []).append(read_ms)
                    found['sql'][name] = sql
    return found


def plan(store: Store, statements: list[tuple[str, Any]]) -> str:
    """The plan of the statement(s) one read ran (`EXPLAIN ANALYZE` on PostgreSQL)."""
    lines: list[str] = []
    with store.read() as session:
        connection = session.connection()
        for statement, parameters in statements:
            if store.dialect == 'postgresql':
                rows = connection.exec_driver_sql(f'EXPLAIN (ANALYZE, BUFFERS) {statement}', parameters)
                lines += [str(row[0]) for row in rows]
            else:
                rows = connection.exec_driver_sql(f'EXPLAIN QUERY PLAN {statement}', parameters)
                lines += [f'{"  " * int(row[1] > 0)}{row[3]}' for row in rows]
    return '\n'.join(lines)


def report_reads(
    dialect: str,
    large: dict[str, Any],
    small: dict[str, Any],
    sizes: tuple[int, int],
    store: Store,
    args: argparse.Namespace,
    console: Console,
) -> list[Result]:
    group = f'Traces: reads at {sizes[0]:,} roots ({dialect})'
    table = Table(title=f'GET /api/traces at {sizes[0]:,} roots — {dialect} (ms, p50 of {args.runs})')
    for column in (
        'read',
        'API p50',
        'API p95',
        'read alone p50',
        f'API at {sizes[1]:,} roots',
        'x small',
        'SQL',
    ):
        table.add_column(column, justify='left' if column == 'read' else 'right')
    results: list[Result] = []
    slow: list[str] = []
    for name, values in large['api'].items():
        api50, alone = statistics.median(values), statistics.median(large['read'][name])
        floor = statistics.median(small['api'][name])
        p95 = percentile(values, 0.95)
        cells = (f'{api50:.2f}', f'{p95:.2f}', f'{alone:.2f}', f'{floor:.2f}', f'{api50 / floor:.1f}')
        table.add_row(name, *cells, str(large['sql'][name]))
        note = f'read alone {alone:.2f} ms; {floor:.2f} ms at {sizes[1]:,} roots; {large["sql"][name]} SQL'
        target = f'p50 <= {SLOW_MS:.0f} ms'
        results.append(
            Result.of(group, f'API: {name}', values, target=target, passed=api50 <= SLOW_MS, note=note)
        )
        if api50 > SLOW_MS or alone > SLOW_MS or args.plans:
            slow.append(name)
    console.print(table)
    for name in slow:
        mark = 'slower than 50 ms p50' if not args.plans else 'plan'
        console.print(f'[bold]{name}[/] ({dialect}, {mark}):', highlight=False)
        console.print(plan(store, large['statements'][name]), highlight=False, markup=False)
    return results


async def bench_reads(
    dialect: str, urls: tuple[str, str], args: argparse.Namespace, console: Console
) -> list[Result]:
    """Seed a large and a small store, time the reads on each, report the large beside the small."""
    found: list[dict[str, Any]] = []
    large_store: Store | None = None
    for url, roots in zip(urls, (args.roots, args.small), strict=True):
        store = Store.open(url, Path('/nonexistent'))
        upgrade(store.engine)
        ids, seconds = seed(store, roots)
        console.print(f'{dialect}: {len(ids):,} roots loaded in {seconds:.1f} s.', highlight=False)
        found.append(await measure_reads(store, args.runs))
        if large_store is None:
            large_store = store
        else:
            store.close()
    assert large_store is not None
    try:
        return report_reads(dialect, found[0], found[1], (args.roots, args.small), large_store, args, console)
    finally:
        large_store.close()


# -- the table at the end -----------------------------------------------------------------------


def markdown(results: list[Result]) -> str:
    cpu = platform.processor() or platform.machine()
    lines = [
        f'Machine: {os.cpu_count()} cores ({cpu}), Python {platform.python_version()}; '
        'figures in ms, p50 (and p95) over the samples; read the ratios, not the absolute times.',
        '',
        '| group | figure | p50 | p95 | n | target | note |',
        '|---|---|---:|---:|---:|---|---|',
    ]
    for r in results:
        verdict = '' if r.passed is None else (' pass' if r.passed else ' MISS')
        p95 = '' if r.p95 is None else f'{r.p95:.3f}'
        lines.append(
            f'| {r.group} | {r.name} | {r.median:.3f} | {p95} | {r.samples} '
            f'| {r.target}{verdict} | {r.note} |'
        )
    return '\n'.join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument('--turns', type=int, default=200, help='measured turns per mode')
    parser.add_argument('--warmup', type=int, default=10)
    parser.add_argument('--roots', type=int, default=100_000)
    parser.add_argument('--small', type=int, default=1_000, help='roots of the small-scale store')
    parser.add_argument('--runs', type=int, default=30, help='timed calls per read')
    parser.add_argument('--db', choices=('sqlite', 'postgresql', 'all'), default='all')
    parser.add_argument('--postgres', default='postgresql://postgres@127.0.0.1:5432/test')
    parser.add_argument('--plans', action='store_true', help="print every read's plan")
    parser.add_argument('--json', default=None)
    args = parser.parse_args()
    console = Console(width=None if sys.stdout.isatty() else 140)
    console.print(f'Load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores at the start.')
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix='synapse-bench-traces-') as folder:
        samples, note = await measure_calls(Path(folder), args.turns, args.warmup)
        results += report_calls(samples, note, console)
        if args.db in ('sqlite', 'all'):
            urls = (f'sqlite:///{folder}/roots.db', f'sqlite:///{folder}/small.db')
            results += await bench_reads('SQLite', urls, args, console)
        if args.db in ('postgresql', 'all'):
            with postgres_database(args.postgres) as large, postgres_database(args.postgres) as small:
                if large is not None and small is not None:
                    results += await bench_reads('PostgreSQL', (large, small), args, console)
    console.print(f'Load average {os.getloadavg()[0]:.2f} at the end.\n')
    console.print(markdown(results), highlight=False, markup=False, soft_wrap=True)
    write_json(args.json, results)


if __name__ == '__main__':
    asyncio.run(main())
