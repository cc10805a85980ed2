"""The privacy view: everything stored about one person in a tenant, listed and deleted.

Real memories (the memory area's, written through its own service) and vector memories, on every
database; a person of the same id in another tenant, and another person, are never touched.
"""

from __future__ import annotations

from typing import Any

import pytest

from synapse_agents.accounting.tables import LlmCall
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.errors import VectorMemoryInvalid
from synapse_agents.memory import book
from synapse_agents.memory.recall import Recall
from synapse_agents.retrieval import people, vector_memory
from synapse_agents.retrieval.vector_memory import VectorMemories, VectorMemoryFilters, VectorMemoryInput
from synapse_agents.settings import Settings
from synapse_agents.store import Store

pytestmark = pytest.mark.anyio

FIRM, OTHER = 'firm:7', 'firm:8'
MARIA, JUAN = 'user:maria', 'user:juan'


async def fill(store: Store) -> dict[str, Any]:
    """María's, Juan's and the other firm's María's data; what was written."""
    memories = VectorMemories.of(store, Settings())
    recall = Recall.of(store, Settings())
    chat = ConversationRepository(store).create(agent_key='a', tenant_type='firm', tenant_id='7').id
    vectors = [
        await memories.remember(VectorMemoryInput(tenant=FIRM, content='María likes tea.', person=MARIA)),
        await memories.remember(
            VectorMemoryInput(
                tenant=FIRM,
                content='María asked about order 41.',
                scope='conversation',
                conversation_id=chat,
                person=MARIA,
            )
        ),
        await memories.remember(VectorMemoryInput(tenant=FIRM, content='Juan likes coffee.', person=JUAN)),
        await memories.remember(
            VectorMemoryInput(
                tenant=FIRM, content='Nobody in particular.', scope='conversation', conversation_id=chat
            )
        ),
        await memories.remember(
            VectorMemoryInput(tenant=OTHER, content='Other María likes milk.', person=MARIA)
        ),
    ]
    written = await recall.remember(
        [
            book.MemoryInput(tenant=FIRM, content='María wants bullet points.', applies_to=MARIA),
            book.MemoryInput(tenant=FIRM, content='María was born in Porto.', subject=MARIA),
            book.MemoryInput(
                tenant=FIRM, content='María chose the blue plan.', subject=MARIA, applies_to=MARIA
            ),
            book.MemoryInput(tenant=FIRM, content='Invoices go out fortnightly.'),
            book.MemoryInput(tenant=FIRM, content='Juan wants long answers.', applies_to=JUAN),
            book.MemoryInput(tenant=FIRM, content='Juan asked about María.', subject=JUAN, applies_to=JUAN),
            book.MemoryInput(tenant=OTHER, content='Other María wants tables.', applies_to=MARIA),
            book.MemoryInput(tenant=OTHER, content='Other María lives in Faro.', subject=MARIA),
        ]
    )
    return {'chat': chat, 'vectors': vectors, 'memories': written}


async def test_the_view_lists_everything_about_the_person_in_the_tenant_and_nothing_else(
    store: Store,
) -> None:
    await fill(store)
    data = people.person_data(store, MARIA, FIRM)
    assert (data.person, data.tenant) == (MARIA, FIRM)
    assert [row.content for row in data.vector_memories] == [
        'María asked about order 41.',
        'María likes tea.',
    ]
    assert [row.content for row in data.memories] == [
        'María chose the blue plan.',
        'María was born in Porto.',
        'María wants bullet points.',
    ]
    assert data.ledger_rows == 2  # the two embedding calls of her vector memories
    other = people.person_data(store, MARIA, OTHER)
    assert [row.content for row in other.vector_memories] == ['Other María likes milk.']
    assert [row.content for row in other.memories] == [
        'Other María lives in Faro.',
        'Other María wants tables.',
    ]


async def test_forgetting_deletes_all_of_it_keeps_the_ledger_and_nothing_of_anyone_else(store: Store) -> None:
    written = await fill(store)
    with store.read() as session:
        ledger_before = session.query(LlmCall).count()

    gone = people.forget_person(store, MARIA, FIRM)

    assert (gone.vector_memories, gone.memories, gone.ledger_rows_kept) == (2, 3, 2)
    after = people.person_data(store, MARIA, FIRM)
    assert after.vector_memories == [] and after.memories == []
    assert after.ledger_rows == 2
    with store.read() as session:
        assert session.query(LlmCall).count() == ledger_before
    rows, _ = vector_memory.listing(store, VectorMemoryFilters(tenant=FIRM))
    assert sorted(row.content for row in rows) == ['Juan likes coffee.', 'Nobody in particular.']
    left, _ = book.listing(store, book.MemoryFilters(tenant=FIRM))
    assert sorted(row.content for row in left) == [
        'Invoices go out fortnightly.',
        'Juan asked about María.',
        'Juan wants long answers.',
    ]
    other = people.person_data(store, MARIA, OTHER)
    assert len(other.vector_memories) == 1 and len(other.memories) == 2
    assert len(people.person_data(store, JUAN, FIRM).memories) == 2
    again = people.forget_person(store, MARIA, FIRM)
    assert (again.vector_memories, again.memories) == (0, 0)
    assert written['chat']  # her conversation itself is the conversations' to delete
    assert ConversationRepository(store).get(written['chat']) is not None


@pytest.mark.parametrize(
    ('person', 'tenant', 'field'), [('maria', FIRM, 'person'), (MARIA, '', 'tenant'), (MARIA, 'x', 'tenant')]
)
def test_a_person_or_tenant_that_is_not_a_label_is_refused(
    store: Store, person: str, tenant: str, field: str
) -> None:
    for call in (people.person_data, people.forget_person):
        with pytest.raises(VectorMemoryInvalid) as refused:
            call(store, person, tenant)
        assert refused.value.field == field
