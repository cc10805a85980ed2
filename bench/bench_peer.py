"""Synapse against its peer, and what each piece of a turn adds: one interleaved run.

The peer is pydantic-ai's own chat app (`Agent.to_web()`), which records nothing. The same agent (a
scripted `FunctionModel`: one tool call, then 12 streamed words; two model calls a turn, no
network) is served by the peer and by several `synapse serve` processes, each on its own SQLite
home; one HTTP client sends one turn to each, round after round, in a new random order each round
and after a short pause (`--pause`), so the background writes of one turn do not land on the next
server's turn and machine noise hits all alike. Reported: time to the first text chunk and to the
end of the turn, median and p95, and each server's ratio to the peer.

The servers (variants differ from `synapse` by one switch; the median of their round-by-round
difference is that piece's cost):

- `synapse`: defaults (trace tree recorded, debug bodies kept for playground turns, the ledger
  row written, the spending check on with no limit);
- `synapse again`: the same, another process: the noise between two identical servers, the
  smallest difference the per-feature table can tell from nothing;
- `no debug bodies`: `SYNAPSE_DEBUG_PLAYGROUND=false`;
- `no traces`: the same agent with `metadata={'synapse.debug': False}` (no trace tree, no bodies);
- `1 limit`, `4 limits`: spending limits on the agent (calendar/sliding day/month), none reached,
  with the scripted model priced in the registry (so every model call reserves its worst case);
- `10 limits`: those four on the agent and three each on the turn's tenant and user (the turn is
  sent with `tenant` and `actor`, so it also carries a scope), none reached;
- `REF` (with `--against REF`): `synapse serve` of another commit, from a git worktree with its
  `src` first on `PYTHONPATH` in this environment (its dependencies must match this one's).

    python bench/bench_peer.py                       # 40 turns each
    python bench/bench_peer.py --runs 100 --against 64aba83
    python bench/bench_peer.py --only peer,synapse   # just the ratio
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from against import Checkout, checkout
from results import Result, percentile, write_json
from serving import free_port, wait_until_up

AGENT_SOURCE = '''
import json
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

async def _stream(messages, info: AgentInfo):
    if not any(getattr(p, 'part_kind', '') == 'tool-return' for m in messages for p in m.parts):
        yield {0: DeltaToolCall(name='search_products', json_args=json.dumps({'query': 'headphones'}),
                                tool_call_id='c1')}
        return
    for word in 'I found the Sony WH-1000 and the AirPods Max for you.'.split():
        yield word + ' '

def _once(messages, info):
    return ModelResponse(parts=[TextPart('ok')])

def search_products(query: str) -> list[dict]:
    """Search the catalogue."""
    return [{'id': 42, 'name': 'Sony WH-1000'}, {'id': 87, 'name': 'AirPods Max'}]

def _agent(name, **extra):
    agent = Agent(FunctionModel(_once, stream_function=_stream, model_name='scripted'), name=name,
                  instructions='You are the headphone shop assistant.', **extra)
    agent.tool_plain(search_products)
    return agent

shop = _agent('shop')
shop_untraced = _agent('shop_untraced', metadata={'synapse.debug': False})
'''
PEER_SOURCE = """
import sys, uvicorn
from starlette.responses import JSONResponse
from starlette.routing import Route
from agents.shop import shop
app = shop.to_web(html_source='<html></html>')
app.router.routes.append(Route('/api/health', lambda request: JSONResponse({'status': 'ok'})))
uvicorn.run(app, host='127.0.0.1', port=int(sys.argv[1]), log_level='warning')
"""
PROMPT = 'Any wireless headphones?'
MODEL_CALLS = 2
"""Model requests in one turn of the agent (the tool call, then the answer)."""
PERIODS = ('calendar_day', 'calendar_month', 'sliding_day', 'sliding_month')
PRICE = {'input_per_mtok': '1', 'output_per_mtok': '2'}
"""The scripted model's registry price on the servers with limits (a call with no price reserves nothing)."""
TENANT = 'org:bench'
ACTOR = 'user:bench'


@dataclass
class Server:
    """One server in the rotation: how to start it and how to send it a turn."""

    name: str
    agent: str = 'shop'
    env: dict[str, str] = field(default_factory=dict)
    limits: int = 0
    scoped: bool = False
    """Send the turn with a tenant and an actor (the limits beyond four are on those)."""
    source: Checkout | None = None
    peer: bool = False
    url: str = ''
    slug: str = ''
    process: subprocess.Popen[bytes] | None = None
    samples: list[tuple[float, float]] = field(default_factory=list)


def servers(against: Checkout | None) -> list[Server]:
    """The rotation: the peer, Synapse, each switch, and the other commit."""
    rotation = [
        Server('peer', peer=True),
        Server('synapse'),
        Server('synapse again'),
        Server('no debug bodies', env={'SYNAPSE_DEBUG_PLAYGROUND': 'false'}),
        Server('no traces', agent='shop_untraced'),
        Server('1 limit', limits=1),
        Server('4 limits', limits=4),
        Server('10 limits', limits=10, scoped=True),
        Server('privacy', env={'SYNAPSE_PRIVACY_ENABLED': 'true'}),
    ]
    if against is not None:
        rotation.append(Server(against.ref, source=against))
    return rotation


def start(server: Server, project: Path, home: Path) -> None:
    """Start `server` (its own SQLite home) and wait until it answers."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.endswith('_API_KEY')}
    env |= {'SYNAPSE_HOME': str(home), 'PYTHONUNBUFFERED': '1', **server.env}
    if server.source is not None:
        env['PYTHONPATH'] = os.pathsep.join(filter(None, [str(server.source.src), env.get('PYTHONPATH')]))
    command = ['-c', PEER_SOURCE, str(port)] if server.peer else ['-m', 'synapse_agents', 'serve', 'agents']
    if not server.peer:
        command += ['--host', '127.0.0.1', '--port', str(port)]
    log = home.with_suffix('.log')
    home.parent.mkdir(parents=True, exist_ok=True)
    with log.open('wb') as output:
        server.process = subprocess.Popen(
            [sys.executable, *command], cwd=project, env=env, stdout=output, stderr=subprocess.STDOUT
        )
    server.url = wait_until_up(server.process, f'http://127.0.0.1:{port}', log=log, timeout=60)


async def prepare(client: httpx.AsyncClient, server: Server) -> None:
    """Find the agent's slug and add the server's limits (on the agent, none ever reached)."""
    if server.peer:
        return
    listed = (await client.get(f'{server.url}/api/agents')).json()
    agents = listed if isinstance(listed, list) else next(v for v in listed.values() if isinstance(v, list))
    server.slug = next(a['slug'] for a in agents if a.get('name') == server.agent)
    limits = [
        *(('agent', server.slug, period) for period in PERIODS),
        *(('tenant', TENANT, period) for period in PERIODS[:3]),
        *(('user', ACTOR, period) for period in PERIODS[:3]),
    ]
    if server.limits:  # priced, so each model call reserves its worst case against the limits
        # A registry provider named as pydantic-ai names the FunctionModel's system; never called (the
        # agent keeps its own model), it only lets the registry hold the scripted model's price.
        provider = {'key': 'function', 'kind': 'openai-compatible', 'base_url': 'http://127.0.0.1:9/v1'}
        (await client.post(f'{server.url}/api/registry/providers', json=provider)).raise_for_status()
        model = {'provider_key': 'function', 'name': 'scripted', 'prices': [PRICE]}
        (await client.post(f'{server.url}/api/registry/models', json=model)).raise_for_status()
    for scope, scope_id, period in limits[: server.limits]:
        body = {'scope': scope, 'scope_id': scope_id, 'period': period, 'amount': '1000000'}
        response = await client.post(f'{server.url}/api/limits', json=body)
        response.raise_for_status()


async def turn(client: httpx.AsyncClient, server: Server) -> tuple[float, float]:
    """Seconds to the first text chunk and to the end of one turn."""
    if server.peer:
        message = {'id': uuid.uuid4().hex, 'role': 'user', 'parts': [{'type': 'text', 'text': PROMPT}]}
        body = {'trigger': 'submit-message', 'id': uuid.uuid4().hex, 'messages': [message]}
        request = client.stream('POST', f'{server.url}/api/chat', json=body)
    else:
        path = f'{server.url}/api/agents/{server.slug}/chat'
        fields = [('message', (None, PROMPT))]
        if server.scoped:
            fields += [('tenant', (None, TENANT)), ('actor', (None, ACTOR))]
        request = client.stream('POST', path, files=fields)
    started = time.perf_counter()
    first = None
    async with request as response:
        response.raise_for_status()
        async for line in response.aiter_lines():
            if first is None and '"text-delta"' in line:
                first = time.perf_counter()
    end = time.perf_counter()
    return (first or end) - started, end - started


async def measure(rotation: list[Server], runs: int, warmup: int, pause: float) -> None:
    order = random.Random(29)
    async with httpx.AsyncClient(timeout=60) as client:
        for server in rotation:
            await prepare(client, server)
        for index in range(runs + warmup):
            for server in order.sample(rotation, len(rotation)):
                await asyncio.sleep(pause)
                sample = await turn(client, server)
                if index >= warmup:
                    server.samples.append(sample)


def median_ms(server: Server, which: int) -> float:
    return statistics.median(s[which] for s in server.samples) * 1000


def report(rotation: list[Server], runs: int) -> list[Result]:
    """Print the ratio table and the per-feature table; the results for `run_all.py`."""
    results: list[Result] = []
    peer = next((s for s in rotation if s.peer), None)
    print(f'\n{"server":<18} {"first chunk p50/p95 ms":>24} {"turn p50/p95 ms":>20} {"/ peer":>16}')
    for server in rotation:
        firsts = [s[0] * 1000 for s in server.samples]
        turns = [s[1] * 1000 for s in server.samples]
        ratio = ''
        if peer is not None and not server.peer:
            first = median_ms(server, 0) / median_ms(peer, 0)
            ratio = f'{first:.2f}x {median_ms(server, 1) / median_ms(peer, 1):.2f}x'
        print(
            f'{server.name:<18} {statistics.median(firsts):>11.1f} / {percentile(firsts, 0.95):>8.1f}'
            f' {statistics.median(turns):>9.1f} / {percentile(turns, 0.95):>8.1f} {ratio:>16}'
        )
        results.append(Result.of('Against the peer', f'{server.name}: first text chunk', firsts))
        results.append(Result.of('Against the peer', f'{server.name}: whole turn', turns))
    for server in rotation:
        if peer is not None and not server.peer:
            for which, label in ((0, 'first text chunk'), (1, 'whole turn')):
                target = '<= 1.05x the peer' if server.name == 'synapse' else ''
                value = median_ms(server, which) / median_ms(peer, which)
                passed = value <= 1.05 if target else None
                name = f'{server.name} / peer: {label}'
                results.append(Result('Against the peer', name, value, unit='x', samples=runs, target=target,
                                      passed=passed))  # fmt: skip
    results += features(rotation, runs)
    return results


NO_SWITCH = (
    ('recorder (messages, tool rows, ledger row)', 'no switch: every Synapse turn records'),
    ('spending check, no limit', 'no switch: every turn runs the Spending capability'),
    ('approvals check', 'no switch; read only on a continued turn (these are first turns)'),
    ('deps', 'no switch; this agent has no deps, so none are built'),
    ('model choice', 'no switch; the agent keeps its own model here'),
    ('sub-agent override', 'no switch; the turn names no sub-agent override'),
    (
        'running spend totals (ledger triggers)',
        'no switch; on priced rows only (the limit servers): a priced ledger row adds 0.10 ms '
        '(SQLite) / 0.05 ms (PostgreSQL) to its commit, measured apart (docs/accounting.md)',
    ),
)


def paired_ms(base: Server, other: Server, which: int) -> float:
    """The median of `other - base` taken round by round (the two turns of a round ran moments
    apart, so slow spells of the machine cancel out), in ms."""
    return statistics.median(
        (o[which] - b[which]) * 1000 for b, o in zip(base.samples, other.samples, strict=True)
    )


def features(rotation: list[Server], runs: int) -> list[Result]:
    """What each piece adds: the default's time minus the time with that piece off (or the limit
    variant's minus the default's), the median of the differences round by round, per turn and per
    model call."""
    by_name = {s.name: s for s in rotation}
    base = by_name.get('synapse')
    if base is None:
        return []
    measured = [
        ('nothing (a second identical server: the noise)', 'synapse again', 1),
        ('traces (the trace tree)', 'no traces', -1),
        ('debug bodies (playground)', 'no debug bodies', -1),
        ('spending, 1 limit', '1 limit', 1),
        ('spending, 4 limits', '4 limits', 1),
        ('spending, 10 limits (and a scope)', '10 limits', 1),
        ('privacy (PII redaction on)', 'privacy', 1),
    ]
    results: list[Result] = []
    print(f'\n{"piece":<44} {"first chunk ms":>15} {"turn ms":>9} {"per call ms":>12}')
    for piece, name, sign in measured:
        other = by_name.get(name)
        if other is None:
            continue
        first = paired_ms(base, other, 0) * sign
        whole = paired_ms(base, other, 1) * sign
        print(f'{piece:<44} {first:>+15.2f} {whole:>+9.2f} {whole / MODEL_CALLS:>+12.2f}')
        note = f'measured as `{name}` against `synapse`; per model call {whole / MODEL_CALLS:+.2f} ms'
        results.append(Result('Per feature', f'{piece}: per turn', whole, samples=runs, note=note))
        results.append(Result('Per feature', f'{piece}: before the first chunk', first, samples=runs))
    for piece, why in NO_SWITCH:
        print(f'{piece:<44} {why}')
    return results


async def main_async(args: argparse.Namespace) -> list[Result]:
    work = Path(tempfile.mkdtemp(prefix='synapse-peer-'))
    project = work / 'project'
    (project / 'agents').mkdir(parents=True)
    (project / 'agents' / '__init__.py').write_text('')
    (project / 'agents' / 'shop.py').write_text(AGENT_SOURCE)
    against = checkout(args.against, work / 'against') if args.against else None
    rotation = servers(against)
    if args.only:
        rotation = [s for s in rotation if s.name in args.only.split(',') or s.source is not None]
    try:
        for index, server in enumerate(rotation):
            start(server, project, work / 'homes' / f'server{index}')
        await measure(rotation, args.runs, args.warmup, args.pause)
    finally:
        for server in rotation:
            if server.process is not None:
                server.process.terminate()
                try:
                    server.process.wait(10)
                except subprocess.TimeoutExpired:
                    server.process.kill()
        if against is not None:
            against.remove()
        shutil.rmtree(work, ignore_errors=True)
    print(f'{args.runs} turns per server after {args.warmup} warm-up rounds, interleaved; '
          f'load average {os.getloadavg()[0]:.2f}')  # fmt: skip
    return report(rotation, args.runs)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument('--runs', type=int, default=40, help='turns per server (default 40)')
    parser.add_argument('--warmup', type=int, default=5)
    parser.add_argument('--pause', type=float, default=0.05, help='seconds between two turns (default 0.05)')
    parser.add_argument('--against', help='also serve this commit (a git ref), side by side')
    parser.add_argument('--only', help='comma-separated server names (peer,synapse,...)')
    parser.add_argument('--json', help='write the results here (bench/results.py)')
    args = parser.parse_args()
    write_json(args.json, asyncio.run(main_async(args)))


if __name__ == '__main__':
    main()
