"""A running task's log is live: each step (the model's answer, a tool call starting) is in the
store, and so in the task detail the API serves, within a second of happening, while the run is
still going; not only when it ends or at the next heartbeat.

The agent is a real pydantic-ai agent found by discovery, on a `FunctionModel`; its tool waits on an
event the test sets, so the test looks at the log while the run is held inside the tool.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from fixtures.projects import isolated_imports, unique_name, write_files
from synapse_agents.discovery import Catalog
from synapse_agents.runtime.root import SynapseRuntime
from synapse_agents.settings import load_settings
from synapse_agents.store import Store
from synapse_agents.tasks import queue, runner, standing_store
from synapse_agents.tasks.standing_store import StandingInput

pytestmark = pytest.mark.anyio

WORKER = 'test-host:1:serve'

AGENTS = """
import asyncio
from pydantic_ai import Agent
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

entered = asyncio.Event()
gate = asyncio.Event()


def _returned(messages):
    return any(getattr(p, 'part_kind', '') == 'tool-return' for m in messages for p in m.parts)


async def _stream(messages, info: AgentInfo):
    if not _returned(messages):
        yield {0: DeltaToolCall(name='hold', json_args='{"reason": "audit"}', tool_call_id='call_hold')}
        return
    yield 'released'


holder = Agent(FunctionModel(stream_function=_stream, model_name='holder'), name='holder')


@holder.tool_plain
async def hold(reason: str) -> str:
    entered.set()
    await gate.wait()
    return 'let go'
"""


@pytest.fixture
def module(isolated_env: Path, tmp_path: Path) -> Iterator[str]:
    name = unique_name('live_log_agents')
    write_files(isolated_env, {f'{name}.py': AGENTS})
    with isolated_imports(tmp_path):
        yield name


@pytest.fixture
def runtime(store: Store, database_url: str, module: str, isolated_env: Path) -> Iterator[SynapseRuntime]:
    """A root whose heartbeat is far away (30 s), so only the steps themselves can write the log."""
    loaded = load_settings({'database_url': database_url, 'task_heartbeat_seconds': 30})
    root = SynapseRuntime(
        loaded=loaded, store=store, targets=[module], catalog=Catalog([module], isolated_env)
    )
    yield root
    if root.chat is not None:
        root.chat.close()


async def until(condition: Callable[[], Any], seconds: float) -> Any:
    """The first truthy `condition()` (looked at every 20 ms); fails after `seconds`."""
    with anyio.fail_after(seconds):
        while True:
            if found := await anyio.to_thread.run_sync(condition):
                return found
            await anyio.sleep(0.02)


async def test_each_step_is_in_the_task_detail_within_a_second_while_the_run_waits(
    runtime: SynapseRuntime, store: Store, module: str
) -> None:
    data = StandingInput(name='auditor', agent=f'{module}.holder', instruction='Audit it.')
    task_id = queue.enqueue_manual(store, standing_store.create(store, data).id)
    result: dict[str, Any] = {}

    async def start() -> None:
        result['status'] = await runner.run_task(runtime, task_id, WORKER)

    def kinds() -> list[str]:
        _task, logs = queue.get_task(store, task_id)
        return [log.kind for log in logs]

    async with anyio.create_task_group() as group:
        group.start_soon(start)
        # The catalog imports the module as the run starts: wait until it is fully imported.
        agents = await until(lambda: hasattr(sys.modules.get(module), 'hold') and sys.modules[module], 20)
        await until(lambda: agents.entered.is_set(), 20)  # the tool runs and waits
        entered = time.monotonic()
        try:
            seen = await until(lambda: 'tool_call' in kinds() and kinds(), 1.0)
        except TimeoutError:
            pytest.fail(f'a second after the tool started the log held only {kinds()}')
        finally:
            agents.gate.set()
        waited = time.monotonic() - entered
        task, _logs = queue.get_task(store, task_id)
        assert task.status == 'running', (task.status, seen)
        assert seen[:1] == ['started'] and 'model_response' in seen and 'tool_result' not in seen, seen
        assert waited < 1.0
    await runtime.chat_service().writes.drain()
    task, logs = queue.get_task(store, task_id)
    assert result['status'] == 'succeeded' == task.status and task.output == 'released'
    found = [log.kind for log in logs]
    assert found[: len(seen)] == seen, (found, seen)
    assert 'tool_result' in found and found[-2:] == ['output', 'finished'], found
    assert [log.seq for log in logs] == list(range(1, len(logs) + 1))
