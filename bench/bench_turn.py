"""What a turn through Synapse adds, side by side with the same agent run directly.

Same agents, same prompts, in one run, interleaved (direct, engine, HTTP, direct, ...):

- direct: `agent.run_stream_events(prompt)` consumed in this process;
- engine: Synapse's `ChatEngine` in this process (history, recording capability, encoder, SQLite
  writes through the write queue, the final write awaited before `finish`);
- http: `POST /api/agents/{slug}/chat` against a real `synapse serve` (uvicorn) subprocess;
- bare (text turn only): the HTTP floor — a bare Starlette app on the same uvicorn that reads the
  multipart form and streams 20 chunks, no agent: what any HTTP streaming answer costs here.

Agents (FunctionModel, no network): `text` streams 20 text chunks; `tools` makes 10 tool calls in
one step, then streams 20 text chunks. Reported: time to the first text chunk and to the end of the
turn (p50 / p95 ms), and the difference to direct.

Then, against the same server, with agents whose chunks carry the time they were produced:

- streaming lag: one turn at a time of a stream of 20 chunks 200 ms apart (4 s); each chunk's
  delay from production to the HTTP client;
- concurrency: `--concurrency` streams (default 100) at once of 20 chunks 50 ms apart: the chunk
  delays, the excess gap between a stream's chunks (arrival gap minus production gap), errors,
  whether every turn is fully in the database, and the server's memory before and after.

    python bench/bench_turn.py                # SQLite store in a temporary SYNAPSE_HOME
    python bench/bench_turn.py --runs 300 --concurrency 100
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from results import Result, percentile, write_json
from serving import free_port, wait_until_up

AGENTS_SOURCE = """
import asyncio, json, time
from pydantic_ai import Agent
from pydantic_ai.models.function import DeltaToolCall, FunctionModel

WORDS = ["chunk"] * 20

async def _text(messages, info):
    for word in WORDS:
        yield word + " "

async def _tools(messages, info):
    if not any(getattr(p, "part_kind", "") == "tool-call" for m in messages for p in m.parts):
        calls = {i: DeltaToolCall(name="lookup", json_args=json.dumps({"n": i}), tool_call_id=f"call_{i}")
                 for i in range(10)}
        yield calls
        return
    for word in WORDS:
        yield word + " "

async def _paced(messages, info):
    for _ in range(20):
        await asyncio.sleep(0.05)
        yield f"<{time.time():.6f}>"

async def _slow(messages, info):
    for _ in range(20):
        await asyncio.sleep(0.2)
        yield f"<{time.time():.6f}>"

text_agent = Agent(FunctionModel(stream_function=_text, model_name="bench"), name="text_agent")
tools_agent = Agent(FunctionModel(stream_function=_tools, model_name="bench"), name="tools_agent")
paced_agent = Agent(FunctionModel(stream_function=_paced, model_name="bench"), name="paced_agent")
slow_agent = Agent(FunctionModel(stream_function=_slow, model_name="bench"), name="slow_agent")

@tools_agent.tool_plain
def lookup(n: int) -> dict:
    return {"n": n, "status": "ok"}
"""


pct = percentile


def load_agents() -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(AGENTS_SOURCE, 'bench_agents', 'exec'), namespace)
    return namespace


async def run_direct(agent: Any) -> tuple[float, float]:
    from pydantic_ai.messages import PartDeltaEvent, PartStartEvent, TextPart, TextPartDelta

    started = time.perf_counter()
    first = None
    async with agent.run_stream_events('go') as events:
        async for event in events:
            if first is None and (
                (
                    isinstance(event, PartStartEvent)
                    and isinstance(event.part, TextPart)
                    and event.part.content
                )
                or (isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta))
            ):
                first = time.perf_counter()
    end = time.perf_counter()
    return (first or end) - started, end - started


async def run_engine(engine: Any, target: Any) -> tuple[float, float]:
    from synapse_agents.chat.request import TurnRequest
    from synapse_agents.web.vercel import encode_turn

    started = time.perf_counter()
    first = None
    prepared = await engine.prepare(TurnRequest(target, 'go'))
    async for chunk in encode_turn(engine.stream(prepared)):
        if first is None and '"text-delta"' in chunk:
            first = time.perf_counter()
    end = time.perf_counter()
    return (first or end) - started, end - started


async def run_http(client: httpx.AsyncClient, slug: str, *, path: str | None = None) -> tuple[float, float]:
    """Time to the first text chunk and to the end of one turn over HTTP (`path` overrides the
    chat route, for the bare floor)."""
    started = time.perf_counter()
    first = None
    path = path or f'/api/agents/{slug}/chat'
    async with client.stream('POST', path, data={'message': 'go'}) as response:
        assert response.status_code == 200
        async for text in response.aiter_text():
            if first is None and '"text-delta"' in text:
                first = time.perf_counter()
    end = time.perf_counter()
    return (first or end) - started, end - started


BARE_SOURCE = """
from starlette.applications import Starlette
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

async def chunks():
    yield 'data: {"type":"start"}\\n\\n'
    for _ in range(20):
        yield 'data: {"type":"text-delta","id":"t","delta":"chunk "}\\n\\n'
    yield 'data: [DONE]\\n\\n'

async def chat(request):
    await request.form()
    return StreamingResponse(chunks(), media_type='text/event-stream')

async def health(request):
    return JSONResponse({'status': 'ok'})

app = Starlette(routes=[Route('/chat', chat, methods=['POST']), Route('/api/health', health)])
"""
"""The HTTP floor: the same uvicorn, a multipart form read, 20 text chunks streamed, nothing else."""


def start_server(project: Path, home: Path, *, bare: bool = False) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, 'SYNAPSE_HOME': str(home), 'PYTHONUNBUFFERED': '1'}
    command = ['-m', 'synapse_agents', 'serve', 'agents', '--port', str(port)]
    if bare:
        command = ['-m', 'uvicorn', 'bare_app:app', '--port', str(port), '--log-level', 'warning']
    process = subprocess.Popen(
        [sys.executable, *command], cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
    )
    return process, wait_until_up(process, f'http://127.0.0.1:{port}')


def rss_mb(pid: int) -> tuple[float, float]:
    """The process's resident memory now and at its peak (VmRSS, VmHWM), in MB."""
    fields = dict(
        line.split(':', 1) for line in Path(f'/proc/{pid}/status').read_text().splitlines() if ':' in line
    )
    return tuple(int(fields[key].split()[0]) / 1024 for key in ('VmRSS', 'VmHWM'))  # type: ignore[return-value]


async def stream_part(url: str, slug: str, concurrency: int) -> dict[str, Any]:
    """`concurrency` simultaneous turns of an agent whose chunks carry the time they were made.

    Per text chunk: its lag (received - produced) and, from the second chunk of a stream on, the
    excess gap (the time since the stream's previous chunk arrived, minus the time between their
    production): how much longer a reader waited than the model made it wait."""
    lags: list[float] = []
    gaps: list[float] = []
    errors = 0
    conversations: list[str] = []

    async def one(client: httpx.AsyncClient) -> None:
        nonlocal errors
        buffer = ''
        previous: tuple[float, float] | None = None
        async with client.stream('POST', f'/api/agents/{slug}/chat', data={'message': 'go'}) as response:
            if response.status_code != 200:
                errors += 1
                return
            async for text in response.aiter_text():
                received = time.time()
                buffer += text
                while '\n\n' in buffer:
                    event, buffer = buffer.split('\n\n', 1)
                    body = event.removeprefix('data: ')
                    if body == '[DONE]':
                        continue
                    chunk = json.loads(body)
                    if chunk['type'] == 'text-delta':
                        produced = float(chunk['delta'].strip('<>'))
                        lags.append(received - produced)
                        if previous is not None:
                            gaps.append((received - previous[0]) - (produced - previous[1]))
                        previous = (received, produced)
                    elif chunk['type'] == 'start':
                        conversations.append(chunk['messageMetadata']['conversation_id'])
                    elif chunk['type'] == 'error':
                        errors += 1

    limits = httpx.Limits(max_connections=concurrency + 10)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as client:
        started = time.perf_counter()
        await asyncio.gather(*(one(client) for _ in range(concurrency)))
        elapsed = time.perf_counter() - started
        await asyncio.sleep(0.2)
        incomplete = 0
        for conversation_id in conversations:
            thread = (await client.get(f'/api/conversations/{conversation_id}')).json()
            roles = [m['role'] for m in thread['messages']]
            statuses = [m['status'] for m in thread['messages']]
            if roles != ['user', 'assistant'] or statuses != ['complete', 'complete']:
                incomplete += 1
    return {
        'streams': concurrency,
        'lags_ms': [lag * 1000 for lag in lags],
        'gaps_ms': [gap * 1000 for gap in gaps],
        'errors': errors,
        'recorded': len(conversations) - incomplete,
        'wall_s': elapsed,
    }


def describe(name: str, values: list[float]) -> str:
    p50, p95 = statistics.median(values), pct(values, 0.95)
    return f'{name}: p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {max(values):.1f} ms'


async def main_async(args: argparse.Namespace) -> None:
    from synapse_agents.chat.engine import ChatEngine
    from synapse_agents.discovery.slugs import module_slug
    from synapse_agents.store import Store, upgrade
    from synapse_agents.store.write_queue import WriteQueue
    from synapse_agents.targets.target import TurnTarget

    agents = load_agents()
    tmp = Path(tempfile.mkdtemp(prefix='synapse-bench-'))
    store = Store.open(f'sqlite:///{tmp / "engine.db"}', tmp / 'attachments')
    upgrade(store.engine)
    writes = WriteQueue(store)
    engine = ChatEngine(store, writes)
    project = tmp / 'project'
    (project / 'agents').mkdir(parents=True)
    (project / 'agents' / 'bench_agents.py').write_text(AGENTS_SOURCE)
    (project / 'bare_app.py').write_text(BARE_SOURCE)
    server, url = start_server(project, tmp / 'home')
    bare_server, bare_url = start_server(project, tmp / 'home', bare=True)
    results: list[Result] = []
    try:
        turns: dict[str, dict[str, list[tuple[float, float]]]] = {}
        async with (
            httpx.AsyncClient(base_url=url, timeout=30) as client,
            httpx.AsyncClient(base_url=bare_url, timeout=30) as bare,
        ):
            for name in ('text_agent', 'tools_agent'):
                agent = agents[name]
                target = TurnTarget.for_agent(agent, slug=f'bench.{name}')
                slug = module_slug('agents.bench_agents', name)
                runs: dict[str, list[tuple[float, float]]] = {'direct': [], 'engine': [], 'http': []}
                if name == 'text_agent':
                    runs['bare'] = []
                for index in range(args.runs + 10):
                    samples = [
                        ('direct', await run_direct(agent)),
                        ('engine', await run_engine(engine, target)),
                        ('http', await run_http(client, slug)),
                    ]
                    if 'bare' in runs:
                        samples.append(('bare', await run_http(bare, '', path='/chat')))
                    if index >= 10:  # warm-up
                        for mode, sample in samples:
                            runs[mode].append(sample)
                turns[name] = runs
        print(f'\nTurn overhead, SQLite, {args.runs} interleaved runs each (ms; p50 / p95):\n')
        header = f'{"agent":12} {"mode":7} {"first text chunk":>22} {"added p50":>10}'
        print(header + f' {"whole turn":>22} {"added p50":>10}')
        labels = {'text_agent': 'text-only turn', 'tools_agent': 'turn with 10 tool calls'}
        modes = {
            'direct': 'pydantic-ai directly',
            'engine': 'Synapse in-process',
            'http': 'Synapse over HTTP',
            'bare': 'HTTP floor (bare Starlette stream)',
        }
        for name, runs in turns.items():
            base_first = statistics.median(s[0] for s in runs['direct']) * 1000
            base_total = statistics.median(s[1] for s in runs['direct']) * 1000
            for mode, timings in runs.items():
                firsts = [s[0] * 1000 for s in timings]
                totals = [s[1] * 1000 for s in timings]
                f50, t50 = statistics.median(firsts), statistics.median(totals)
                print(
                    f'{name:12} {mode:7} {f50:10.2f} / {pct(firsts, 0.95):8.2f} {f50 - base_first:+10.2f}'
                    f' {t50:10.2f} / {pct(totals, 0.95):8.2f} {t50 - base_total:+10.2f}'
                )
                for what, values, base, limit in (
                    ('first chunk', firsts, base_first, 2.0),
                    ('whole turn', totals, base_total, 10.0),
                ):
                    added = statistics.median(values) - base
                    held = mode == 'http'
                    note = f'p50 {added:+.2f} ms vs direct'
                    if mode == 'bare':
                        note = 'no agent, no Synapse: what any HTTP streaming answer costs here'
                    results.append(
                        Result.of(
                            'turn',
                            f'{labels[name]}, {what}: {modes[mode]}',
                            values,
                            target=f'p50 added <= {limit:.0f} ms' if held else '',
                            passed=added <= limit if held else None,
                            note='' if mode == 'direct' else note,
                        )
                    )
        print(f'\nwrite queue: {writes.writes} writes in {writes.batches} transactions (engine runs)')

        lags: list[float] = []
        for _ in range(args.slow_turns):
            slow = await stream_part(url, module_slug('agents.bench_agents', 'slow_agent'), 1)
            lags += slow['lags_ms']
        print(
            f'\nOne stream, a chunk every 200 ms for 4 s, {args.slow_turns} turns: ' + describe('lag', lags)
        )
        results.append(
            Result.of(
                'streaming',
                'chunk lag, one 4 s stream (200 ms apart)',
                lags,
                target='p95 <= 20 ms',
                passed=pct(lags, 0.95) <= 20,
                note=f'{len(lags)} chunks over {args.slow_turns} turns; received minus produced',
            )
        )

        rss_before, _ = rss_mb(server.pid)
        many = await stream_part(url, module_slug('agents.bench_agents', 'paced_agent'), args.concurrency)
        rss_after, rss_peak = rss_mb(server.pid)
        sound = many['errors'] == 0 and many['recorded'] == args.concurrency
        print(
            f'\n{args.concurrency} simultaneous streams (20 chunks, 50 ms apart) against one server: '
            f'{describe("lag", many["lags_ms"])}; {describe("excess gap", many["gaps_ms"])}; '
            f'{len(many["lags_ms"])} chunks, {many["errors"]} errors, {many["recorded"]} of '
            f'{args.concurrency} turns fully recorded; wall {many["wall_s"]:.2f} s; server memory '
            f'{rss_before:.0f} MB before, {rss_after:.0f} MB after (peak {rss_peak:.0f} MB)'
        )
        group, streams = 'concurrency', f'{args.concurrency} streams'
        results += [
            Result.of(
                group,
                f'{streams}: excess gap between chunks',
                many['gaps_ms'],
                target='p95 <= 50 ms',
                passed=pct(many['gaps_ms'], 0.95) <= 50,
                note='time since the previous chunk arrived, minus the 50 ms the model paused',
            ),
            Result.of(group, f'{streams}: chunk lag', many['lags_ms'], note='received minus produced'),
            Result(
                group,
                f'{streams}: errors and unrecorded turns',
                many['errors'] + args.concurrency - many['recorded'],
                unit='count',
                target='0',
                passed=sound,
                note=f'{many["errors"]} errors; {many["recorded"]} of {args.concurrency} turns '
                'fully in the database',
            ),
            Result(
                group,
                f'{streams}: server memory growth',
                rss_after - rss_before,
                unit='MB',
                note=f'RSS {rss_before:.0f} MB before, {rss_after:.0f} MB after, peak {rss_peak:.0f} MB '
                f'(after {(args.runs + 10) * 2} HTTP turns and the lag runs)',
            ),
        ]
    finally:
        for process in (server, bare_server):
            process.terminate()
            process.wait(10)
        writes.close()
        store.close()
    write_json(args.json, results)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument('--runs', type=int, default=200)
    parser.add_argument('--slow-turns', type=int, default=5, help='turns of the 4 s stream')
    parser.add_argument('--concurrency', type=int, default=100)
    parser.add_argument('--json', help='also write the results here (see results.py)')
    asyncio.run(main_async(parser.parse_args()))


if __name__ == '__main__':
    main()
