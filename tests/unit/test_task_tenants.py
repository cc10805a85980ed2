"""Tenants never meet in the task area: over random tenants, subjects, events, debounce windows and
standing agents (some hearing every tenant), nothing of one tenant's firing reaches another
tenant's task, conversation, ledger row or answer.

Each example fires its events, checks the queued tasks against a model of who hears what and what
folds into what, runs every task through the runner (as the in-process worker does) on an agent
whose model answers with the prompt it was sent, and then reads every task, message and ledger row
the example produced. Each firing's context carries a marker of its own, so any text that holds a
marker shows which tenant it came from.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio.to_thread
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from fixtures.projects import isolated_imports, unique_name, write_files
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.conversations.tables import Message
from synapse_agents.discovery import Catalog
from synapse_agents.runtime.root import SynapseRuntime
from synapse_agents.scope import Ref
from synapse_agents.settings import load_settings
from synapse_agents.store import Store
from synapse_agents.store.schema import utcnow
from synapse_agents.tasks import events, runner, standing_store
from synapse_agents.tasks.standing_store import StandingInput
from synapse_agents.tasks.tables import AgentTask

pytestmark = pytest.mark.anyio

WORKER = 'test-host:1:serve'
WINDOW = 60

AGENTS = """
from pydantic_ai import Agent
from pydantic_ai.messages import UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel


async def _echo(messages, info: AgentInfo):
    prompts = [p.content for m in messages for p in m.parts if isinstance(p, UserPromptPart)]
    yield 'ECHO ' + str(prompts[-1])


echo = Agent(FunctionModel(stream_function=_echo, model_name='gpt-4o'), name='echo')
"""

TENANTS: list[Ref | None] = [None, ('org', 'alpha'), ('org', 'beta'), ('team', 'alpha')]
SUBJECTS: list[Ref | None] = [None, ('case', '1'), ('case', '2')]
EVENTS = ['case.opened', 'case.updated']


@dataclass(frozen=True)
class Listener:
    tenant: Ref | None
    subject: Ref | None
    events: frozenset[str]
    debounce: int


@dataclass(frozen=True)
class Firing:
    event: str
    tenant: Ref | None
    subject: Ref | None
    offset: int


listeners = st.builds(
    Listener,
    tenant=st.sampled_from(TENANTS),
    subject=st.sampled_from(SUBJECTS),
    events=st.frozensets(st.sampled_from(EVENTS), min_size=1),
    debounce=st.sampled_from([0, WINDOW]),
)
firings = st.builds(
    Firing,
    event=st.sampled_from(EVENTS),
    tenant=st.sampled_from(TENANTS),
    subject=st.sampled_from(SUBJECTS),
    offset=st.integers(0, WINDOW // 2),
)


@pytest.fixture
def module(isolated_env: Path, tmp_path: Path) -> Iterator[str]:
    """A module of the test's own: `echo`, whose answer is the prompt it was sent."""
    name = unique_name('tenant_agents')
    write_files(isolated_env, {f'{name}.py': AGENTS})
    with isolated_imports(tmp_path):
        yield name


@pytest.fixture
def runtime(store: Store, database_url: str, module: str, isolated_env: Path) -> Iterator[SynapseRuntime]:
    loaded = load_settings({'database_url': database_url})
    root = SynapseRuntime(
        loaded=loaded, store=store, targets=[module], catalog=Catalog([module], isolated_env)
    )
    yield root
    if root.chat is not None:
        root.chat.close()


def label(ref: tuple[str, str | None] | None) -> str | None:
    return f'{ref[0]}:{ref[1]}' if ref is not None else None


def hears(listener: Listener, firing: Firing) -> bool:
    """Whether the agent hears the firing: its event, in its tenant (or in any, with no tenant)."""
    if firing.event not in listener.events:
        return False
    return listener.tenant is None or listener.tenant == firing.tenant


def expected_runs(agents: list[Listener], fired: list[Firing]) -> list[tuple[int, str, Any, Any, list[int]]]:
    """The runs the firings should make, in the order they are first queued: (agent, event, tenant,
    subject, the firings folded into it). Every firing in an example falls inside the window."""
    runs: list[tuple[int, str, Any, Any, list[int]]] = []
    for index, firing in enumerate(fired):
        for number, agent in enumerate(agents):
            if not hears(agent, firing):
                continue
            key = (number, firing.event, firing.tenant, firing.subject or agent.subject)
            pending = [run for run in runs if run[:4] == key] if agent.debounce else []
            if pending:
                pending[-1][4].append(index)
            else:
                runs.append((*key, [index]))
    return runs


def rows(store: Store, model: Any, column: Any, values: list[str]) -> list[Any]:
    with store.read() as session:
        found = list(session.scalars(select(model).where(column.in_(values))))
        session.expunge_all()
        return found


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    agents=st.lists(listeners, min_size=1, max_size=4),
    fired=st.lists(firings, min_size=1, max_size=8).map(lambda found: sorted(found, key=lambda f: f.offset)),
)
async def test_nothing_of_one_tenant_reaches_another(
    runtime: SynapseRuntime, store: Store, module: str, agents: list[Listener], fired: list[Firing]
) -> None:
    store = runtime.store
    nonce = uuid.uuid4().hex[:10]
    names = {event: f'{event}.{nonce}' for event in EVENTS}  # this example's own events
    marker = re.compile(rf'm(\d+)-{nonce}')
    standing_ids = [
        standing_store.create(
            store,
            StandingInput(
                name=f'listener {number}',
                agent=f'{module}.echo',
                instruction='Answer with what you were sent.',
                tenant=label(agent.tenant),
                subject=label(agent.subject),
                events=sorted(names[event] for event in agent.events),
                debounce_seconds=agent.debounce,
            ),
        ).id
        for number, agent in enumerate(agents)
    ]
    start = utcnow() - timedelta(seconds=3 * WINDOW)  # every window has ended by the time they run
    by_task: dict[str, list[int]] = {}
    for index, firing in enumerate(fired):
        result = events.fire(
            store,
            names[firing.event],
            tenant=firing.tenant,
            subject=firing.subject,
            context={'marker': f'm{index}-{nonce}', 'tenant': label(firing.tenant)},
            now=start + timedelta(seconds=firing.offset),
        )
        for task_id in result.tasks:
            by_task.setdefault(task_id, []).append(index)

    # What was queued: one task per run the model expects, each of one tenant only.
    tasks = {task.id: task for task in rows(store, AgentTask, AgentTask.standing_agent_id, standing_ids)}
    assert set(tasks) == set(by_task)
    expected = expected_runs(agents, fired)
    found = sorted(
        [
            (
                standing_ids.index(task.standing_agent_id or ''),
                task.event,
                label((task.tenant_type, task.tenant_id) if task.tenant_type else None),
                task.subject_key or None,
                by_task[task.id],
            )
            for task in tasks.values()
        ],
        key=repr,
    )
    wanted = sorted(
        [
            (number, names[event], label(tenant), label(subject), folded)
            for number, event, tenant, subject, folded in expected
        ],
        key=repr,
    )
    assert found == wanted
    for task_id, folded in by_task.items():
        task = tasks[task_id]
        assert {fired[index].tenant for index in folded} == {
            (task.tenant_type, task.tenant_id) if task.tenant_type else None
        }
        assert task.fires == len(folded) and task.context is not None
        assert task.context['marker'] == f'm{folded[-1]}-{nonce}'

    # Run them all, as a worker does.
    for task_id in tasks:
        assert await runner.run_task(runtime, task_id, WORKER) == 'succeeded'
    await runtime.chat_service().writes.drain()

    def owner_of(text: str) -> set[str | None]:
        """The tenants whose firings' markers appear in `text`."""
        return {label(fired[int(number)].tenant) for number in marker.findall(text)}

    ran = {task.id: task for task in rows(store, AgentTask, AgentTask.id, list(tasks))}
    conversations = [task.conversation_id or '' for task in ran.values()]
    messages = await anyio.to_thread.run_sync(rows, store, Message, Message.conversation_id, conversations)
    ledger = await anyio.to_thread.run_sync(rows, store, LlmCall, LlmCall.conversation_id, conversations)
    for task_id, task in ran.items():
        tenant = label((task.tenant_type, task.tenant_id) if task.tenant_type else None)
        assert task.status == 'succeeded', task.error
        # The answer is the prompt: the context of the last firing folded into this task, nothing else.
        assert isinstance(task.output, str) and owner_of(task.output) <= {tenant}
        assert marker.findall(task.output) == [str(by_task[task_id][-1])]
        conversation = ConversationRepository(store).get(task.conversation_id or '')
        assert (
            conversation is not None
            and label(
                (conversation.tenant_type, conversation.tenant_id) if conversation.tenant_type else None
            )
            == tenant
        )
        own = [message for message in messages if message.conversation_id == conversation.id]
        assert len(own) == 2
        for message in own:
            text = json.dumps([message.content, message.model_messages, message.parts, message.details])
            assert owner_of(text) == {tenant}
        calls = [call for call in ledger if call.conversation_id == conversation.id]
        assert calls and {(call.tenant, call.user) for call in calls} == {
            (tenant, f'standing_agent:{task.standing_agent_id}')
        }
        assert sum(call.input_tokens for call in calls) == task.input_tokens
