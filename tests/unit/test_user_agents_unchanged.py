"""Synapse never changes an agent, toolset or model the project owns: after turns through the
playground's chat route, the Python API and a task, every attribute of the project's agents is as it
was, the name of an unnamed agent included (pydantic-ai names an unnamed agent after the variable
that runs it and keeps that name; Synapse's runs are named by the discovered attribute instead).
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import anyio.to_thread
import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient
from pydantic_ai import Agent

import synapse_agents
from chat_helpers import LOCAL_PEER, decode
from fixtures.projects import isolated_imports, unique_name, write_files
from synapse_agents import Synapse
from synapse_agents.discovery import Catalog
from synapse_agents.runtime.root import SynapseRuntime
from synapse_agents.settings import load_settings
from synapse_agents.store import Store
from synapse_agents.tasks import queue, runner, standing_store
from synapse_agents.tasks.standing_store import StandingInput

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.any_database(reason="what is checked is the project's own agent objects, in memory"),
]

AGENTS = """
from pydantic_ai import Agent
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel


def _returned(messages):
    return any(getattr(p, 'part_kind', '') == 'tool-return' for m in messages for p in m.parts)


async def _plain_stream(messages, info: AgentInfo):
    yield 'plain answer'


async def _tool_stream(messages, info: AgentInfo):
    if not _returned(messages):
        yield {0: DeltaToolCall(name='lookup', json_args='{"order": "A-1"}', tool_call_id='call_lookup')}
        return
    yield 'looked it up'


plain = Agent(FunctionModel(stream_function=_plain_stream, model_name='plain-model'))

helper = Agent(
    FunctionModel(stream_function=_tool_stream, model_name='helper-model'),
    instructions='Answer in one line.',
)


@helper.tool_plain
def lookup(order: str) -> str:
    return f'{order} shipped'
"""

ATTRIBUTES = ('plain', 'helper')


def own_vars(value: Any) -> dict[str, Any]:
    """`vars(value)` without `functools.cached_property` memos (pydantic-ai's `Model.profile`: the
    value is the same before and after it is first read)."""
    return {
        k: v for k, v in vars(value).items() if not isinstance(getattr(type(value), k, None), cached_property)
    }


def _frozen(value: Any) -> Any:
    """What `value` is now: itself for identity, and a copy of a container's contents or of an
    object's attributes."""
    if isinstance(value, list | dict | set | tuple):
        return (value, copy.copy(value))
    if hasattr(value, '__dict__') and not isinstance(value, type):
        return (value, own_vars(value))
    return (value, None)


def snapshot(agent: Agent[Any, Any]) -> dict[str, Any]:
    """Every attribute of the agent object, its public view, and its toolsets' and model's own."""
    shot: dict[str, Any] = {f'vars.{key}': _frozen(value) for key, value in vars(agent).items()}
    shot['name'] = agent.name
    shot['model'] = _frozen(agent.model)
    shot['toolsets'] = [(toolset, own_vars(toolset)) for toolset in agent.toolsets]
    shot['instructions'] = copy.copy(getattr(agent, '_instructions', None))
    return shot


def assert_unchanged(
    agents: dict[str, Agent[Any, Any]], before: dict[str, dict[str, Any]], where: str
) -> None:
    for attribute, agent in agents.items():
        after = snapshot(agent)
        assert after.keys() == before[attribute].keys(), where
        for key, (was, now) in ((k, (before[attribute][k], after[k])) for k in after):
            assert _same(was, now), f'{where}: {attribute}.{key} changed: {_difference(was, now)}'


def _difference(was: Any, now: Any) -> str:
    if isinstance(was, tuple) and isinstance(was[1], dict) and isinstance(now[1], dict):
        keys = sorted({*was[1], *now[1]})
        changed = {
            k: (was[1].get(k, '<absent>'), now[1].get(k, '<absent>'))
            for k in keys
            if was[1].get(k, '<absent>') != now[1].get(k, '<absent>')
        }
        return f'{changed!r:.400}'
    return f'from {was!r:.200} to {now!r:.200}'


def _same(was: Any, now: Any) -> bool:
    if isinstance(was, tuple) and len(was) == 2 and isinstance(now, tuple) and len(now) == 2:
        return was[0] is now[0] and was[1] == now[1]
    if isinstance(was, list):
        return len(was) == len(now) and all(_same(a, b) for a, b in zip(was, now, strict=True))
    return bool(was == now)


@pytest.fixture
def project(isolated_env: Path) -> str:
    name = unique_name('owned_agents')
    write_files(isolated_env, {f'{name}.py': AGENTS})
    return name


def slugs(client: TestClient, module: str) -> dict[str, str]:
    cards = client.get('/api/agents').json()
    found = cards['agents'] if isinstance(cards, dict) else cards
    return {card['attribute']: card['slug'] for card in found if card.get('module') == module}


@dataclass
class Owned:
    """The project's agents as discovery serves them, and a snapshot of each before any turn."""

    client: TestClient
    slug: dict[str, str]
    agents: dict[str, Agent[Any, Any]]
    before: dict[str, dict[str, Any]]

    def assert_unchanged(self, where: str) -> None:
        assert_unchanged(self.agents, self.before, where)


@pytest.fixture
def owned(project: str, client_for: Callable[..., TestClient], isolated_env: Path) -> Owned:
    client = client_for([project], isolated_env)
    slug = slugs(client, project)
    assert sorted(slug) == sorted(ATTRIBUTES)
    module = sys.modules[project]
    agents: dict[str, Agent[Any, Any]] = {attribute: getattr(module, attribute) for attribute in ATTRIBUTES}
    assert all(agent.name is None for agent in agents.values())
    return Owned(client, slug, agents, {attribute: snapshot(agent) for attribute, agent in agents.items()})


def test_a_playground_turn_leaves_the_projects_agents_as_they_were(owned: Owned) -> None:
    for attribute in ATTRIBUTES:
        response = owned.client.post(f'/api/agents/{owned.slug[attribute]}/chat', data={'message': 'hi'})
        chunks = decode(response.text)
        assert not [c for c in chunks if c.get('type') == 'error'], chunks
        assert 'finish' in [c.get('type') for c in chunks], chunks
    owned.assert_unchanged('after a playground turn')


def test_reading_the_models_tools_leaves_the_projects_agents_as_they_were(owned: Owned) -> None:
    for attribute in ATTRIBUTES:
        assert owned.client.get(f'/api/agents/{owned.slug[attribute]}/model-tools').status_code == 200
    owned.assert_unchanged("after reading the model's tools")


def test_a_python_api_turn_leaves_the_projects_agents_as_they_were(
    owned: Owned, project: str, database_url: str
) -> None:
    syn = Synapse(settings=load_settings({'database_url': database_url, 'agents': [project]}))
    try:
        for attribute, agent in owned.agents.items():
            assert syn.conversation_sync(agent).send('hi').output  # the object
            assert syn.conversation_sync(owned.slug[attribute]).send('hi').output  # its key
    finally:
        syn.close_sync()
    owned.assert_unchanged('after a Python API turn')


async def test_a_task_leaves_the_projects_agents_as_they_were(
    owned: Owned, project: str, isolated_env: Path, database_url: str, store: Store
) -> None:
    loaded = load_settings({'database_url': database_url})
    catalog = Catalog([project], isolated_env)
    runtime = SynapseRuntime(loaded=loaded, store=store, targets=[project], catalog=catalog)
    try:
        for attribute in ATTRIBUTES:
            data = StandingInput(
                name='check', agent=owned.slug[attribute], instruction='Check A-1.', tenant='org:acme'
            )
            task_id = queue.enqueue_manual(store, standing_store.create(store, data).id)
            assert await runner.run_task(runtime, task_id, 'test-host:1:serve') == 'succeeded'
            await runtime.chat_service().writes.drain()
            task, _ = await anyio.to_thread.run_sync(queue.get_task, store, task_id)
            assert task.status == 'succeeded'
    finally:
        if runtime.chat is not None:
            runtime.chat.close()
    owned.assert_unchanged('after a task')


def anyone(request: Request) -> bool:
    return True


def test_a_turn_under_mount_leaves_the_host_apps_agents_as_they_were(
    project: str, isolated_env: Path, tmp_path: Path
) -> None:
    app = FastAPI()
    with isolated_imports(tmp_path):
        synapse_agents.mount(app, '/synapse', authorize=anyone, agents=[project], project_dir=isolated_env)
        with TestClient(app, base_url='http://app.example', client=LOCAL_PEER) as client:
            cards = client.get('/synapse/api/agents').json()['agents']
            slug = {card['attribute']: card['slug'] for card in cards if card.get('module') == project}
            assert sorted(slug) == sorted(ATTRIBUTES)
            module = sys.modules[project]
            agents = {attribute: getattr(module, attribute) for attribute in ATTRIBUTES}
            before = {attribute: snapshot(agent) for attribute, agent in agents.items()}
            for attribute in ATTRIBUTES:
                response = client.post(f'/synapse/api/agents/{slug[attribute]}/chat', data={'message': 'hi'})
                assert 'finish' in [c.get('type') for c in decode(response.text)], response.text
            assert_unchanged(agents, before, 'after a turn under mount()')
