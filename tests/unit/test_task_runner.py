"""Running a task: the turn through the chat engine (origin and ledger module `task`), its step log,
failures of tools and models, spending limits, cancelling, unknown agents, and the in-process worker.

The agents are real pydantic-ai agents found by discovery: the demo agents, the scripted
`chat_agents` (tests/chat_agents.py) and a module of this test's own, on `FunctionModel`s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest
from sqlalchemy import select

from chat_helpers import DEMO
from fixtures.projects import isolated_imports, unique_name, write_files
from spend_helpers import ledger_row, seed
from spending_models import add_limit
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.conversations.tables import Message, ToolInvocation
from synapse_agents.discovery import Catalog
from synapse_agents.rules import book
from synapse_agents.runtime.root import DEMO_TARGET, SynapseRuntime
from synapse_agents.settings import Settings, load_settings
from synapse_agents.store import Store
from synapse_agents.tasks import events, queue, runner, standing_store
from synapse_agents.tasks.standing_store import StandingInput
from synapse_agents.tasks.tables import AgentLog, AgentTask
from synapse_agents.tasks.workers import InProcessWorker

pytestmark = pytest.mark.anyio

WORKER = 'test-host:1:serve'
ACME = 'org:acme'

AGENTS = """
import asyncio
from pydantic_ai import Agent
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from synapse_agents.capabilities import Rules


def _returned(messages):
    return any(getattr(p, 'part_kind', '') == 'tool-return' for m in messages for p in m.parts)


async def _wait_stream(messages, info: AgentInfo):
    if not _returned(messages):
        yield {0: DeltaToolCall(name='wait', json_args='{}', tool_call_id='call_wait')}
        return
    yield 'done waiting'


waiter = Agent(FunctionModel(stream_function=_wait_stream, model_name='waiter'), name='waiter')


@waiter.tool_plain
async def wait() -> str:
    await asyncio.sleep(30)
    return 'woke'


async def _nap_stream(messages, info: AgentInfo):
    await asyncio.sleep(0.3)
    yield 'rested'


napper = Agent(FunctionModel(stream_function=_nap_stream, model_name='napper'), name='napper')


async def _instructions_stream(messages, info: AgentInfo):
    yield info.instructions or ''


ruled = Agent(
    FunctionModel(stream_function=_instructions_stream, model_name='ruled'),
    name='ruled',
    instructions='Check the orders.',
    capabilities=[Rules()],
)
"""


@pytest.fixture
def module(isolated_env: Path, tmp_path: Path) -> Iterator[str]:
    """A module of agents in the test's project folder: `waiter` (a 30 s tool) and `napper`."""
    name = unique_name('task_agents')
    write_files(isolated_env, {f'{name}.py': AGENTS})
    with isolated_imports(tmp_path):
        yield name


@pytest.fixture
def make_runtime(
    store: Store, database_url: str, module: str, isolated_env: Path
) -> Iterator[Callable[..., SynapseRuntime]]:
    """Roots around the test's store whose catalog has the demo, `chat_agents` and `module` agents;
    `make_runtime(heartbeat)` sets `task_heartbeat_seconds`."""
    made: list[SynapseRuntime] = []
    targets = ['chat_agents', DEMO_TARGET, module]

    def make(heartbeat: float = 0.2) -> SynapseRuntime:
        loaded = load_settings({'database_url': database_url, 'task_heartbeat_seconds': heartbeat})
        catalog = Catalog(targets, isolated_env)
        made.append(SynapseRuntime(loaded=loaded, store=store, targets=targets, catalog=catalog))
        return made[-1]

    yield make
    for root in made:
        if root.chat is not None:
            root.chat.close()


@pytest.fixture
def runtime(make_runtime: Callable[..., SynapseRuntime]) -> SynapseRuntime:
    return make_runtime()


def a_task(store: Store, agent: str, instruction: str = 'Check order A-1001.', **values: Any) -> str:
    values.setdefault('tenant', ACME)
    data = StandingInput(name='checker', agent=agent, instruction=instruction, **values)
    return queue.enqueue_manual(store, standing_store.create(store, data).id)


async def run(runtime: SynapseRuntime, task_id: str) -> tuple[str | None, AgentTask, list[AgentLog]]:
    """Run the task to its end; its status, its row and its log (the turn's writes committed)."""
    status = await runner.run_task(runtime, task_id, WORKER)
    await runtime.chat_service().writes.drain()
    task, logs = await anyio.to_thread.run_sync(queue.get_task, runtime.store, task_id)
    return status, task, logs


def rows(store: Store, model: Any, **where: Any) -> list[Any]:
    with store.read() as session:
        query = select(model)
        for key, value in where.items():
            query = query.where(getattr(model, key) == value)
        return list(session.scalars(query.order_by(model.id)))


async def until(condition: Callable[[], bool]) -> None:
    """Wait until `condition()` holds (looked at every 50 ms); fails after 20 seconds."""
    with anyio.fail_after(20):
        while True:
            if condition():
                return
            await anyio.sleep(0.05)


def kinds(logs: list[AgentLog]) -> list[str]:
    return [log.kind for log in logs]


def in_order(found: list[str], expected: list[str]) -> bool:
    """Whether `expected` appears in `found` in that order (other steps may come between)."""
    steps = iter(found)
    return all(kind in steps for kind in expected)


# -- a run ----------------------------------------------------------------------------------------


async def test_a_task_run_gets_the_rules_of_its_tenant_and_subject(
    runtime: SynapseRuntime, store: Store, module: str
) -> None:
    book.add(store, book.RuleInput(tenant=ACME, text='Never refund over chat.'))
    book.add(store, book.RuleInput(tenant=ACME, subject='case:9', text='Case 9 is escalated.'))
    book.add(store, book.RuleInput(tenant=ACME, subject='case:8', text='Case 8 only.'))
    book.add(store, book.RuleInput(tenant='org:other', text='Another tenant.'))
    task_id = a_task(store, f'{module}.ruled', subject='case:9')
    status, task, _ = await run(runtime, task_id)
    assert status == 'succeeded'
    (answer,) = rows(store, Message, conversation_id=task.conversation_id, role='assistant')
    heading = Settings().rules_shared_heading
    assert (
        answer.content == f'{heading}\n- Never refund over chat.\n- Case 9 is escalated.\n\nCheck the orders.'
    )


async def test_a_demo_agents_run_is_stored_like_a_chat_with_origin_and_module_task(
    runtime: SynapseRuntime, store: Store
) -> None:
    task_id = a_task(store, DEMO + 'support-agent', subject='case:9')
    status, task, logs = await run(runtime, task_id)
    assert status == 'succeeded' == task.status and task.error is None
    assert isinstance(task.output, str) and task.output
    assert task.worker == WORKER and task.finished_at is not None and task.duration_ms is not None
    assert task.input_tokens > 0 and task.output_tokens > 0
    conversation = ConversationRepository(store).get(task.conversation_id or '')
    assert conversation is not None and conversation.origin == 'task'
    assert conversation.agent_key == DEMO + 'support-agent'
    assert (conversation.tenant_type, conversation.tenant_id) == ('org', 'acme')
    assert (conversation.subject_type, conversation.subject_id) == ('case', '9')
    assert (conversation.actor_type, conversation.actor_id) == ('standing_agent', task.standing_agent_id)
    messages = rows(store, Message, conversation_id=conversation.id)
    assert [(m.role, m.status) for m in messages] == [('user', 'complete'), ('assistant', 'complete')]
    assert messages[0].content == 'Check order A-1001.'
    calls = rows(store, LlmCall, conversation_id=conversation.id)
    assert len(calls) == 2 and {c.module for c in calls} == {'task'}
    assert {c.run_id for c in calls} == {task.run_id}
    assert {(c.tenant, c.user) for c in calls} == {(ACME, f'standing_agent:{task.standing_agent_id}')}
    assert sum(c.input_tokens for c in calls) == task.input_tokens
    assert in_order(
        kinds(logs),
        ['started', 'model_response', 'tool_call', 'tool_result', 'model_response', 'output', 'finished'],
    )
    assert [log.seq for log in logs] == list(range(1, len(logs) + 1))
    assert logs[0].message.startswith(f'Started on worker {WORKER} (run now)')
    assert logs[-1].message.startswith('Succeeded in ')
    (output,) = [log for log in logs if log.kind == 'output']
    assert output.data == {'output': task.output}


async def test_an_events_run_tells_the_agent_the_event_and_its_context(
    runtime: SynapseRuntime, store: Store
) -> None:
    data = StandingInput(
        name='shipper', agent='chat_agents.shop', instruction='Ship it.', events=['order.paid']
    )
    standing = standing_store.create(store, data)
    fired = events.fire(
        store, 'order.paid', tenant=('org', 'acme'), subject=('order', 'A-1'), context={'n': 2}
    )
    (task_id,) = fired.queued
    status, task, logs = await run(runtime, task_id)
    assert status == 'succeeded' and task.output == 'It shipped. '
    (user, _assistant) = rows(store, Message, conversation_id=task.conversation_id)
    assert user.content == 'Ship it.\n\nEvent: order.paid\n\nContext:\n{\n  "n": 2\n}'
    assert logs[0].message == f'Started on worker {WORKER} (event order.paid).'
    tool_steps = [(log.kind, log.data or {}) for log in logs if log.kind in ('tool_call', 'tool_result')]
    assert [(kind, data['tool']) for kind, data in tool_steps] == [
        ('tool_call', 'lookup'),
        ('tool_result', 'lookup'),
    ]
    assert tool_steps[0][1]['arguments'] == {'order_id': 'A-1'}
    assert tool_steps[1][1]['failed'] is False and 'shipped' in tool_steps[1][1]['result']
    (invocation,) = rows(store, ToolInvocation, conversation_id=task.conversation_id)
    assert invocation.status == 'success'
    conversation = ConversationRepository(store).get(task.conversation_id or '')
    assert conversation is not None and conversation.actor_id == standing.id


async def test_every_step_is_logged_however_often_the_heartbeat_flushes(
    make_runtime: Callable[..., SynapseRuntime], store: Store, module: str
) -> None:
    # A heartbeat every few milliseconds flushes the log while the run ends; no step may be lost.
    runtime = make_runtime(heartbeat=0.002)
    for _ in range(10):
        status, _task, logs = await run(runtime, a_task(store, 'chat_agents.shop'))
        assert status == 'succeeded'
        assert kinds(logs).count('model_response') == 2, kinds(logs)
        assert kinds(logs)[-2:] == ['output', 'finished']
        assert [log.seq for log in logs] == list(range(1, len(logs) + 1))


async def test_a_tool_that_raises_is_logged_as_a_failed_tool_result(
    runtime: SynapseRuntime, store: Store
) -> None:
    status, task, logs = await run(runtime, a_task(store, 'chat_agents.boom'))
    assert status == 'failed' == task.status
    assert task.error == 'RuntimeError: inventory down'
    assert in_order(
        kinds(logs), ['started', 'model_response', 'tool_call', 'tool_result', 'error', 'finished']
    )
    (result,) = [log for log in logs if log.kind == 'tool_result']
    assert result.data is not None and result.data['failed'] is True and result.data['tool'] == 'explode'
    assert 'inventory down' in result.message and result.message.startswith('Tool failed explode')
    (invocation,) = rows(store, ToolInvocation, conversation_id=task.conversation_id)
    assert invocation.status == 'error'


async def test_a_model_that_raises_fails_the_task_with_its_error(
    runtime: SynapseRuntime, store: Store
) -> None:
    status, task, logs = await run(runtime, a_task(store, 'chat_agents.failing', '503 check the orders'))
    assert status == 'failed' == task.status
    assert task.error is not None and task.error.startswith('ModelHTTPError') and 'overloaded' in task.error
    assert kinds(logs)[-2:] == ['error', 'finished'] and logs[-2].message == task.error
    assert task.conversation_id is not None
    conversation = ConversationRepository(store).get(task.conversation_id)
    assert conversation is not None and conversation.has_error


async def test_a_reached_spending_limit_refuses_the_run_and_costs_nothing(
    runtime: SynapseRuntime, store: Store
) -> None:
    limit = add_limit(store, 'tenant', ACME, '0.01')
    seed(store, ledger_row(created=datetime.now(UTC), cost='0.5', tenant=ACME))
    status, task, logs = await run(runtime, a_task(store, 'chat_agents.priced'))
    assert status == 'failed' == task.status
    assert task.error is not None and task.error.startswith('Spending limit reached: the tenant org:acme')
    assert '0.01 USD per calendar day' in task.error and 'has spent 0.5 USD' in task.error
    assert f'(limit {limit.id})' in task.error and 'cost nothing' in task.error
    assert task.cost is None and (task.input_tokens, task.output_tokens) == (0, 0)
    assert task.conversation_id is None
    assert rows(store, LlmCall, module='task') == []
    assert kinds(logs) == ['started', 'error', 'finished']


async def test_a_limit_of_another_tenant_does_not_stop_the_run(runtime: SynapseRuntime, store: Store) -> None:
    add_limit(store, 'tenant', 'org:other', '0.01')
    seed(store, ledger_row(created=datetime.now(UTC), cost='0.5', tenant='org:other'))
    status, task, _logs = await run(runtime, a_task(store, 'chat_agents.greeter'))
    assert status == 'succeeded' and task.output == 'Hello there friend '
    assert [c.module for c in rows(store, LlmCall, conversation_id=task.conversation_id)] == ['task']


async def test_cancelling_a_running_task_stops_it_and_stores_the_turn_interrupted(
    runtime: SynapseRuntime, store: Store, module: str
) -> None:
    task_id = a_task(store, f'{module}.waiter')
    result: dict[str, Any] = {}

    async def start() -> None:
        result['status'] = await runner.run_task(runtime, task_id, WORKER)

    async with anyio.create_task_group() as group:
        group.start_soon(start)
        await until(lambda: bool(rows(store, ToolInvocation)))  # the tool has started
        cancelled = await anyio.to_thread.run_sync(queue.cancel, store, task_id)
        assert cancelled.status == 'running' and cancelled.cancel_requested
    await runtime.chat_service().writes.drain()
    task, logs = queue.get_task(store, task_id)
    assert result['status'] == 'cancelled' == task.status
    assert task.error == 'Cancelled while running: the turn was stored as interrupted.'
    assert task.conversation_id is not None and task.finished_at is not None
    assistant = [
        m for m in rows(store, Message, conversation_id=task.conversation_id) if m.role == 'assistant'
    ]
    assert [m.status for m in assistant] == ['interrupted']
    (invocation,) = rows(store, ToolInvocation, conversation_id=task.conversation_id)
    assert invocation.status == 'interrupted'
    assert kinds(logs)[-2:] == ['notice', 'finished'] and logs[-1].message.startswith('Cancelled in ')


async def test_an_unknown_agent_fails_the_task_with_the_closest_slugs(
    runtime: SynapseRuntime, store: Store
) -> None:
    status, task, logs = await run(runtime, a_task(store, 'chat_agents.shopp'))
    assert status == 'failed' == task.status
    assert task.error is not None
    assert task.error.startswith("UnknownAgent: No agent with slug 'chat_agents.shopp'. Did you mean: ")
    assert "'chat_agents.shop'" in task.error
    assert task.conversation_id is None and kinds(logs) == ['started', 'error', 'finished']


async def test_a_task_that_is_not_queued_is_not_run(runtime: SynapseRuntime, store: Store) -> None:
    taken = a_task(store, 'chat_agents.greeter')
    assert queue.claim(store, taken, 'another-host:2:worker')
    assert await runner.run_task(runtime, taken, WORKER) is None
    cancelled = a_task(store, 'chat_agents.greeter')
    queue.cancel(store, cancelled)
    assert await runner.run_task(runtime, cancelled, WORKER) is None
    assert queue.get_task(store, taken)[0].worker == 'another-host:2:worker'
    assert queue.get_task(store, taken)[1] == [] == queue.get_task(store, cancelled)[1]


# -- the in-process worker ------------------------------------------------------------------------


def most_at_once(tasks: list[AgentTask]) -> int:
    """The most tasks whose runs overlapped, from their start and finish times."""
    edges = sorted(
        [(t.started_at, 1) for t in tasks if t.started_at]
        + [(t.finished_at, -1) for t in tasks if t.finished_at],
        key=lambda edge: (edge[0], edge[1]),
    )
    running = most = 0
    for _moment, step in edges:
        running += step
        most = max(most, running)
    return most


async def test_the_in_process_worker_runs_queued_tasks_two_at_a_time(
    runtime: SynapseRuntime, store: Store, module: str
) -> None:
    ids = [a_task(store, f'{module}.napper') for _ in range(5)]
    worker = InProcessWorker(runtime, 2, poll_seconds=0.05)
    seen: list[int] = []
    async with anyio.create_task_group() as group:
        group.start_soon(worker.serve)
        with anyio.fail_after(30):
            while worker.finished < 5:
                seen.append(len(worker.running))
                await anyio.sleep(0.01)
        group.cancel_scope.cancel()
    tasks = [queue.get_task(store, task_id)[0] for task_id in ids]
    assert [t.status for t in tasks] == ['succeeded'] * 5
    assert {t.worker for t in tasks} == {worker.name} and worker.running == set()
    assert max(seen) == 2
    assert most_at_once(tasks) == 2


async def test_a_worker_shut_down_mid_run_records_the_task_as_failed(
    runtime: SynapseRuntime, store: Store, module: str
) -> None:
    task_id = a_task(store, f'{module}.waiter')
    worker = InProcessWorker(runtime, 1, poll_seconds=0.05)
    async with anyio.create_task_group() as group:
        group.start_soon(worker.serve)
        await until(lambda: bool(rows(store, ToolInvocation)))
        group.cancel_scope.cancel()
    task, logs = queue.get_task(store, task_id)
    assert task.status == 'failed'
    assert task.error == f'The worker {worker.name} stopped (shut down) while this task ran.'
    assert kinds(logs)[-1] == 'error'
