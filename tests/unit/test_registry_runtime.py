"""Configured agents through the Python API and the turn engine, on SQLite and PostgreSQL.

Registry rows are written with the ORM tables; every turn runs through `Synapse` (the same turn
engine as the playground). The model boundary is a `FunctionModel` passed as the conversation's
model, or the demo model a preset names.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.usage import RequestUsage
from sqlalchemy import select, update

from fixtures.projects import FixtureProject, isolated_imports
from synapse_agents import Synapse
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.conversations.tables import Conversation, Message, ToolInvocation
from synapse_agents.encryption import new_key
from synapse_agents.registry.agents_runtime import (
    AgentAccessDenied,
    ConfiguredAgentError,
    configured_agents,
)
from synapse_agents.registry.prices import Price, cost_of
from synapse_agents.registry.tables import (
    AgentConfig,
    ModelPrice,
    Preset,
    Provider,
    RegistryModel,
    Tone,
)
from synapse_agents.store import Store
from synapse_agents.targets.model_choice import MissingApiKey

pytestmark = pytest.mark.anyio

TOOLS = '''
import synapse_agents
from pydantic_ai import FunctionToolset


@synapse_agents.tool(tags=['math'])
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def reverse(text: str) -> str:
    """Reverse a text."""
    return text[::-1]


text_tools = FunctionToolset([reverse], metadata={'tags': ['text']})
'''

FIRM, USER = ('firm', '7'), ('user', '42')


@pytest.fixture
def project(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FixtureProject]:
    """The test's project: a tools module under ./agents, and a secret key."""
    monkeypatch.setenv('SYNAPSE_SECRET_KEY', new_key())
    with isolated_imports(isolated_env.parent):
        yield FixtureProject(isolated_env).write({'agents/tools.py': TOOLS})


@pytest.fixture
def synapse(project: FixtureProject, database_url: str) -> Synapse:
    return Synapse(project.root, database_url=database_url)


def add(store: Store, *rows: Any) -> None:
    with store.write() as session:
        session.add_all(rows)


def helper_rows(**agent: Any) -> list[Any]:
    """A preset, a tone and the agent `helper` that uses them (fields of the agent overridable)."""
    fields: dict[str, Any] = {
        'key': 'helper',
        'name': 'Helper',
        'description': 'Helps.',
        'instructions': 'You help people.',
        'preset_key': 'careful',
        'tone_key': 'pirate',
        'version': 3,
        **agent,
    }
    return [
        Preset(
            key='careful',
            model='demo',
            temperature=0.3,
            max_tokens=77,
            top_p=0.9,
            timeout_s=12.5,
            provider_options={'seed': 7},
        ),
        Tone(key='pirate', name='Pirate', emoji='🏴‍☠️', instructions='Speak like a pirate.'),
        AgentConfig(**fields),
    ]


class Recording:
    """A `FunctionModel` that answers 'ahoy' and keeps what each request was sent."""

    def __init__(self, model_name: str = 'scripted', *, call: str | None = None) -> None:
        self.infos: list[AgentInfo] = []
        self.call = call
        self.model = FunctionModel(stream_function=self._stream, model_name=model_name)

    async def _stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        self.infos.append(info)
        returned = any(getattr(p, 'part_kind', '') == 'tool-return' for m in messages for p in m.parts)
        if self.call and not returned:
            yield {
                0: DeltaToolCall(name=self.call, json_args=json.dumps({'a': 2, 'b': 3}), tool_call_id='c1')
            }
            return
        yield 'ahoy'


def one(store: Store, model: Any, **where: Any) -> Any:
    with store.read() as session:
        query = select(model)
        for key, value in where.items():
            query = query.where(getattr(model, key) == value)
        return session.scalars(query).one()


async def test_a_configured_agent_runs_with_its_preset_and_tone(synapse: Synapse, store: Store) -> None:
    add(store, *helper_rows(spec={'retries': 2, 'model_settings': {'max_tokens': 99}}))
    scripted = Recording()
    async with synapse as syn:
        conv = await syn.conversation('config:helper', model=scripted.model)
        reply = await conv.send('Hello')
        on_preset = await (await syn.conversation('config:helper')).send('Hello again')
    assert reply.output == 'ahoy' and conv.agent_key == 'config:helper'
    [info] = scripted.infos
    assert info.model_settings == {
        'temperature': 0.3,
        'max_tokens': 99,  # the agent's own spec wins over its preset
        'top_p': 0.9,
        'timeout': 12.5,
        'seed': 7,
    }
    assert info.instructions == 'You help people.\n\nSpeak like a pirate.'
    message = one(store, Message, id=reply.message_id)
    assert message.meta['agent_version'] == 3 and message.meta['model'] == 'scripted'
    conversation = one(store, Conversation, id=reply.conversation_id)
    assert (conversation.agent_key, conversation.agent_name, conversation.origin) == (
        'config:helper',
        'Helper',
        'app',
    )
    demo = one(store, Message, id=on_preset.message_id)  # the preset's own model, the demo model
    assert demo.meta['agent_version'] == 3 and demo.meta['provider'] == 'synapse'


async def test_the_bare_key_sandboxes_and_a_new_version(synapse: Synapse, store: Store) -> None:
    add(store, *helper_rows(), AgentConfig(key='draft', instructions='Draft.', is_sandbox=True, version=1))
    scripted = Recording()
    async with synapse as syn:
        reply = await (await syn.conversation('helper', model=scripted.model)).send('Hi')
        sandbox = await (await syn.conversation('config:draft', model=scripted.model)).send('Hi')
        agents = configured_agents(syn.runtime.store)
        builds = agents.builds
        await syn.conversation('config:helper')
        assert agents.builds == builds  # same version, same rows: the cached agent
        with store.write() as session:
            session.execute(
                update(AgentConfig)
                .where(AgentConfig.key == 'helper')
                .values(version=4, instructions='You help people briefly.')
            )
        newer = await (await syn.conversation('config:helper', model=scripted.model)).send('Hi')
        listed = [agent.slug for agent in agents.listing(None)]
    assert one(store, Conversation, id=reply.conversation_id).agent_key == 'config:helper'
    assert one(store, Conversation, id=sandbox.conversation_id).agent_key == 'config:draft'
    assert scripted.infos[1].instructions == 'Draft.'
    assert scripted.infos[2].instructions == 'You help people briefly.\n\nSpeak like a pirate.'
    assert one(store, Message, id=newer.message_id).meta['agent_version'] == 4
    assert one(store, Message, id=reply.message_id).meta['agent_version'] == 3
    assert listed == ['config:helper']  # sandboxes are found by key, never listed


async def test_access_admits_only_its_tenants_and_actors(synapse: Synapse, store: Store) -> None:
    add(store, *helper_rows(access={'tenants': ['firm'], 'actors': ['user:42', 'service']}))
    scripted = Recording()
    async with synapse as syn:
        allowed = await syn.conversation('config:helper', tenant=FIRM, actor=USER, model=scripted.model)
        assert (await allowed.send('Hi')).output == 'ahoy'
        service = await syn.conversation('config:helper', tenant=('firm', '1'), actor=('service', 'x'))
        assert (await service.send('Hi')).output
        for tenant, actor, said in (
            (('shop', '1'), USER, "tenant shop:1: its access admits tenants 'firm'"),
            (FIRM, ('user', '43'), "actor user:43: its access admits actors 'user:42', 'service'"),
            (None, USER, 'a conversation with no tenant'),
        ):
            refused = await syn.conversation(
                'config:helper', tenant=tenant, actor=actor, model=scripted.model
            )
            with pytest.raises(AgentAccessDenied, match=said):
                await refused.send('Hi')
        # A conversation allowed to one actor cannot be continued by an actor it does not admit.
        later = await syn.conversation('config:helper', id=allowed.id, actor=('user', '43'))
        with pytest.raises(AgentAccessDenied):
            await later.send('Again')
        # The developer's playground is not limited by it.
        playground = await syn.conversation('config:helper', origin='playground', model=scripted.model)
        assert (await playground.send('Hi')).output == 'ahoy'
    assert len(scripted.infos) == 2  # no refused turn reached the model


async def test_registry_tools_by_name_and_tag(synapse: Synapse, store: Store) -> None:
    add(store, *helper_rows(tools=['add', 'tag:text']))
    scripted = Recording(call='add')
    async with synapse as syn:
        reply = await (await syn.conversation('config:helper', model=scripted.model)).send('2 + 3?')
    assert {tool.name for tool in scripted.infos[0].function_tools} == {'add', 'reverse'}
    call = one(store, ToolInvocation, conversation_id=reply.conversation_id)
    assert (call.name, call.status, call.result) == ('add', 'success', 5)


async def test_what_keeps_an_agent_from_running_is_a_clear_error(synapse: Synapse, store: Store) -> None:
    add(
        store,
        *helper_rows(tools=['add', 'nope', 'tag:none']),
        AgentConfig(key='off', instructions='Off.', enabled=False),
        AgentConfig(key='orphan', preset_key='gone'),
        AgentConfig(key='odd', spec={'instructions': 'Not here.'}),
    )
    async with synapse as syn:
        with pytest.raises(ConfiguredAgentError, match="Unknown tool entries 'nope', 'tag:none'"):
            await syn.conversation('config:helper')
        with pytest.raises(ConfiguredAgentError, match='Agent config:off is disabled'):
            await syn.conversation('off')
        with pytest.raises(ConfiguredAgentError, match="preset_key: no preset 'gone'"):
            await syn.conversation('config:orphan')
        with pytest.raises(ConfiguredAgentError, match='spec: instructions cannot be set in the spec'):
            await syn.conversation('config:odd')
        described = configured_agents(syn.runtime.store).get('helper', None, syn.runtime.catalog)
    assert described is not None
    assert [(p.code, p.message[:40]) for p in described.info.problems] == [
        ('unknown_tool', "Unknown tool entries 'nope', 'tag:none':")
    ]
    assert [tool.name for tool in described.info.tools] == ['add']  # described with what exists


async def test_a_provider_without_a_key_names_it_and_another_model_still_runs(
    synapse: Synapse, store: Store
) -> None:
    add(
        store,
        Provider(key='claude', kind='anthropic'),
        RegistryModel(key='claude:haiku', provider_key='claude', name='claude-haiku-5-5'),
        Preset(key='quick', model='claude:haiku'),
        AgentConfig(key='quick', preset_key='quick', instructions='Be quick.'),
    )
    async with synapse as syn:
        conv = await syn.conversation('config:quick')
        with pytest.raises(
            MissingApiKey, match=r"Store an API key for provider 'claude' \(or set ANTHROPIC_API_KEY\)"
        ):
            await conv.send('Hi')
        assert (await (await syn.conversation('config:quick', model='demo')).send('Hi')).output
        described = configured_agents(syn.runtime.store).get('quick', None)
    assert described is not None and described.info.model is not None
    assert (described.info.model.id, described.info.model.provider) == ('claude:haiku', 'claude')
    assert [(p.code, p.env_var) for p in described.info.problems] == [
        ('missing_api_key', 'ANTHROPIC_API_KEY')
    ]


# -- prices -------------------------------------------------------------------------------


def test_the_cost_of_a_response_counts_cached_tokens_at_their_price() -> None:
    price = Price(Decimal('3'), Decimal('15'), Decimal('0.30'), Decimal('3.75'), 'EUR', datetime.now(UTC))
    usage = RequestUsage(
        input_tokens=10_000, cache_read_tokens=4_000, cache_write_tokens=1_000, output_tokens=500
    )
    assert cost_of(usage, price) == Decimal('0.02745')  # (5000*3 + 4000*0.3 + 1000*3.75 + 500*15) / 10**6
    no_cache_prices = Price(Decimal('3'), Decimal('15'), None, None, 'USD', datetime.now(UTC))
    assert cost_of(usage, no_cache_prices) == Decimal('0.0375')


async def test_a_registry_price_overrides_and_an_unknown_model_is_unpriced(
    synapse: Synapse, store: Store
) -> None:
    past = datetime.now(UTC) - timedelta(days=1)
    add(
        store,
        RegistryModel(key='acme:acme-1', provider_key='acme', name='acme-1'),
        ModelPrice(
            model_key='acme:acme-1',
            input_per_mtok=Decimal('2.50'),
            output_per_mtok=Decimal('10'),
            currency='EUR',
            valid_from=past,
        ),
        ModelPrice(  # not in force yet
            model_key='acme:acme-1',
            input_per_mtok=Decimal('999'),
            output_per_mtok=Decimal('999'),
            currency='EUR',
            valid_from=datetime.now(UTC) + timedelta(days=30),
        ),
        RegistryModel(key='acme:acme-2', provider_key='acme', name='acme-2'),  # known, no price
    )
    async with synapse as syn:
        priced = await (await syn.conversation(Agent(Recording('acme-1').model, name='a1'))).send('Hi')
        unknown = await (await syn.conversation(Agent(Recording('acme-2').model, name='a2'))).send('Hi')
    row = one(store, LlmCall, conversation_id=priced.conversation_id)
    expected = (row.input_tokens * Decimal('2.50') + row.output_tokens * Decimal('10')) / Decimal(1_000_000)
    assert row.input_tokens > 0 and row.cost == expected
    assert (row.currency, row.price_source) == ('EUR', 'registry')
    # The turn's cost is in the reference currency (USD), and no EUR rate is set: it is unknown,
    # never the EUR amount passed off as dollars; the ledger row keeps the EUR price.
    assert priced.cost is None and one(store, Message, id=priced.message_id).cost is None
    unpriced = one(store, LlmCall, conversation_id=unknown.conversation_id)
    assert (unpriced.cost, unpriced.currency, unpriced.price_source) == (None, None, None)
    assert unknown.cost is None and one(store, Message, id=unknown.message_id).cost is None
