"""The table registry: a table declared once is deleted, counted and reported with its owner."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Column, MetaData, String, Table, Text, insert, select

from synapse_agents.accounting.tables import LlmCall
from synapse_agents.compression import tables as _compression_tables  # noqa: F401  (every area's tables)
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.conversations.tables import Conversation, Message, ToolInvocation
from synapse_agents.privacy import tables as _privacy_tables  # noqa: F401  (not loaded by the others)
from synapse_agents.store import Store
from synapse_agents.store.ids import new_id
from synapse_agents.store.tables import TableRegistry, registry

scratch = MetaData()
notes = Table(
    'registry_test_notes',
    scratch,
    Column('id', String(36), primary_key=True),
    Column('conversation_id', String(36), nullable=True),
    Column('body', Text, nullable=False),
)


@pytest.fixture
def notes_store(store: Store) -> Iterator[Store]:
    """The test database with one more table, declared in a copy of the registry."""
    scratch.create_all(store.engine)
    tables = store.tables.copy()
    tables.register(notes, owner='conversation', key='conversation_id')
    try:
        yield Store(store.engine, store.attachments_dir, tables=tables)
    finally:
        scratch.drop_all(store.engine)


def add_note(store: Store, conversation_id: str | None, body: str = 'note') -> None:
    with store.write() as session:
        session.execute(insert(notes).values(id=new_id(), conversation_id=conversation_id, body=body))


def note_owners(store: Store) -> list[str | None]:
    with store.read() as session:
        return sorted(session.scalars(select(notes.c.conversation_id)), key=str)


def test_synapse_tables_are_declared_once_with_their_owner() -> None:
    declared = {t.name: (t.owner, t.key, t.root, t.kept) for t in registry}
    assert declared['conversations'] == ('conversation', 'id', True, False)
    for table in (Message, ToolInvocation):
        assert declared[table.__tablename__] == ('conversation', 'conversation_id', False, False)
    # The ledger names its conversation but outlives it.
    assert declared[LlmCall.__tablename__] == ('conversation', 'conversation_id', False, True)
    assert registry.root('conversation').table is Conversation.__table__


def test_a_registered_table_is_deleted_counted_and_reported(notes_store: Store) -> None:
    store = notes_store
    keep = ConversationRepository(store).create(agent_key='a')
    gone = ConversationRepository(store).create(agent_key='a')
    for conversation_id in (keep.id, gone.id, gone.id):
        add_note(store, conversation_id)
    assert store.counts()['registry_test_notes'] == 3

    report = ConversationRepository(store).delete(gone.id)

    assert report.as_dict() == {
        'conversations': 1,
        'messages': 0,
        'tool_invocations': 0,
        'llm_calls': 0,
        'trace_runs': 0,
        'debug_logs': 0,
        'trace_tools': 0,
        'history_summaries': 0,
        'prompt_contexts': 0,
        'memory_cursors': 0,
        'privacy_vaults': 0,
        'vector_memories': 0,
        'registry_test_notes': 2,
        'files': 0,
        'bytes': 0,
    }
    assert note_owners(store) == [keep.id]
    assert store.counts()['registry_test_notes'] == 1


def test_prune_and_clear_cover_a_registered_table(notes_store: Store) -> None:
    store = notes_store
    old = ConversationRepository(store).create(agent_key='a')
    fresh = ConversationRepository(store).create(agent_key='a')
    add_note(store, old.id)
    add_note(store, fresh.id)
    add_note(store, new_id(), 'its conversation row is gone')
    add_note(store, None, 'belongs to no conversation')
    with store.write() as session:
        row = session.get(Conversation, old.id)
        assert row is not None
        row.updated_at = datetime.now(UTC) - timedelta(days=10)

    pruned = ConversationRepository(store).prune(7)
    assert (pruned.conversations, pruned.removed('registry_test_notes')) == (1, 1)
    assert old.id not in note_owners(store) and fresh.id in note_owners(store)

    cleared = ConversationRepository(store).clear()
    # One note went with its conversation, one whose conversation was already gone as an orphan.
    assert (cleared.conversations, cleared.removed('registry_test_notes')) == (1, 2)
    assert note_owners(store) == [None]
    assert store.counts()['registry_test_notes'] == 1


def test_the_process_registry_is_untouched_by_a_copy(notes_store: Store) -> None:
    assert 'registry_test_notes' in notes_store.tables
    assert 'registry_test_notes' not in registry


def test_a_bad_declaration_is_refused() -> None:
    tables = TableRegistry()
    tables.register(notes, owner='conversation', key='conversation_id')
    assert tables.register(notes, owner='conversation', key='conversation_id').name == notes.name
    with pytest.raises(ValueError, match='already registered'):
        tables.register(notes, owner='task', key='conversation_id')
    with pytest.raises(ValueError, match="no column 'task_id'"):
        TableRegistry().register(notes, owner='task', key='task_id')
    tables.register(Conversation, owner='conversation', key='id', root=True)
    other = Table('registry_test_other', MetaData(), Column('id', String(36), primary_key=True))
    with pytest.raises(ValueError, match='already has a root'):
        tables.register(other, owner='conversation', key='id', root=True)
    with pytest.raises(TypeError, match='not a table'):
        tables.register(object(), owner='conversation', key='id')
    with pytest.raises(ValueError, match='cannot be kept'):
        TableRegistry().register(other, owner='conversation', key='id', root=True, kept=True)


def test_the_orphan_sweep_keeps_rows_of_a_conversation_that_exists(notes_store: Store) -> None:
    store = notes_store
    alive = ConversationRepository(store).create(agent_key='a')
    add_note(store, alive.id)
    add_note(store, new_id(), 'its conversation row is gone')
    with store.write() as session:
        session.add(Message(conversation_id=alive.id, role='user', content='kept'))
        session.add(Message(conversation_id=new_id(), role='user', content='orphan'))
    with store.write() as session:
        report = store.tables.delete_orphans(session.connection(), 'conversation')
    assert (report.messages, report.removed('registry_test_notes'), report.conversations) == (1, 1, 0)
    assert note_owners(store) == [alive.id]
    assert [m.content for m in ConversationRepository(store).messages(alive.id)] == ['kept']
