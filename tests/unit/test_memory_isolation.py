"""Tenants never meet, and no person's memory reaches another person: a property test.

Random sequences of memories, rules and turns across three tenants (two sharing an id), subjects
and people. Each turn runs an agent with `Memory()` and `Rules()` whose model saves a memory, then
searches, then answers; everything the model is shown (its instructions, the tools' answers) is
checked: each memory or rule it names must be of the turn's tenant, about its subject or the whole
tenant, and for everyone or for the turn's own person.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from synapse_agents.capabilities import Memory, Rules
from synapse_agents.memory import book
from synapse_agents.memory.recall import Recall
from synapse_agents.memory.tables import Memory as MemoryRow
from synapse_agents.memory.tables import MemoryVector
from synapse_agents.rules import book as rules_book
from synapse_agents.rules.tables import Rule
from synapse_agents.scope import METADATA_KEY, Scope
from synapse_agents.settings import Settings
from synapse_agents.store import Store

pytestmark = pytest.mark.vectors

TENANTS = ['firm:7', 'firm:8', 'org:7']
SUBJECTS = [None, 'case:1', 'case:2']
PEOPLE = [None, 'user:maria', 'user:juan']
TAG = re.compile(r'<(m|r|s)\d+ t=(\S+) s=(\S+) a=(\S+)>')
axes = st.tuples(st.sampled_from(TENANTS), st.sampled_from(SUBJECTS), st.sampled_from(PEOPLE))
operations = st.lists(st.tuples(st.sampled_from(['memory', 'rule', 'turn']), axes), min_size=1, max_size=10)


def _pair(label: str | None) -> tuple[str, str] | None:
    return tuple(label.split(':', 1)) if label else None  # type: ignore[return-value]


def _tag(kind: str, n: int, t: str, s: str | None, a: str | None) -> str:
    return f'<{kind}{n} t={t} s={s} a={a}>'


def _turn_agent(store: Store, shown: list[str], save: str, personal: bool) -> Agent[None, str]:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        shown.append(info.instructions or '')
        returns = [p for p in messages[-1].parts if isinstance(p, ToolReturnPart)]
        shown.extend(str(p.content) for p in returns)
        names = {p.tool_name for p in returns}
        if not returns:
            args = {'content': save, 'about_this_person': personal}
            return ModelResponse(parts=[ToolCallPart('save_memory', args)])
        if 'save_memory' in names:
            return ModelResponse(parts=[ToolCallPart('search_memories', {'query': 'fact t= s= a=', 'k': 20})])
        return ModelResponse(parts=[TextPart('done')])

    return Agent(
        FunctionModel(model),
        capabilities=[Rules(store=store), Memory(store=store, settings=Settings())],
    )


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=operations, personal=st.booleans())
def test_nothing_crosses_a_tenant_or_a_person(
    store: Store, ops: list[tuple[str, Any]], personal: bool
) -> None:
    with store.write() as session:  # what earlier examples wrote
        session.query(Rule).delete()
        session.query(MemoryVector).delete()
        session.query(MemoryRow).delete()
    recall = Recall.of(store, Settings())
    memories: list[tuple[str, str, str | None, str | None]] = []
    for n, (kind, (t, s, a)) in enumerate(ops):
        if kind == 'memory':
            text = _tag('m', n, t, s, a)
            written = anyio.run(
                recall.remember, [book.MemoryInput(tenant=t, subject=s, applies_to=a, content=text)]
            )
            if written:  # else one that says the same was stored already (their tags differ by a digit)
                memories.append((text, t, s, a))
        elif kind == 'rule':
            rules_book.add(
                store, rules_book.RuleInput(tenant=t, subject=s, applies_to=a, text=_tag('r', n, t, s, a))
            )
        else:
            shown: list[str] = []
            saved = _tag('s', n, t, s, a if personal else None)
            agent = _turn_agent(store, shown, saved, personal)
            scope = Scope(tenant=_pair(t), subject=_pair(s), actor=_pair(a))
            anyio.run(functools.partial(agent.run, 'go', metadata={METADATA_KEY: scope.as_json()}))
            for seen_t, seen_s, seen_a in (m.groups()[1:] for text in shown for m in TAG.finditer(text)):
                assert seen_t == t, f'{seen_t} reached a turn of {t}'
                assert seen_s in ('None', str(s)), f'subject {seen_s} reached a turn about {s}'
                assert seen_a in ('None', str(a)), f"{seen_a}'s memory or rule reached {a}"
            everything = '\n'.join(shown)
            for text, mt, ms, ma in memories:  # and what the scope may see, it is shown
                if mt == t and ms in (None, s) and ma in (None, a):
                    assert text in everything, f'{text} was not shown to a turn of {t} {s} {a}'
            stored, _ = book.listing(store, book.MemoryFilters(tenant=t))
            if any(row.content == saved for row in stored):
                memories.append((saved, t, s, a if personal else None))
