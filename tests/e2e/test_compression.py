"""Compression through a real `synapse serve`: the dashboard and large JSON answers are gzipped,
a chat stream never is (a compressor would hold its chunks back)."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from synapse_agents.discovery.slugs import module_slug

pytestmark = pytest.mark.slow

AGENT_MODULE = """
import asyncio, time
from pydantic_ai import Agent
from pydantic_ai.models.function import FunctionModel

async def stream(messages, info):
    for _ in range(3):
        yield f"<{time.time():.6f}>" + " padding" * 200
        await asyncio.sleep(0.3)

chatty = Agent(FunctionModel(stream_function=stream, model_name="chatty"), name="chatty",
               instructions="Answer at length. " * 200)
"""
GZIP = {'Accept-Encoding': 'gzip'}


def test_the_dashboard_and_json_are_gzipped_and_streams_are_not(live_server: Any, isolated_env: Path) -> None:
    (isolated_env / 'agents').mkdir()
    (isolated_env / 'agents' / 'chatty.py').write_text(AGENT_MODULE)
    server = live_server(['agents'])
    slug = module_slug('agents.chatty', 'chatty')

    index = httpx.get(f'{server.url}/', headers=GZIP)
    script = re.search(r'src="(/assets/[^"]+\.js)"', index.text)
    assert script, index.text[:500]
    with httpx.stream('GET', server.url + script.group(1), headers=GZIP) as bundle:
        decoded = bundle.read()
        assert bundle.status_code == 200 and bundle.headers['content-encoding'] == 'gzip'
        assert len(decoded) > 3 * bundle.num_bytes_downloaded  # what was sent is a third or less

    info = httpx.get(f'{server.url}/api/agents/{slug}', headers=GZIP)
    assert info.status_code == 200 and info.headers['content-encoding'] == 'gzip'
    assert 'Answer at length.' in info.text

    started = time.time()
    with httpx.stream(
        'POST', f'{server.url}/api/agents/{slug}/chat', data={'message': 'go'}, headers=GZIP, timeout=30
    ) as response:
        assert response.status_code == 200
        assert 'content-encoding' not in response.headers
        assert response.headers['content-type'].startswith('text/event-stream')
        for text in response.iter_text():
            if '"text-delta"' in text:
                produced = float(text.split('<', 1)[1].split('>', 1)[0])
                assert time.time() - produced < 0.1  # the first chunk was not held back
                break
    assert time.time() - started < 5
