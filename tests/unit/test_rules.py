"""`Rules()`: what the model is sent, in Synapse's turns and outside them, on every selected database.

A FunctionModel records the instructions of each request: the rules block comes first, shared rules
before personal ones, priority ascending with ties in the order written, paused rules absent, and a
tenant's or a subject's rules never reach another's conversation (a property test over random rule
sets and scopes).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from synapse_agents import Synapse
from synapse_agents.capabilities import Rules
from synapse_agents.errors import RulesUnavailable
from synapse_agents.rules import book
from synapse_agents.rules.tables import Rule
from synapse_agents.scope import METADATA_KEY, Scope
from synapse_agents.settings import Settings
from synapse_agents.store import Store

FIRM, OTHER = ('firm', '7'), ('firm', '8')
MARIA, JUAN = ('user', 'maria'), ('user', 'juan')
CASE, CASE2 = ('case', '1'), ('case', '2')
HEADINGS = Settings()

pytestmark = pytest.mark.anyio


def recording_agent(**options: Any) -> tuple[Agent[Any, str], list[str]]:
    """An agent with `Rules()` whose model records the instructions of each request."""
    seen: list[str] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info.instructions or '')
        return ModelResponse(parts=[TextPart('ok')])

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        seen.append(info.instructions or '')
        yield 'ok'

    agent: Agent[Any, str] = Agent(
        FunctionModel(answer, stream_function=stream, model_name='recorder'),
        name='ruled',
        instructions='You help with cases.',
        capabilities=[Rules(**options)],
    )
    return agent, seen


def opened(database_url: str) -> Store:
    return Store.open(database_url, Path('/nonexistent'))


def add(store: Store, text: str, **axes: Any) -> Rule:
    return book.add(store, book.RuleInput(text=text, **{'tenant': 'firm:7', **axes}))


async def test_rules_come_first_shared_then_personal_in_priority_order(database_url: str) -> None:
    synapse = Synapse(database_url=database_url, agents=[])
    async with synapse as syn:
        store = syn.runtime.store
        add(store, 'Second shared.', priority=5)
        add(store, 'First shared.', priority=1)
        add(store, 'Same priority, written later.', priority=5)  # after 'Second shared.': written later
        add(store, 'Maria likes bullet points.', applies_to='user:maria', priority=-10)
        add(store, 'About case 1.', subject='case:1', priority=3)
        paused = add(store, 'Paused rule.')
        book.update(store, paused.id, {'enabled': False})
        add(store, 'Juan only.', applies_to='user:juan')
        add(store, 'Case 2 only.', subject='case:2')
        add(store, 'Other firm.', tenant='firm:8')
        agent, seen = recording_agent()
        conv = await syn.conversation(agent, tenant=FIRM, actor=MARIA, subject=CASE)
        await conv.send('Hello')
    (sent,) = seen
    shared = [
        HEADINGS.rules_shared_heading,
        '- First shared.',
        '- About case 1.',
        '- Second shared.',
        '- Same priority, written later.',
    ]
    personal = [HEADINGS.rules_personal_heading, '- Maria likes bullet points.']
    assert sent == '\n'.join(shared) + '\n\n' + '\n'.join(personal) + '\n\nYou help with cases.'
    for absent in ('Paused rule.', 'Juan only.', 'Case 2 only.', 'Other firm.'):
        assert absent not in sent


async def test_every_request_of_the_run_gets_the_block_and_the_history_keeps_it(database_url: str) -> None:
    synapse = Synapse(database_url=database_url, agents=[])
    async with synapse as syn:
        add(syn.runtime.store, 'Never quote fees.')
        agent, seen = recording_agent()
        conv = await syn.conversation(agent, tenant=FIRM)
        await conv.send('one')
        await conv.send('two')
    assert len(seen) == 2
    assert all(sent.startswith(HEADINGS.rules_shared_heading + '\n- Never quote fees.') for sent in seen)


async def test_no_tenant_no_rules_and_headings_come_from_the_settings(
    database_url: str, tmp_path: Path
) -> None:
    synapse = Synapse(database_url=database_url, agents=[])
    async with synapse as syn:
        add(syn.runtime.store, 'Never quote fees.')
        agent, seen = recording_agent()
        await (await syn.conversation(agent)).send('no scope')  # the developer's own conversation
        custom = Settings(rules_shared_heading='MUST:', database_url=database_url)
        agent2, seen2 = recording_agent(store=syn.runtime.store, settings=custom)
        await (await syn.conversation(agent2, tenant=FIRM)).send('custom')
    assert seen == ['You help with cases.']
    assert seen2 == ['MUST:\n- Never quote fees.\n\nYou help with cases.']


async def test_outside_synapse_rules_need_a_store(database_url: str) -> None:
    agent, _ = recording_agent()
    with pytest.raises(RulesUnavailable, match=r'Rules\.of\(synapse\)'):
        await agent.run('hi', metadata={METADATA_KEY: Scope(tenant=FIRM).as_json()})
    rules = Rules.at(database_url)
    try:
        add(rules.store, 'Plain pydantic-ai runs get them too.')  # type: ignore[arg-type]
        agent2, seen = recording_agent(store=rules.store)
        await agent2.run('hi', metadata={METADATA_KEY: Scope(tenant=FIRM).as_json()})
    finally:
        rules.close()
    assert seen[0].startswith(HEADINGS.rules_shared_heading + '\n- Plain pydantic-ai runs get them too.')


async def test_the_agent_object_is_not_changed(database_url: str) -> None:
    agent, _ = recording_agent()
    before = (agent.name, agent.model, agent.root_capability)
    async with Synapse(database_url=database_url, agents=[]) as syn:
        add(syn.runtime.store, 'A rule.')
        await (await syn.conversation(agent, tenant=FIRM)).send('hi')
    assert (agent.name, agent.model, agent.root_capability) == before


# -- tenants and subjects never meet ---------------------------------------------------------

TENANTS = ['firm:7', 'firm:8', 'org:7']  # firm:7 and org:7 share the id, not the type
SUBJECTS = [None, 'case:1', 'case:2']
PEOPLE = [None, 'user:maria', 'user:juan']
rule_sets = st.lists(
    st.tuples(st.sampled_from(TENANTS), st.sampled_from(SUBJECTS), st.sampled_from(PEOPLE), st.booleans()),
    max_size=12,
)


def _pair(label: str | None) -> tuple[str, str] | None:
    return tuple(label.split(':', 1)) if label else None  # type: ignore[return-value]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rules=rule_sets,
    tenant=st.sampled_from(TENANTS),
    subject=st.sampled_from(SUBJECTS),
    actor=st.sampled_from(PEOPLE),
)
def test_a_scope_gets_exactly_its_own_rules(
    store: Store,
    rules: list[tuple[str, str | None, str | None, bool]],
    tenant: str,
    subject: str | None,
    actor: str | None,
) -> None:
    with store.write() as session:
        session.query(Rule).delete()
    for i, (t, s, a, on) in enumerate(rules):
        book.add(
            store, book.RuleInput(tenant=t, subject=s, applies_to=a, enabled=on, text=f'r{i} {t} {s} {a}')
        )
    found = book.in_scope(store, Scope(tenant=_pair(tenant), actor=_pair(actor), subject=_pair(subject)))
    expected_shared = [
        f'r{i} {t} {s} {a}'
        for i, (t, s, a, on) in enumerate(rules)
        if on and t == tenant and s in (None, subject) and a is None
    ]
    expected_personal = [
        f'r{i} {t} {s} {a}'
        for i, (t, s, a, on) in enumerate(rules)
        if on and t == tenant and s in (None, subject) and a is not None and a == actor
    ]
    assert found.shared == expected_shared
    assert found.personal == expected_personal
