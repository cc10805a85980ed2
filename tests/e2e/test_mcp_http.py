"""`synapse mcp --http`: the MCP server as streamable HTTP at /mcp, driven by the `mcp` SDK's own
client, behind the dashboard's access rules: this machine only by default (a request naming another
host is refused), a token anywhere else (none: 401; the right one: served)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from conftest import free_port

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

TOKEN = 'a-token-long-enough-for-synapse'
AGENT = 'synapse_agents.demo.agents.support-agent'


def started(project: Path, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, '-m', 'synapse_agents', 'mcp', '--demo', '--http', '--port', str(port)],
        cwd=project,
        env={**os.environ, **(env or {}), 'PYTHONUNBUFFERED': '1'},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f'http://127.0.0.1:{port}/mcp'
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read() if process.stderr else ''
        try:
            httpx.get(url, timeout=1)
            return process, url
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise AssertionError('synapse mcp --http did not answer')


@pytest.fixture
def servers() -> Iterator[list[subprocess.Popen[str]]]:
    running: list[subprocess.Popen[str]] = []
    yield running
    for process in running:
        process.terminate()
        process.wait(10)


async def test_local_mode_serves_this_machine_only(
    isolated_env: Path, servers: list[subprocess.Popen[str]]
) -> None:
    process, url = started(isolated_env)
    servers.append(process)
    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        assert 'run_agent' in {tool.name for tool in (await session.list_tools()).tools}
        result = await session.call_tool('run_agent', {'agent': AGENT, 'message': 'Where is order A-1001?'})
        assert not result.is_error, result.content
        ran = json.loads(result.content[0].text)  # type: ignore[union-attr]
        assert [call['name'] for call in ran['tool_calls']] == ['lookup_order']
    # DNS rebinding: a page on another site reaching this port names its own host.
    port = url.split(':')[2].split('/')[0]
    async with httpx.AsyncClient() as plain:
        rebound = await plain.post(url, headers={'Host': f'evil.example:{port}'}, json={})
    assert rebound.status_code == 403 and 'not allowed' in rebound.json()['error']['message']


async def test_elsewhere_a_token_is_needed(isolated_env: Path, servers: list[subprocess.Popen[str]]) -> None:
    process, url = started(isolated_env, {'SYNAPSE_ENV': 'staging', 'SYNAPSE_TOKEN': TOKEN})
    servers.append(process)
    async with httpx.AsyncClient() as plain:
        assert (await plain.post(url, json={})).status_code == 401
    client = httpx2.AsyncClient(headers={'Authorization': f'Bearer {TOKEN}'}, timeout=30)
    async with (
        client,
        streamable_http_client(url, http_client=client) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        listed = await session.call_tool('list_agents', {})
        assert not listed.is_error and AGENT in listed.content[0].text  # type: ignore[union-attr]
