"""What pydantic-ai itself charges for the ways Synapse records a turn: the floors under the peer ratio.

The peer's agent (a scripted `FunctionModel`: one tool call, then 12 streamed words; no network) is
run in this process with `run_stream_events`, round after round, each variant once per round in
the same order, and the CPU time of each turn (`time.thread_time`) is compared with the plain run:

- `instrumented`: pydantic-ai's OpenTelemetry instrumentation on a bare `TracerProvider` (no span
  processor, nothing exported or written): what opening and ending the spans costs by itself, the
  floor of a trace tree built from those spans;
- `instrumented, no contents`: the same with `include_content=False` (what Synapse uses when a turn
  keeps no bodies and exports nothing);
- `one capability`, `two capabilities`: capabilities whose hooks do nothing (the model-request and
  tool hooks the recorder and `Spending` implement): what pydantic-ai's capability machinery costs
  per turn before the hooks do any work.

    python bench/bench_floors.py --runs 300
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from pydantic_ai import Agent
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.models.instrumented import InstrumentationSettings

from bench_peer import AGENT_SOURCE
from results import Result, write_json


def peer_agent() -> Agent[None, str]:
    """The agent `bench_peer.py` serves (its source, run here)."""
    namespace: dict[str, Any] = {}
    exec(compile(AGENT_SOURCE, 'bench_peer.AGENT_SOURCE', 'exec'), namespace)
    agent: Agent[None, str] = namespace['shop']
    return agent


class RequestHooks(AbstractCapability[Any]):
    """The recorder's hooks, doing nothing."""

    async def before_model_request(self, ctx: Any, request_context: Any) -> Any:
        return request_context

    async def after_model_request(self, ctx: Any, *, request_context: Any, response: Any) -> Any:
        return response

    async def wrap_tool_execute(self, ctx: Any, *, call: Any, tool_def: Any, args: Any, handler: Any) -> Any:
        return await handler(args)


class SpendingHooks(AbstractCapability[Any]):
    """`Spending`'s hooks, doing nothing."""

    async def prepare_model_request(self, ctx: Any, request_context: Any) -> Any:
        return request_context

    async def wrap_model_request(self, ctx: Any, *, request_context: Any, handler: Any) -> Any:
        return await handler(request_context)


async def turn(agent: Agent[None, str], capabilities: list[Any]) -> float:
    started = time.thread_time()
    async with agent.run_stream_events('Any wireless headphones?', capabilities=capabilities) as events:
        async for _ in events:
            continue  # every event consumed, as a server's stream would
    return time.thread_time() - started


async def main_async(args: argparse.Namespace) -> None:
    agent = peer_agent()
    provider = TracerProvider()
    lean = InstrumentationSettings(tracer_provider=provider, include_content=False)
    variants: dict[str, tuple[Any, list[Any]]] = {
        'plain run (floor)': (None, []),
        'instrumented': (InstrumentationSettings(tracer_provider=provider, include_binary_content=False), []),
        'instrumented, no contents': (lean, []),
        'one capability': (None, [RequestHooks()]),
        'two capabilities': (None, [RequestHooks(), SpendingHooks()]),
    }  # fmt: skip
    times: dict[str, list[float]] = {name: [] for name in variants}
    for index in range(args.runs + args.warmup):
        for name, (instrument, capabilities) in variants.items():
            agent.instrument = instrument
            spent = await turn(agent, capabilities)
            if index >= args.warmup:
                times[name].append(spent * 1000)
    agent.instrument = None
    floor = statistics.median(times['plain run (floor)'])
    results: list[Result] = []
    print(f'{args.runs} turns each, interleaved; CPU ms per turn (the event loop thread)\n')
    print(f'{"variant":28} {"median":>8} {"added":>8} {"of the floor":>13}')
    for name, values in times.items():
        median = statistics.median(values)
        added = median - floor
        print(f'{name:28} {median:8.3f} {added:+8.3f} {added / floor:+12.0%}')
        results.append(
            Result.of('pydantic-ai floors', name, values, note=f'{added:+.3f} ms over the plain run')
        )
    write_json(args.json, results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--runs', type=int, default=300)
    parser.add_argument('--warmup', type=int, default=30)
    parser.add_argument('--json', default=None)
    asyncio.run(main_async(parser.parse_args()))


if __name__ == '__main__':
    main()
