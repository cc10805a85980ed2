"""Streaming through a real `synapse serve` (uvicorn) over real HTTP: chunks arrive as produced.

The agent's model writes the wall-clock time at which it produced each text chunk into the chunk;
the client compares it with the time the chunk arrived.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from chat_helpers import iter_chunks

pytestmark = pytest.mark.slow

AGENT_MODULE = """
import asyncio, time
from pydantic_ai import Agent
from pydantic_ai.models.function import FunctionModel

async def stream(messages, info):
    await asyncio.sleep(0.2)
    for _ in range(10):
        yield f"<{time.time():.6f}>"
        await asyncio.sleep(0.4)

slow_agent = Agent(FunctionModel(stream_function=stream, model_name="slow"), name="slow_agent")
"""


def _project(root: Path) -> None:
    (root / 'agents').mkdir()
    (root / 'agents' / 'slow.py').write_text(AGENT_MODULE)


def _slug(root: Path) -> str:
    from synapse_agents.discovery.slugs import module_slug

    return module_slug('agents.slow', 'slow_agent')


def _read_events(response: httpx.Response) -> list[tuple[float, dict[str, Any]]]:
    return [(received, chunk) for received, chunk in iter_chunks(response) if chunk['type'] != '[DONE]']


def test_each_chunk_reaches_the_client_as_it_is_produced(live_server: Any, isolated_env: Path) -> None:
    _project(isolated_env)
    slug = _slug(isolated_env)
    server = live_server(['agents'])
    started = time.time()
    with httpx.stream(
        'POST', f'{server.url}/api/agents/{slug}/chat', data={'message': 'go'}, timeout=30
    ) as response:
        assert response.status_code == 200
        events = _read_events(response)
    total = time.time() - started
    deltas = [
        (received, float(e['delta'].strip('<>'))) for received, e in events if e['type'] == 'text-delta'
    ]
    assert len(deltas) == 10 and total >= 3.8
    lags = sorted(received - produced for received, produced in deltas)
    assert lags[0] >= -0.01  # same clock: nothing arrives before it is produced
    first_lag = deltas[0][0] - deltas[0][1]
    assert first_lag < 0.1, f'first text chunk arrived {first_lag * 1000:.0f} ms after it was produced'
    assert lags[-1] < 0.1, f'a chunk arrived {lags[-1] * 1000:.0f} ms late: {lags}'
    assert events[0][0] - started < 1.0  # `start` is not held back until the model answers


def test_a_client_that_disconnects_leaves_an_interrupted_turn(live_server: Any, isolated_env: Path) -> None:
    _project(isolated_env)
    slug = _slug(isolated_env)
    server = live_server(['agents'])
    conversation_id = None
    with httpx.stream(
        'POST', f'{server.url}/api/agents/{slug}/chat', data={'message': 'go'}, timeout=30
    ) as r:
        for _received, event in _read_events_until_text(r):
            if event['type'] == 'start':
                conversation_id = event['messageMetadata']['conversation_id']
    assert conversation_id is not None
    deadline = time.time() + 10
    status = None
    while time.time() < deadline:
        thread = httpx.get(f'{server.url}/api/conversations/{conversation_id}').json()
        assistant = [m for m in thread.get('messages', []) if m['role'] == 'assistant']
        status = assistant[0]['status'] if assistant else None
        if status == 'interrupted':
            break
        time.sleep(0.1)
    assert status == 'interrupted'
    assert assistant[0]['content'].startswith('<')


def _read_events_until_text(response: httpx.Response) -> list[tuple[float, dict[str, Any]]]:
    events: list[tuple[float, dict[str, Any]]] = []
    for received, chunk in iter_chunks(response):
        events.append((received, chunk))
        if chunk['type'] == 'text-delta':
            break
    return events


FAST_MODULE = """
import asyncio
from pydantic_ai import Agent
from pydantic_ai.models.function import FunctionModel

async def stream(messages, info):
    for word in ["one ", "two ", "three "]:
        await asyncio.sleep(0.02)
        yield word

fast_agent = Agent(FunctionModel(stream_function=stream, model_name="fast"), name="fast_agent")

@fast_agent.tool_plain
def unused() -> str:
    return "never called"
"""


def test_concurrent_streams_lose_no_rows(live_server: Any, isolated_env: Path) -> None:
    """30 streams at once against one server on SQLite: no errors, every row in place."""
    from concurrent.futures import ThreadPoolExecutor

    from synapse_agents.discovery.slugs import module_slug

    (isolated_env / 'agents').mkdir()
    (isolated_env / 'agents' / 'fast.py').write_text(FAST_MODULE)
    server = live_server(['agents'])
    slug = module_slug('agents.fast', 'fast_agent')

    def one(_index: int) -> str:
        response = httpx.post(f'{server.url}/api/agents/{slug}/chat', data={'message': 'go'}, timeout=30)
        assert response.status_code == 200
        assert '"type":"error"' not in response.text
        first = json.loads(response.text.split('\n\n')[0].removeprefix('data: '))
        return str(first['messageMetadata']['conversation_id'])

    # Threads, not asyncio: the streams overlap on the server all the same.
    with ThreadPoolExecutor(max_workers=30) as pool:
        conversations = list(pool.map(one, range(30)))
    listing = httpx.get(f'{server.url}/api/conversations', params={'page': 1}).json()
    assert listing['total'] == 30
    for conversation_id in conversations:
        thread = httpx.get(f'{server.url}/api/conversations/{conversation_id}').json()
        assert [(m['role'], m['status']) for m in thread['messages']] == [
            ('user', 'complete'),
            ('assistant', 'complete'),
        ]
        assert thread['messages'][1]['content'] == 'one two three '
    assert 'database is locked' not in server.output()
