"""What a turn through Synapse adds, side by side with the same agent run directly.

Same agents, same prompts, in one run, interleaved (direct, engine, HTTP, direct, ...):

- direct: `agent.run_stream_events(prompt)` consumed in this process;
- engine: Synapse's `ChatEngine` in this process (history, recording capability, encoder, SQLite
  writes through the write queue, the final write awaited before `finish`);
- http: `POST /api/agents/{slug}/chat` against a real `synapse serve` (uvicorn) subprocess.

Agents (FunctionModel, no network): `text` streams 20 text chunks; `tools` makes 10 tool calls in
one step, then streams 20 text chunks. Reported: time to the first text chunk and to the end of the
turn (p50 / p95 ms), and the difference to direct.

Then `--concurrency` streams (default 100) at once against the server: an agent that streams 20
chunks 50 ms apart, each stamped with the time it was produced; reported are the per-chunk delays
to the client (p50 / p95 / max), errors, and whether every turn's rows are in the database.

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

text_agent = Agent(FunctionModel(stream_function=_text, model_name="bench"), name="text_agent")
tools_agent = Agent(FunctionModel(stream_function=_tools, model_name="bench"), name="tools_agent")
paced_agent = Agent(FunctionModel(stream_function=_paced, model_name="bench"), name="paced_agent")

@tools_agent.tool_plain
def lookup(n: int) -> dict:
    return {"n": n, "status": "ok"}
"""


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


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
    from synapse_agents.chat.engine import TurnInput

    started = time.perf_counter()
    first = None
    prepared = await engine.prepare(TurnInput(target, 'go'))
    async for chunk in engine.stream(prepared):
        if first is None and '"text-delta"' in chunk:
            first = time.perf_counter()
    end = time.perf_counter()
    return (first or end) - started, end - started


async def run_http(client: httpx.AsyncClient, slug: str) -> tuple[float, float]:
    started = time.perf_counter()
    first = None
    async with client.stream('POST', f'/api/agents/{slug}/chat', data={'message': 'go'}) as response:
        assert response.status_code == 200
        async for text in response.aiter_text():
            if first is None and '"text-delta"' in text:
                first = time.perf_counter()
    end = time.perf_counter()
    return (first or end) - started, end - started


def start_server(project: Path, home: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = 8900 + os.getpid() % 90
    env = {**os.environ, 'SYNAPSE_HOME': str(home), 'PYTHONUNBUFFERED': '1'}
    process = subprocess.Popen(
        [sys.executable, '-m', 'synapse_agents', 'serve', 'agents', '--port', str(port)],
        cwd=project,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    url = f'http://127.0.0.1:{port}'
    for _ in range(200):
        try:
            if httpx.get(url + '/api/health', timeout=1).status_code == 200:
                return process, url
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    process.kill()
    raise RuntimeError('synapse serve did not start')


async def latency_part(url: str, slug: str, concurrency: int) -> dict[str, Any]:
    lags: list[float] = []
    errors = 0
    conversations: list[str] = []

    async def one(client: httpx.AsyncClient) -> None:
        nonlocal errors
        buffer = ''
        async with client.stream('POST', f'/api/agents/{slug}/chat', data={'message': 'go'}) as response:
            if response.status_code != 200:
                errors += 1
                return
            async for text in response.aiter_text():
                buffer += text
                while '\n\n' in buffer:
                    event, buffer = buffer.split('\n\n', 1)
                    body = event.removeprefix('data: ')
                    if body == '[DONE]':
                        continue
                    chunk = json.loads(body)
                    if chunk['type'] == 'text-delta':
                        lags.append(time.time() - float(chunk['delta'].strip('<>')))
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
        missing = 0
        for conversation_id in conversations:
            thread = (await client.get(f'/api/conversations/{conversation_id}')).json()
            roles = [m['role'] for m in thread['messages']]
            statuses = [m['status'] for m in thread['messages']]
            if roles != ['user', 'assistant'] or statuses != ['complete', 'complete']:
                missing += 1
    lags_ms = [lag * 1000 for lag in lags]
    return {
        'streams': concurrency,
        'chunks': len(lags),
        'errors': errors,
        'turns_incomplete_in_db': missing,
        'p50': statistics.median(lags_ms),
        'p95': pct(lags_ms, 0.95),
        'max': max(lags_ms),
        'wall_s': elapsed,
    }


async def main_async(args: argparse.Namespace) -> None:
    from synapse_agents.chat.engine import ChatEngine
    from synapse_agents.chat.target import TurnTarget
    from synapse_agents.store import Store, upgrade
    from synapse_agents.store.write_queue import WriteQueue

    agents = load_agents()
    tmp = Path(tempfile.mkdtemp(prefix='synapse-bench-'))
    store = Store.open(f'sqlite:///{tmp / "engine.db"}', tmp / 'attachments')
    upgrade(store.engine)
    writes = WriteQueue(store)
    engine = ChatEngine(store, writes)
    project = tmp / 'project'
    (project / 'agents').mkdir(parents=True)
    (project / 'agents' / 'bench_agents.py').write_text(AGENTS_SOURCE)
    server, url = start_server(project, tmp / 'home')
    try:
        from synapse_agents.discovery.slugs import module_slug

        results: dict[str, dict[str, list[tuple[float, float]]]] = {}
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            for name in ('text_agent', 'tools_agent'):
                agent = agents[name]
                target = TurnTarget.for_agent(agent, slug=f'bench.{name}')
                slug = module_slug('agents.bench_agents', name)
                runs: dict[str, list[tuple[float, float]]] = {'direct': [], 'engine': [], 'http': []}
                for index in range(args.runs + 10):
                    samples = (
                        ('direct', await run_direct(agent)),
                        ('engine', await run_engine(engine, target)),
                        ('http', await run_http(client, slug)),
                    )
                    if index >= 10:  # warm-up
                        for mode, sample in samples:
                            runs[mode].append(sample)
                results[name] = runs
        print(f'\nTurn overhead, SQLite, {args.runs} interleaved runs each (ms; p50 / p95):\n')
        header = f'{"agent":12} {"mode":7} {"first text chunk":>22} {"added p50":>10}'
        print(header + f' {"whole turn":>22} {"added p50":>10}')
        for name, runs in results.items():
            base_first = statistics.median(s[0] for s in runs['direct']) * 1000
            base_total = statistics.median(s[1] for s in runs['direct']) * 1000
            for mode, samples in runs.items():
                firsts = [s[0] * 1000 for s in samples]
                totals = [s[1] * 1000 for s in samples]
                f50, t50 = statistics.median(firsts), statistics.median(totals)
                print(
                    f'{name:12} {mode:7} {f50:10.2f} / {pct(firsts, 0.95):8.2f} {f50 - base_first:+10.2f}'
                    f' {t50:10.2f} / {pct(totals, 0.95):8.2f} {t50 - base_total:+10.2f}'
                )
        print(f'\nwrite queue: {writes.writes} writes in {writes.batches} transactions (engine runs)')
        latency = await latency_part(url, module_slug('agents.bench_agents', 'paced_agent'), args.concurrency)
        print(
            f'\n{latency["streams"]} simultaneous streams (20 chunks, 50 ms apart) against one server: '
            f'chunk delay p50 {latency["p50"]:.1f} ms, p95 {latency["p95"]:.1f} ms, '
            f'max {latency["max"]:.1f} ms; '
            f'{latency["chunks"]} chunks, {latency["errors"]} errors, '
            f'{latency["turns_incomplete_in_db"]} turns missing or incomplete in the database; '
            f'wall {latency["wall_s"]:.2f} s'
        )
    finally:
        server.terminate()
        server.wait(10)
        writes.close()
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument('--runs', type=int, default=200)
    parser.add_argument('--concurrency', type=int, default=100)
    asyncio.run(main_async(parser.parse_args()))


if __name__ == '__main__':
    main()
