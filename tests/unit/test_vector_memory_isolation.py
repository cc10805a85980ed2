"""Tenants never meet in vector memory, and forgetting a person touches no one else: property tests.

Random vector memories (both scopes) and memories across three tenants (two sharing an id), two
people and two conversations per tenant; then every recall, listing and privacy view asked for one
tenant, person and conversation is checked row by row: nothing of another tenant, and a recall
returns exactly the person's user-scoped rows and the conversation's conversation-scoped rows.
Forgetting a person removes exactly their rows in that tenant.
"""

from __future__ import annotations

import functools
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete, select

from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.conversations.tables import Conversation
from synapse_agents.memory import book
from synapse_agents.memory.recall import Recall
from synapse_agents.memory.tables import Memory, MemoryVector
from synapse_agents.retrieval import people, vector_memory
from synapse_agents.retrieval.memory_tables import VectorMemory
from synapse_agents.retrieval.vector_memory import VectorMemories, VectorMemoryFilters, VectorMemoryInput
from synapse_agents.settings import Settings
from synapse_agents.store import Store

pytestmark = pytest.mark.vectors

TENANTS = ['firm:7', 'firm:8', 'org:7']
PEOPLE = ['user:maria', 'user:juan']
CHATS = [0, 1]
SOURCES = ['fact', 'document', 'manual']

vector_ops = st.tuples(
    st.sampled_from(TENANTS),
    st.sampled_from(['user', 'conversation']),
    st.sampled_from([*PEOPLE, None]),
    st.sampled_from(CHATS),
    st.sampled_from(SOURCES),
)
memory_ops = st.tuples(
    st.sampled_from(TENANTS), st.sampled_from([*PEOPLE, None]), st.sampled_from([*PEOPLE, None])
)
asked = st.tuples(
    st.sampled_from(TENANTS),
    st.sampled_from([*PEOPLE, None]),
    st.sampled_from([*CHATS, None]),
    st.lists(st.sampled_from(SOURCES), unique=True, max_size=2),
)


def _reset(store: Store) -> dict[tuple[str, int], str]:
    """An empty store but for two conversations per tenant; their ids."""
    with store.write() as session:
        for table in (VectorMemory, MemoryVector, Memory, Conversation):
            session.execute(delete(table))
    repository = ConversationRepository(store)
    return {
        (tenant, n): repository.create(
            agent_key='a', tenant_type=tenant.split(':')[0], tenant_id=tenant.split(':')[1]
        ).id
        for tenant in TENANTS
        for n in CHATS
    }


async def _fill(
    store: Store,
    chats: dict[tuple[str, int], str],
    vectors: list[tuple[str, str, str | None, int, str]],
    memories: list[tuple[str, str | None, str | None]],
) -> None:
    writer = VectorMemories.of(store, Settings())
    for n, (tenant, scope, person, chat, source_type) in enumerate(vectors):
        if scope == 'user' and person is None:
            person = PEOPLE[n % 2]
        await writer.remember(
            VectorMemoryInput(
                tenant=tenant,
                content=f'note {n} of {tenant} for {person} in {scope} {chat}',
                scope=scope,
                person=person,
                conversation_id=chats[tenant, chat] if scope == 'conversation' else None,
                source_type=source_type,
            )
        )
    recall = Recall(store, Settings(embedder='off'), None, writer.index)
    await recall.remember(
        [
            book.MemoryInput(
                tenant=t, content=f'memory {n} of {t} about {s} for {a}', subject=s, applies_to=a
            )
            for n, (t, s, a) in enumerate(memories)
        ]
    )


def _everything(store: Store) -> list[VectorMemory]:
    with store.read() as session:
        rows = list(session.scalars(select(VectorMemory)))
        session.expunge_all()
    return rows


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    vectors=st.lists(vector_ops, max_size=12),
    memories=st.lists(memory_ops, max_size=6),
    questions=st.lists(asked, min_size=1, max_size=4),
)
def test_no_recall_listing_or_privacy_view_returns_another_tenants_rows(
    store: Store,
    vectors: list[Any],
    memories: list[Any],
    questions: list[tuple[str, str | None, int | None, list[str]]],
) -> None:
    chats = _reset(store)
    anyio.run(_fill, store, chats, vectors, memories)
    everything = _everything(store)
    reader = VectorMemories.of(store, Settings())
    for tenant, person, chat, source_types in questions:
        conversation_id = chats[tenant, chat] if chat is not None else None
        listed, _ = vector_memory.listing(store, VectorMemoryFilters(tenant=tenant), limit=200)
        assert {row.tenant for row in listed} <= {tenant}
        assert len(listed) == sum(row.tenant == tenant for row in everything)
        if person is not None:
            data = people.person_data(store, person, tenant)
            assert all(row.tenant == tenant and row.person == person for row in data.vector_memories)
            assert len(data.vector_memories) == sum(
                r.tenant == tenant and r.person == person for r in everything
            )
            assert all(row.tenant == tenant for row in data.memories)
            assert all(person in (row.applies_to, row.subject) for row in data.memories)
        if person is None and conversation_id is None:
            continue
        answer = anyio.run(
            functools.partial(
                reader.recall,
                'note',
                tenant=tenant,
                person=person,
                conversation_id=conversation_id,
                k=100,
                source_types=source_types,
            )
        )
        expected = {
            row.id
            for row in everything
            if row.tenant == tenant
            and (not source_types or row.source_type in source_types)
            and (
                (row.scope == 'user' and person is not None and row.person == person)
                or (row.scope == 'conversation' and row.conversation_id == conversation_id)
            )
        }
        assert {found.memory.id for found in answer.results} == expected
        assert all(found.memory.tenant == tenant for found in answer.results)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    vectors=st.lists(vector_ops, max_size=12),
    memories=st.lists(memory_ops, max_size=8),
    forgotten=st.tuples(st.sampled_from(TENANTS), st.sampled_from(PEOPLE)),
)
def test_forgetting_a_person_removes_exactly_their_rows_in_that_tenant(
    store: Store, vectors: list[Any], memories: list[Any], forgotten: tuple[str, str]
) -> None:
    tenant, person = forgotten
    chats = _reset(store)
    anyio.run(_fill, store, chats, vectors, memories)
    before = {row.id: row for row in _everything(store)}
    memories_before = {row.id: row for row in book.listing(store, book.MemoryFilters(), limit=200)[0]}

    gone = people.forget_person(store, person, tenant)

    def theirs_v(row: VectorMemory) -> bool:
        return row.tenant == tenant and row.person == person

    def theirs_m(row: Memory) -> bool:
        return row.tenant == tenant and person in (row.applies_to, row.subject)

    after = {row.id for row in _everything(store)}
    assert after == {i for i, row in before.items() if not theirs_v(row)}
    memories_after = {row.id for row in book.listing(store, book.MemoryFilters(), limit=200)[0]}
    assert memories_after == {i for i, row in memories_before.items() if not theirs_m(row)}
    assert gone.vector_memories == sum(theirs_v(row) for row in before.values())
    assert gone.memories == sum(theirs_m(row) for row in memories_before.values())
