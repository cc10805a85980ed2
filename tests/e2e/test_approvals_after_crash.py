"""Decisions claimed by a server that dies: the calls wait again once a sweep finds the claim dead.

A real `synapse serve` pauses on a call that needs approval. Then either the server is killed with
SIGKILL while the resumed turn runs the approved tool, or a process takes the decisions with the
store's own claim and dies before any turn resumes the run. After a restart the call waits again
(a new message is refused with `approval_pending`), and deciding again completes the turn.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from chat_helpers import decode, iter_chunks

pytestmark = pytest.mark.slow

SLUG = 'agents.ops.ops'

AGENT_MODULE = """
import asyncio
import pathlib

from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.messages import ToolReturnPart
from pydantic_ai.models.function import DeltaToolCall, FunctionModel

MARKS = pathlib.Path(__file__).resolve().parent.parent / 'marks'


async def stream(messages, info):
    returns = [p for p in messages[-1].parts if isinstance(p, ToolReturnPart)]
    if returns:
        yield 'Done: ' + '; '.join(str(p.content) for p in returns)
        return
    yield {0: DeltaToolCall(name='wipe', json_args='{"path": "a.txt"}', tool_call_id='call_w')}


ops = Agent(
    FunctionModel(stream_function=stream, model_name='ops'),
    name='ops',
    output_type=[str, DeferredToolRequests],
)


@ops.tool_plain(requires_approval=True)
async def wipe(path: str) -> str:
    MARKS.mkdir(exist_ok=True)
    with (MARKS / 'wipe-runs').open('a') as runs:
        runs.write('run\\n')
    while not (MARKS / 'release').exists():
        await asyncio.sleep(0.05)
    return f'wiped {path}'
"""

CLAIM_AND_DIE = """
import os, signal, sys
from pathlib import Path

from synapse_agents.store import Store
from synapse_agents.conversations.decisions import Claim, awaiting_calls, claim_decisions
from synapse_agents.store.engine import writer
from synapse_agents.store.instances import current, heartbeat

url, conversation_id = sys.argv[1], sys.argv[2]
store = Store.open(url, Path('/nonexistent'))
(call,) = awaiting_calls(store, conversation_id)
with writer(store.engine).begin() as connection:
    heartbeat(connection, current())
    assert claim_decisions([Claim(call.row_id, 'approved')])(connection)
print('claimed', flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""

APPROVE = '{"call_w": {"approved": true}}'


@pytest.fixture
def project(isolated_env: Path) -> Path:
    (isolated_env / 'agents').mkdir()
    (isolated_env / 'agents' / 'ops.py').write_text(AGENT_MODULE)
    return isolated_env


@pytest.fixture
def database(dialect: str, project: Path, request: pytest.FixtureRequest) -> str:
    if dialect == 'sqlite':
        return f'sqlite:///{project.parent / "home" / "synapse.db"}'
    from synapse_agents.store import Store, upgrade

    url: str = request.getfixturevalue('empty_postgres_database')
    store = Store.open(url, project / 'unused')
    upgrade(store.engine)
    store.close()
    return url


def serve(live_server: Any, dialect: str, database: str) -> Any:
    return live_server(['agents'], env={} if dialect == 'sqlite' else {'SYNAPSE_DATABASE_URL': database})


def pause(url: str) -> str:
    response = httpx.post(f'{url}/api/agents/{SLUG}/chat', data={'message': 'clean up'}, timeout=30)
    assert response.status_code == 200, response.text
    conversation_id: str = decode(response.text)[0]['messageMetadata']['conversation_id']
    assert paused_status(url, conversation_id) == 'awaiting'
    return conversation_id


def paused_status(url: str, conversation_id: str) -> str:
    """The stored status of the paused call (on the first answer of the conversation)."""
    response = httpx.get(f'{url}/api/conversations/{conversation_id}', timeout=10)
    assert response.status_code == 200, response.text
    answer = response.json()['messages'][1]
    (tool,) = [part['tool'] for part in answer['parts'] if part['type'] == 'tool']
    status: str = tool['status']
    return status


def resumed_tool_status(url: str, conversation_id: str) -> str | None:
    """The stored status of the approved call's execution in the resumed turn (None before it is stored)."""
    response = httpx.get(f'{url}/api/conversations/{conversation_id}', timeout=10)
    messages = response.json()['messages'] if response.status_code == 200 else []
    if len(messages) < 4:
        return None
    tools = [part['tool'] for part in messages[3]['parts'] if part['type'] == 'tool']
    return str(tools[0]['status']) if tools else None


def decide(url: str, conversation_id: str) -> httpx.Response:
    data = {'conversation_id': conversation_id, 'decisions': APPROVE}
    return httpx.post(f'{url}/api/agents/{SLUG}/chat', data=data, timeout=30)


def assert_waits_again_then_completes(url: str, conversation_id: str, project: Path) -> None:
    assert paused_status(url, conversation_id) == 'awaiting'
    refused = httpx.post(
        f'{url}/api/agents/{SLUG}/chat',
        data={'conversation_id': conversation_id, 'message': 'hello?'},
        timeout=30,
    )
    assert refused.status_code == 409, refused.text
    assert refused.json()['error']['code'] == 'approval_pending'
    (project / 'marks').mkdir(exist_ok=True)
    (project / 'marks' / 'release').touch()
    resumed = decide(url, conversation_id)
    assert resumed.status_code == 200, resumed.text
    text = ''.join(chunk.get('delta', '') for chunk in decode(resumed.text))
    assert 'Done: wiped a.txt' in text
    assert paused_status(url, conversation_id) == 'approved'


def test_a_server_killed_while_the_resumed_turn_runs_gives_the_decisions_back(
    live_server: Any, project: Path, dialect: str, database: str
) -> None:
    server = serve(live_server, dialect, database)
    conversation_id = pause(server.url)
    data = {'conversation_id': conversation_id, 'decisions': APPROVE}
    with httpx.stream('POST', f'{server.url}/api/agents/{SLUG}/chat', data=data, timeout=30) as response:
        assert response.status_code == 200
        chunks = iter_chunks(response)  # kept open: a closed stream would cancel the run
        for _received, chunk in chunks:
            if chunk['type'] == 'tool-input-available':
                break
        for _ in range(200):
            if resumed_tool_status(server.url, conversation_id) == 'pending':
                break
            time.sleep(0.05)
        assert (project / 'marks' / 'wipe-runs').exists(), 'the approved tool never started'
        assert resumed_tool_status(server.url, conversation_id) == 'pending', httpx.get(
            f'{server.url}/api/conversations/{conversation_id}'
        ).text
        server.process.kill()  # SIGKILL: no shutdown code runs
        server.process.wait(10)

    restarted = serve(live_server, dialect, database)
    assert_waits_again_then_completes(restarted.url, conversation_id, project)
    assert 'gave back 1 tool call decisions' in restarted.output()
    # Run once when the server died, once when approved again.
    assert (project / 'marks' / 'wipe-runs').read_text() == 'run\nrun\n'


def test_decisions_claimed_by_a_process_that_died_before_the_turn_began_wait_again(
    live_server: Any, project: Path, dialect: str, database: str
) -> None:
    server = serve(live_server, dialect, database)
    conversation_id = pause(server.url)
    server.stop()
    died = subprocess.run(
        [sys.executable, '-c', textwrap.dedent(CLAIM_AND_DIE), database, conversation_id],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert died.returncode == -9 and 'claimed' in died.stdout, died.stderr

    restarted = serve(live_server, dialect, database)
    assert_waits_again_then_completes(restarted.url, conversation_id, project)
    assert 'gave back 1 tool call decisions' in restarted.output()
    assert (project / 'marks' / 'wipe-runs').read_text() == 'run\n'
