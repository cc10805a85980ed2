"""`synapse mcp` over standard input and output, driven by the `mcp` SDK's own client: a sandbox
preset and agent are created, run, inspected and cleaned up; a real agent cannot be changed; the
run is a stored conversation with origin `mcp`, with its ledger row."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from sqlalchemy import select

from synapse_agents.accounting.tables import LlmCall
from synapse_agents.conversations.tables import Conversation
from synapse_agents.registry.tables import AgentConfig, Preset
from synapse_agents.store import Store

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

TOOLS = {
    'list_agents',
    'save_sandbox_agent',
    'save_sandbox_preset',
    'run_agent',
    'inspect_conversation',
    'cleanup_sandbox',
    'list_workflows',
    'validate_workflow',
    'save_sandbox_workflow',
    'run_workflow',
    'inspect_workflow_run',
}

FLOW = {
    'version': 1,
    'steps': [
        {'name': 'first', 'agent_name': 'config:helper', 'input_mapping': {'message': '$.input.question'}},
        {
            'name': 'second',
            'agent_name': 'synapse_agents.demo.agents.summariser',
            # The demo model's answer lists the words that make it fail on purpose ("rate
            # limit"): passed on, it would fail this step. The second step reads the input too.
            'input_mapping': {'message': '$.input.question'},
        },
    ],
    'outputs': {'first': '$.steps.first.output.answer', 'final': '$.steps.second.output.answer'},
}


def server(store: Store, project: Path) -> StdioServerParameters:
    env = {
        'SYNAPSE_HOME': os.environ['SYNAPSE_HOME'],
        'SYNAPSE_DATABASE_URL': store.engine.url.render_as_string(hide_password=False),
    }
    return StdioServerParameters(
        command=sys.executable, args=['-m', 'synapse_agents', 'mcp', '--demo'], env=env, cwd=project
    )


async def call(session: ClientSession, tool: str, **arguments: Any) -> Any:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)  # type: ignore[union-attr]


async def refusal(session: ClientSession, tool: str, **arguments: Any) -> str:
    result = await session.call_tool(tool, arguments)
    assert result.is_error
    text: str = result.content[0].text  # type: ignore[union-attr]
    return text


async def test_a_coding_assistant_builds_runs_inspects_and_cleans_up(
    isolated_env: Path, store: Store
) -> None:
    with store.write() as session:
        session.add(AgentConfig(key='real', instructions='A real agent.'))
    async with (
        stdio_client(server(store, isolated_env)) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        assert {tool.name for tool in (await session.list_tools()).tools} == TOOLS

        preset = await call(session, 'save_sandbox_preset', key='quick', model='demo', temperature=0.2)
        assert preset == {'preset': 'quick', 'model': 'demo', 'created': True}
        saved = await call(
            session, 'save_sandbox_agent', key='helper', instructions='You help people.', preset_key='quick'
        )
        assert saved == {'agent': 'config:helper', 'version': 1, 'created': True}
        listed = await call(session, 'list_agents')
        assert [a['agent'] for a in listed['sandbox_agents']] == ['config:helper']
        shown = {a['agent'] for a in listed['agents']}
        assert 'config:real' in shown and 'config:helper' not in shown, 'listings leave sandboxes out'
        assert any(a.startswith('synapse_agents.demo.') for a in shown)

        ran = await call(session, 'run_agent', agent='config:helper', message='Hello there')
        assert 'Hello there' in ran['output'] and ran['model'] and ran['input_tokens'] > 0
        inspected = await call(session, 'inspect_conversation', conversation_id=ran['conversation_id'])
        assert [m['role'] for m in inspected['messages']] == ['user', 'assistant']
        assert inspected['messages'][1]['content'] == ran['output']
        (trace,) = inspected['traces'].values()
        assert trace['agent_run_id'] == ran['run_id'] and trace['children'], trace
        again = await call(
            session,
            'run_agent',
            agent='config:helper',
            message='And again',
            conversation_id=ran['conversation_id'],
        )
        assert again['conversation_id'] == ran['conversation_id']

        changed = await call(session, 'save_sandbox_agent', key='helper', instructions='You help briefly.')
        assert changed == {'agent': 'config:helper', 'version': 2, 'created': False}
        assert 'sandbox agents only' in await refusal(
            session, 'save_sandbox_agent', key='real', instructions='x'
        )
        assert 'unknown' in (await refusal(session, 'run_agent', agent='no.such-agent', message='hi')).lower()
        bad_preset = await refusal(session, 'save_sandbox_agent', key='other', preset_key='missing')
        assert 'missing' in bad_preset

        # A sandbox workflow over the sandbox agent and a demo agent: checked, saved, run, inspected.
        broken = {**FLOW, 'outputs': {'final': '$.steps.third.output.answer'}}
        said = await refusal(session, 'validate_workflow', definition=broken)
        assert 'outputs.final' in said and 'third' in said, said
        assert (await call(session, 'validate_workflow', definition=FLOW)) == {'valid': True, 'steps': 2}
        flow = await call(session, 'save_sandbox_workflow', key='pipeline', definition=FLOW)
        assert flow == {'workflow': 'pipeline', 'version': 1, 'created': True}
        assert (await call(session, 'list_workflows'))['sandbox_workflows'][0]['key'] == 'pipeline'
        done = await call(session, 'run_workflow', key='pipeline', input={'question': 'Where is A-1001?'})
        assert done['status'] == 'completed', (done['error'], done['steps'])
        assert [step['status'] for step in done['steps']] == ['completed', 'completed']
        assert done['output']['final'] == done['steps'][1]['output']['answer']
        again = await call(session, 'inspect_workflow_run', run_id=done['id'])
        assert again['id'] == done['id'] and again['steps'][0]['conversation_id']

        cleaned = await call(session, 'cleanup_sandbox')
        assert cleaned['deleted'] == {'agents': 1, 'presets': 1, 'workflows': 1}

    with store.read() as db:
        assert db.scalars(select(AgentConfig.key)).all() == ['real']
        assert db.scalars(select(Preset.key)).all() == []
        origins = sorted(db.scalars(select(Conversation.origin)).all())
        assert origins == ['mcp', 'workflow', 'workflow'], origins
        assert db.scalar(select(LlmCall.id).where(LlmCall.conversation_id == ran['conversation_id']))
