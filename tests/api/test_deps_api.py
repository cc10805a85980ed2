"""Deps over HTTP on every selected database: a configured agent's deps schema (its info, the 422s,
values remembered per conversation), and `server`-lifetime deps torn down when the app stops."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chat_helpers import LOCAL_PEER, LOCAL_URL, decode
from fixtures.projects import isolated_imports, write_files
from synapse_agents.registry.tables import AgentConfig, Preset
from synapse_agents.runtime.root import SynapseRuntime
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.settings import load_settings
from synapse_agents.store import Store
from synapse_agents.web.app import create_app
from synapse_agents.web.server import DEMO_TARGET

TOOLS = '''
from typing import Any

from pydantic_ai import RunContext

import synapse_agents


@synapse_agents.tool
def show_deps(ctx: RunContext[Any]) -> Any:
    """What the run's deps are."""
    return ctx.deps
'''

SCHEMA = {
    'type': 'object',
    'required': ['account_id'],
    'properties': {
        'account_id': {'type': 'integer', 'title': 'Account'},
        'plan': {'enum': ['free', 'pro']},
    },
}


@pytest.fixture
def served(store: Store, context: SynapseContext, client_for: Callable[..., TestClient]) -> TestClient:
    """The demo agents and `config:billing`, whose deps schema needs an account id; on the demo
    model, 'use all tools' makes it call `show_deps` (which returns the run's deps)."""
    write_files(context.loaded.project_root, {'agents/tools.py': TOOLS})
    with store.write() as session:
        session.add_all(
            [
                Preset(key='offline', model='demo'),
                AgentConfig(
                    key='billing',
                    instructions='Bill.',
                    preset_key='offline',
                    tools=['show_deps'],
                    spec={'deps_schema': SCHEMA},
                ),
                AgentConfig(key='odd', preset_key='offline', spec={'deps_schema': {'type': 'nonsense'}}),
            ]
        )
    return client_for(['agents', DEMO_TARGET])


def chat(client: TestClient, slug: str, **data: Any) -> Any:
    if 'deps' in data and not isinstance(data['deps'], str):
        data['deps'] = json.dumps(data['deps'])
    return client.post(f'/api/agents/{slug}/chat', data={'message': 'use all tools', **data})


def turn(client: TestClient, **data: Any) -> tuple[str, Any]:
    """A turn of `config:billing`: its conversation id and what `show_deps` returned."""
    response = chat(client, 'config:billing', **data)
    assert response.status_code == 200, response.text
    chunks = decode(response.text)
    assert not [c for c in chunks if c['type'] == 'error'], chunks
    metadata = next(c for c in chunks if c['type'] == 'message-metadata')['messageMetadata']
    [output] = [c['output'] for c in chunks if c['type'] == 'tool-output-available']
    return metadata['conversation_id'], output


def refused(response: Any) -> dict[str, Any]:
    assert response.status_code == 422, response.text
    error: dict[str, Any] = response.json()['error']
    return error


def test_the_agent_info_has_its_deps_schema(served: TestClient) -> None:
    info = served.get('/api/agents/config:billing').json()
    assert info['deps_schema'] == SCHEMA
    assert info['deps']['required'] is True
    odd = served.get('/api/agents/config:odd').json()
    assert odd['deps_schema'] is None
    [problem] = odd['problems']
    assert problem['code'] == 'config_error'
    assert problem['message'].startswith('spec.deps_schema: not a valid JSON Schema')


def test_deps_values_are_checked_against_the_schema(served: TestClient) -> None:
    required = refused(chat(served, 'config:billing'))
    assert required['code'] == 'deps_required'
    assert required['message'] == 'deps: billing needs deps values (account_id); send them as `deps`.'
    assert required['fields'][0]['location'] == 'body.deps.account_id'

    wrong = refused(chat(served, 'config:billing', deps={'account_id': 'seven'}))
    assert wrong['code'] == 'deps_invalid'
    assert wrong['message'] == "deps.account_id: 'seven' is not of type 'integer'"
    assert wrong['fields'] == [{'location': 'body.deps.account_id', 'message': wrong['message']}]

    missing = refused(chat(served, 'config:billing', deps={'plan': 'pro'}))
    assert (missing['code'], missing['fields'][0]['location']) == ('deps_invalid', 'body.deps.account_id')

    choice = refused(chat(served, 'config:billing', deps={'account_id': 7, 'plan': 'gold'}))
    assert choice['fields'][0]['location'] == 'body.deps.plan'

    for text, says in (
        ('{"account_id": ', 'deps: not valid JSON'),
        ('[7]', 'deps: expected a JSON object of values, not a list.'),
        ('{"account_id": 7, "note": "\\u0000"}', 'deps: NUL characters are not accepted.'),
        ('{"pad": "' + 'x' * 70_000 + '"}', 'deps: 70011 characters is more than the 65536 accepted.'),
    ):
        assert refused(chat(served, 'config:billing', deps=text))['message'].startswith(says)

    demo = refused(chat(served, 'synapse_agents.demo.agents.support-agent', deps={'account_id': 7}))
    assert demo['code'] == 'deps_unexpected'
    assert served.get('/api/conversations').json()['total'] == 0, 'nothing refused was stored'


def test_the_values_reach_the_agent_and_are_remembered_per_conversation(served: TestClient) -> None:
    conversation, seen = turn(served, deps={'account_id': 7, 'plan': 'pro'})
    assert seen == {'account_id': 7, 'plan': 'pro'}
    thread = served.get(f'/api/conversations/{conversation}').json()
    assert thread['conversation']['deps_values'] == {'account_id': 7, 'plan': 'pro'}

    again, seen = turn(served, conversation_id=conversation)
    assert (again, seen) == (conversation, {'account_id': 7, 'plan': 'pro'}), 'the stored values'

    _, seen = turn(served, conversation_id=conversation, deps={'account_id': 8})
    assert seen == {'account_id': 8}
    thread = served.get(f'/api/conversations/{conversation}').json()
    assert thread['conversation']['deps_values'] == {'account_id': 8}, 'sending new values replaces them'

    bad = refused(chat(served, 'config:billing', conversation_id=conversation, deps={'account_id': 'x'}))
    assert bad['code'] == 'deps_invalid'
    assert served.get(f'/api/conversations/{conversation}').json()['conversation']['deps_values'] == {
        'account_id': 8
    }, 'refused values replace nothing'

    other, seen = turn(served, deps={'account_id': 1})
    assert other != conversation and seen == {'account_id': 1}
    assert served.get(f'/api/conversations/{conversation}').json()['conversation']['deps_values'] == {
        'account_id': 8
    }, 'each conversation keeps its own'


def test_a_fork_starts_with_its_source_values(served: TestClient) -> None:
    conversation, _ = turn(served, deps={'account_id': 7})
    _, _ = turn(served, conversation_id=conversation)
    messages = served.get(f'/api/conversations/{conversation}').json()['messages']
    second_question = [m['id'] for m in messages if m['role'] == 'user'][1]
    fork = served.post(f'/api/conversations/{conversation}/fork', json={'message_id': second_question})
    assert fork.status_code in (200, 201), fork.text
    fork_id = fork.json()['id']
    assert served.get(f'/api/conversations/{fork_id}').json()['conversation']['deps_values'] == {
        'account_id': 7
    }
    _, seen = turn(served, conversation_id=fork_id)
    assert seen == {'account_id': 7}


def test_a_conversation_without_values_has_none(served: TestClient) -> None:
    response = chat(served, 'synapse_agents.demo.agents.support-agent')
    conversation = next(c for c in decode(response.text) if c['type'] == 'message-metadata')[
        'messageMetadata'
    ]
    thread = served.get(f'/api/conversations/{conversation["conversation_id"]}').json()
    assert thread['conversation']['deps_values'] is None


# -- server lifetime, named in [tool.synapse.deps] ------------------------------------------------

PROJECT = {
    'pyproject.toml': """
        [tool.synapse]
        agents = ['shop']
        deps_lifetime = 'server'

        [tool.synapse.deps]
        "shop.agents:clerk" = "shop.deps:open_pool"
    """,
    'shop/__init__.py': '',
    'shop/agents.py': """
        from typing import Any

        from pydantic_ai import Agent, RunContext

        clerk = Agent('test', name='clerk', deps_type=dict)


        @clerk.tool
        def pool(ctx: RunContext[Any]) -> Any:
            return ctx.deps
    """,
    'shop/deps.py': """
        from contextlib import asynccontextmanager
        from pathlib import Path

        LOG = Path(__file__).parent.parent / 'deps.log'


        @asynccontextmanager
        async def open_pool():
            with LOG.open('a') as log:
                log.write('open\\n')
            try:
                yield {'pool': 'shared'}
            finally:
                with LOG.open('a') as log:
                    log.write('close\\n')
    """,
}


def test_server_deps_are_built_once_and_torn_down_when_the_app_stops(
    settings: Any, isolated_env: Path, tmp_path: Path
) -> None:
    write_files(isolated_env, PROJECT)
    log = isolated_env / 'deps.log'
    with isolated_imports(tmp_path), SynapseRuntime.open(load_settings()) as runtime:
        with TestClient(create_app(runtime), base_url=LOCAL_URL, client=LOCAL_PEER) as client:
            info = client.get('/api/agents/shop.agents.clerk').json()
            assert (info['deps']['source'], info['problems']) == ('pyproject', [])
            for _ in range(2):
                response = client.post('/api/agents/shop.agents.clerk/chat', data={'message': 'hi'})
                outputs = [c['output'] for c in decode(response.text) if c['type'] == 'tool-output-available']
                assert outputs == [{'pool': 'shared'}]
            assert log.read_text().split() == ['open'], 'built once for both turns'
        assert log.read_text().split() == ['open', 'close'], 'torn down when the app stopped'


def test_the_model_tools_view_runs_with_the_factorys_deps_and_tears_them_down(
    client_for: Callable[..., TestClient], isolated_env: Path
) -> None:
    write_files(
        isolated_env,
        {
            'agents/probe.py': """
                from contextlib import contextmanager

                from pydantic_ai import Agent, RunContext

                LOG = []


                @contextmanager
                def session():
                    LOG.append('open')
                    yield {'tenant': 'acme'}
                    LOG.append('close')


                probe = Agent('test', deps_type=dict, metadata={'synapse.deps_factory': session})


                @probe.tool
                def whoami(ctx: RunContext[dict]) -> str:
                    return ctx.deps['tenant']
            """
        },
    )
    client = client_for(['agents/probe.py'])
    response = client.get('/api/agents/agents.probe.probe/model-tools')
    assert response.status_code == 200, response.text
    assert [tool['name'] for tool in response.json()['tools']] == ['whoami']
    import agents.probe as module  # type: ignore[import-not-found]

    assert module.LOG == ['open', 'close']
