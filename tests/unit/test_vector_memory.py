"""Vector memory: writing, recall by meaning and by recency, listing, forgetting, and conversations.

On SQLite (sqlite-vec), PostgreSQL without pgvector (exact in Python) and PostgreSQL with pgvector
(`vectors` marker), with the offline embedder; the only fake is an embedding model that fails.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai.embeddings import Embedder
from sqlalchemy import delete, select

from embedding_fakes import FailingEmbeddings
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.conversations.tables import Conversation
from synapse_agents.errors import VectorMemoryInvalid, VectorMemoryNotFound
from synapse_agents.retrieval import vector_memory
from synapse_agents.retrieval.memory_tables import VectorMemory
from synapse_agents.retrieval.vector_memory import VectorMemories, VectorMemoryFilters, VectorMemoryInput
from synapse_agents.settings import Settings
from synapse_agents.store import Store

pytestmark = [pytest.mark.anyio, pytest.mark.vectors]

FIRM = 'firm:7'
MARIA, JUAN = 'user:maria', 'user:juan'


def mine(content: str, person: str = MARIA, tenant: str = FIRM, **more: Any) -> VectorMemoryInput:
    return VectorMemoryInput(tenant=tenant, content=content, person=person, **more)


def of_conversation(content: str, conversation_id: str, tenant: str = FIRM, **more: Any) -> VectorMemoryInput:
    return VectorMemoryInput(
        tenant=tenant, content=content, scope='conversation', conversation_id=conversation_id, **more
    )


def conversation(store: Store, tenant: str = FIRM) -> str:
    kind, ident = tenant.split(':', 1)
    return ConversationRepository(store).create(agent_key='a', tenant_type=kind, tenant_id=ident).id


def ledger(store: Store) -> list[LlmCall]:
    with store.read() as session:
        rows = list(session.scalars(select(LlmCall).order_by(LlmCall.created_at)))
        session.expunge_all()
    return rows


async def test_recall_ranks_a_person_and_a_conversation_by_meaning_and_sees_nothing_else(
    store: Store, dialect: str
) -> None:
    memories = VectorMemories.of(store, Settings())
    assert (
        memories.index.kind
        == {'sqlite': 'sqlite-vec', 'postgresql': 'exact', 'pgvector': 'pgvector'}[dialect]
    )
    chat, other_chat = conversation(store), conversation(store)
    elsewhere = conversation(store, 'firm:8')
    for memory in (
        mine('María keeps two cats and a dog at home.', source_type='fact'),
        mine('María prefers invoices sent by e-mail.', source_type='fact'),
        mine('Juan has a parrot called Rio.', person=JUAN),
        mine('María of the other firm owns a horse.', tenant='firm:8'),
        of_conversation(
            'In this chat we talk about the hamster she is adopting.', chat, source_type='document'
        ),
        of_conversation('Another chat: a goldfish.', other_chat),
        of_conversation('The other firm: a tortoise.', elsewhere, tenant='firm:8'),
    ):
        await memories.remember(memory)

    answer = await memories.recall(
        'Which pets does she have?', tenant=FIRM, person=MARIA, conversation_id=chat, k=10
    )

    assert answer.ranked_by == 'similarity'
    assert answer.embedder == 'local:all-MiniLM-L6-v2-int8'
    contents = [found.memory.content for found in answer.results]
    assert sorted(contents) == sorted(
        [
            'María keeps two cats and a dog at home.',
            'María prefers invoices sent by e-mail.',
            'In this chat we talk about the hamster she is adopting.',
        ]
    )
    assert contents[-1] == 'María prefers invoices sent by e-mail.'  # the least like pets
    scores = [found.score for found in answer.results]
    assert all(s is not None for s in scores) and scores == sorted(scores, reverse=True)  # type: ignore[type-var]
    only_facts = await memories.recall(
        'pets', tenant=FIRM, person=MARIA, conversation_id=chat, source_types=['fact']
    )
    assert {f.memory.source_type for f in only_facts.results} == {'fact'}
    only_chat = await memories.recall('pets', tenant=FIRM, conversation_id=chat)
    assert [f.memory.content for f in only_chat.results] == [
        'In this chat we talk about the hamster she is adopting.'
    ]
    first = await memories.recall('pets', tenant=FIRM, person=MARIA, k=1)
    assert [f.memory.content for f in first.results] == ['María keeps two cats and a dog at home.']


async def test_each_embedding_call_is_a_ledger_row_of_module_rag(store: Store) -> None:
    memories = VectorMemories.of(store, Settings())
    chat = conversation(store)
    await memories.remember(mine('María likes tea.'))
    await memories.remember(of_conversation('We discussed the tea order.', chat, person=MARIA))
    await memories.recall('tea', tenant=FIRM, person=MARIA, conversation_id=chat)
    rows = ledger(store)
    assert len(rows) == 3
    assert {r.module for r in rows} == {'rag'}
    assert all(r.tenant == FIRM and r.user == MARIA for r in rows)
    assert [r.conversation_id for r in rows] == [None, chat, chat]
    assert all(r.cost == 0 and r.price_source == 'local' and r.input_tokens > 0 for r in rows)


async def test_without_an_embedder_or_when_it_fails_recall_is_by_recency_and_nothing_is_lost(
    store: Store,
) -> None:
    plain = VectorMemories.of(store, Settings(embedder='off'))
    assert plain.embedder is None
    await plain.remember(mine('Older: María likes tea.'))
    await plain.remember(mine('Newer: María likes coffee.'))
    down = VectorMemories(store, Settings(), Embedder(FailingEmbeddings()), plain.index)
    kept = await down.remember(mine('Newest: written while the embedder was down.'))
    assert kept.embedder is None and kept.embedding is None and kept.dimensions is None
    answer = await down.recall('tea', tenant=FIRM, person=MARIA)
    assert answer.ranked_by == 'recency'
    assert [f.memory.content for f in answer.results] == [
        'Newest: written while the embedder was down.',
        'Newer: María likes coffee.',
        'Older: María likes tea.',
    ]
    assert all(f.score is None for f in answer.results)
    assert ledger(store) == []  # no call answered: nothing to charge
    # The offline embedder on: the unembedded ones still come, after the ranked one.
    local = VectorMemories.of(store, Settings())
    await local.remember(mine('María pays by bank transfer.'))
    ranked = await local.recall('how does she pay', tenant=FIRM, person=MARIA, k=3)
    assert ranked.ranked_by == 'similarity'
    assert ranked.results[0].memory.content == 'María pays by bank transfer.'
    assert ranked.results[0].score is not None
    assert [(f.memory.content, f.score) for f in ranked.results[1:]] == [
        ('Newest: written while the embedder was down.', None),
        ('Newer: María likes coffee.', None),
    ]


@pytest.mark.parametrize(
    ('memory', 'field'),
    [
        (VectorMemoryInput(tenant=FIRM, content='x'), 'person'),  # user scope needs a person
        (VectorMemoryInput(tenant='', content='x', person=MARIA), 'tenant'),
        (VectorMemoryInput(tenant='firm', content='x', person=MARIA), 'tenant'),
        (VectorMemoryInput(tenant=FIRM, content='x', person='maria'), 'person'),
        (VectorMemoryInput(tenant=FIRM, content='  ', person=MARIA), 'content'),
        (VectorMemoryInput(tenant=FIRM, content='a\x00b', person=MARIA), 'content'),
        (VectorMemoryInput(tenant=FIRM, content='x' * 20_001, person=MARIA), 'content'),
        (VectorMemoryInput(tenant=FIRM, content='x', person=MARIA, scope='forever'), 'scope'),
        (VectorMemoryInput(tenant=FIRM, content='x', person=MARIA, source_type='rumour'), 'source_type'),
        (VectorMemoryInput(tenant=FIRM, content='x', person=MARIA, meta=[1]), 'meta'),  # type: ignore[arg-type]
        (VectorMemoryInput(tenant=FIRM, content='x', person=MARIA, meta={'a': 'b\x00'}), 'meta'),
        (VectorMemoryInput(tenant=FIRM, content='x', person=MARIA, meta={'a': float('nan')}), 'meta'),
        (VectorMemoryInput(tenant=FIRM, content='x', person=MARIA, meta={'a': 'x' * 20_000}), 'meta'),
        (
            VectorMemoryInput(tenant=FIRM, content='x', person=MARIA, conversation_id='0' * 36),
            'conversation_id',
        ),
        (VectorMemoryInput(tenant=FIRM, content='x', scope='conversation'), 'conversation_id'),
        (
            VectorMemoryInput(tenant=FIRM, content='x', scope='conversation', conversation_id='nope'),
            'conversation_id',
        ),
    ],
)
async def test_a_memory_that_cannot_be_stored_is_refused_naming_the_field(
    store: Store, memory: VectorMemoryInput, field: str
) -> None:
    memories = VectorMemories.of(store, Settings(embedder='off'))
    with pytest.raises(VectorMemoryInvalid) as refused:
        await memories.remember(memory)
    assert refused.value.field == field
    assert vector_memory.listing(store, VectorMemoryFilters(tenant=FIRM))[0] == []


async def test_a_conversation_scoped_memory_names_one_of_its_tenants_conversations(store: Store) -> None:
    memories = VectorMemories.of(store, Settings(embedder='off'))
    theirs = conversation(store, 'firm:8')
    playground = ConversationRepository(store).create(agent_key='a').id
    missing = conversation(store)
    ConversationRepository(store).delete(missing)
    for conversation_id in (theirs, playground, missing):
        with pytest.raises(VectorMemoryInvalid) as refused:
            await memories.remember(of_conversation('x', conversation_id))
        assert refused.value.field == 'conversation_id'
    assert vector_memory.listing(store, VectorMemoryFilters(tenant=FIRM))[0] == []


async def test_recall_needs_a_person_or_a_conversation_and_a_sane_k(store: Store) -> None:
    memories = VectorMemories.of(store, Settings(embedder='off'))
    for kwargs, field in (
        ({}, 'person'),
        ({'person': MARIA, 'k': 0}, 'k'),
        ({'person': MARIA, 'k': 101}, 'k'),
        ({'person': 'maria'}, 'person'),
        ({'person': MARIA, 'source_types': ['rumour']}, 'source_type'),
    ):
        with pytest.raises(VectorMemoryInvalid) as refused:
            await memories.recall('tea', tenant=FIRM, **kwargs)
        assert refused.value.field == field
    with pytest.raises(VectorMemoryInvalid) as refused:
        await memories.recall('   ', tenant=FIRM, person=MARIA)
    assert refused.value.field == 'q'


async def test_listing_filters_and_pages_within_one_tenant(store: Store) -> None:
    memories = VectorMemories.of(store, Settings(embedder='off'))
    chat = conversation(store)
    written = [await memories.remember(mine(f'fact {n}', source_type='fact')) for n in range(3)]
    written.append(await memories.remember(mine('Juan', person=JUAN)))
    written.append(await memories.remember(of_conversation('chat note', chat)))
    await memories.remember(mine('other tenant', tenant='firm:8'))

    def listed(**filters: Any) -> list[str]:
        rows, _ = vector_memory.listing(store, VectorMemoryFilters(tenant=FIRM, **filters))
        return [row.content for row in rows]

    assert listed() == ['chat note', 'Juan', 'fact 2', 'fact 1', 'fact 0']
    assert listed(person=MARIA) == ['fact 2', 'fact 1', 'fact 0']
    assert listed(person='') == ['chat note']
    assert listed(scope='conversation') == ['chat note']
    assert listed(conversation_id=chat) == ['chat note']
    assert listed(conversation_id='not-an-id') == []
    assert listed(source_type='fact') == ['fact 2', 'fact 1', 'fact 0']
    page, cursor = vector_memory.listing(store, VectorMemoryFilters(tenant=FIRM), limit=2)
    assert [row.content for row in page] == ['chat note', 'Juan'] and cursor == written[3].id
    rest, last = vector_memory.listing(store, VectorMemoryFilters(tenant=FIRM), cursor=cursor, limit=10)
    assert [row.content for row in rest] == ['fact 2', 'fact 1', 'fact 0'] and last is None
    with pytest.raises(VectorMemoryInvalid):
        vector_memory.listing(store, VectorMemoryFilters(tenant=FIRM, scope='forever'))
    with pytest.raises(VectorMemoryInvalid):
        vector_memory.listing(store, VectorMemoryFilters(tenant=''))


async def test_forget_deletes_one_memory_and_only_within_the_tenant_named(store: Store) -> None:
    memories = VectorMemories.of(store, Settings())
    row = await memories.remember(mine('María likes tea.'))
    keep = await memories.remember(mine('María likes coffee.'))
    with pytest.raises(VectorMemoryNotFound):
        vector_memory.forget(store, row.id, 'firm:8')
    assert vector_memory.forget(store, row.id, FIRM).id == row.id
    with pytest.raises(VectorMemoryNotFound):
        vector_memory.forget(store, row.id)
    with pytest.raises(VectorMemoryNotFound):
        vector_memory.get(store, 'not-an-id')
    assert vector_memory.get(store, keep.id).content == 'María likes coffee.'
    answer = await memories.recall('tea', tenant=FIRM, person=MARIA)
    assert [f.memory.id for f in answer.results] == [keep.id]


async def test_deleting_a_conversation_removes_its_memories_and_no_others(store: Store) -> None:
    memories = VectorMemories.of(store, Settings())
    gone, kept = conversation(store), conversation(store)
    await memories.remember(of_conversation('Ephemeral: the order number is 41.', gone, person=MARIA))
    await memories.remember(of_conversation('Ephemeral too.', gone))
    await memories.remember(of_conversation('Of the conversation kept.', kept))
    permanent = await memories.remember(mine('Permanent: María likes tea.'))

    report = ConversationRepository(store).delete(gone)

    assert report.removed('vector_memories') == 2
    rows, _ = vector_memory.listing(store, VectorMemoryFilters(tenant=FIRM))
    assert sorted(row.content for row in rows) == ['Of the conversation kept.', 'Permanent: María likes tea.']
    answer = await memories.recall('order number', tenant=FIRM, person=MARIA, conversation_id=gone)
    assert [f.memory.id for f in answer.results] == [permanent.id]
    assert len(ledger(store)) == 5  # the ledger is the books: its rows outlive the conversation
    cleared = ConversationRepository(store).clear()
    assert cleared.removed('vector_memories') == 1
    assert [row.id for row in vector_memory.listing(store, VectorMemoryFilters(tenant=FIRM))[0]] == [
        permanent.id
    ]


async def test_the_sweep_removes_conversation_memories_whose_conversation_is_gone(store: Store) -> None:
    memories = VectorMemories.of(store, Settings(embedder='off'))
    chat = conversation(store)
    await memories.remember(of_conversation('left behind', chat))
    await memories.remember(mine('permanent'))
    with store.write() as session:  # the conversation's row alone, as a crash between two writes leaves it
        session.execute(delete(Conversation).where(Conversation.id == chat))
    with store.write() as session:
        swept = store.tables.delete_orphans(session.connection(), 'conversation')
    assert swept.removed('vector_memories') == 1
    with store.read() as session:
        assert [row.content for row in session.scalars(select(VectorMemory))] == ['permanent']
