"""The store on every selected database: migrations, round trips, cascades, retention."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, select, text

from synapse_agents.accounting.tables import LlmCall
from synapse_agents.compression import tables as _compression_tables  # noqa: F401  (every area's tables)
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.conversations.tables import Conversation, Message, ToolInvocation
from synapse_agents.errors import StoreNotReady
from synapse_agents.evals import tables as _eval_tables  # noqa: F401  (not loaded by the others)
from synapse_agents.privacy import tables as _privacy_tables  # noqa: F401  (not loaded by the others)
from synapse_agents.retrieval import tables as _retrieval_tables  # noqa: F401  (not loaded by the others)
from synapse_agents.settings import Settings
from synapse_agents.store import Store, current_revision, head_revision, upgrade
from synapse_agents.store.ids import new_id
from synapse_agents.store.migrate import VERSION_TABLE, downgrade
from synapse_agents.store.schema import Base
from synapse_agents.store.search_index import include_name
from synapse_agents.store.setup import open_store
from synapse_agents.workflows import tables as _workflow_tables  # noqa: F401  (not loaded by the others)


def test_migrations_up_down_up(store: Store) -> None:
    assert current_revision(store.engine) == head_revision()
    tables = set(inspect(store.engine).get_table_names())
    assert {'conversations', 'messages', 'tool_invocations', 'llm_calls', VERSION_TABLE} <= tables
    downgrade(store.engine, 'base')
    assert current_revision(store.engine) is None
    assert 'conversations' not in inspect(store.engine).get_table_names()
    assert upgrade(store.engine) == head_revision()


def test_migrations_match_the_models(store: Store) -> None:
    with store.engine.connect() as connection:
        context = MigrationContext.configure(
            connection,
            opts={'compare_type': True, 'version_table': VERSION_TABLE, 'include_name': include_name},
        )
        diff = compare_metadata(context, Base.metadata)
    assert diff == []


def test_history_list_indexes_exist(store: Store) -> None:
    indexes = {ix['name'] for ix in inspect(store.engine).get_indexes('conversations')}
    assert {
        'ix_conversations_updated_at',
        'ix_conversations_agent_updated',
        'ix_conversations_error_updated',
    } <= indexes
    tool_indexes = {ix['name'] for ix in inspect(store.engine).get_indexes('tool_invocations')}
    assert 'ix_tool_invocations_name_conversation' in tool_indexes


def test_sqlite_runs_in_wal_mode_with_busy_timeout(tmp_path: Path) -> None:
    store = Store.open(f'sqlite:///{tmp_path / "s.db"}', tmp_path)
    with store.engine.connect() as connection:
        assert connection.execute(text('PRAGMA journal_mode')).scalar() == 'wal'
        assert connection.execute(text('PRAGMA busy_timeout')).scalar() == 10_000
    store.close()


def fill_conversation(store: Store, *, files: int = 2) -> Conversation:
    conversation = ConversationRepository(store).create(
        agent_key='demo.support', agent_name='support', title='Hello'
    )
    with store.write() as session:
        user = Message(
            conversation_id=conversation.id,
            role='user',
            content='Where is order 42?',
            attachments=[{'name': 'a.txt', 'path': f'{conversation.id}/x/0-a.txt', 'size': 3}],
        )
        session.add(user)
        session.add(
            Message(
                conversation_id=conversation.id,
                role='assistant',
                content='Shipped.',
                model_messages=[{'kind': 'response', 'parts': []}],
                usage={'input_tokens': 10, 'output_tokens': 3},
                input_tokens=10,
                output_tokens=3,
                cost=None,
                meta={'model': 'synapse-demo', 'provider': 'synapse'},
            )
        )
        session.add(
            ToolInvocation(
                conversation_id=conversation.id,
                tool_call_id='call_1',
                name='lookup_order',
                arguments={'order_id': '42'},
                result={'status': 'shipped', 'nested': [1, 2]},
                status='success',
            )
        )
        session.add(
            LlmCall(conversation_id=conversation.id, module='chat', provider='synapse', input_tokens=10)
        )
    folder = ConversationRepository(store).files_dir(conversation.id) / 'x'
    folder.mkdir(parents=True)
    for index in range(files):
        (folder / f'{index}-a.txt').write_bytes(b'abc')
    return conversation


def test_round_trip_keeps_json_and_utc_times(store: Store) -> None:
    conversation = fill_conversation(store)
    loaded = ConversationRepository(store).get(conversation.id)
    assert loaded is not None
    assert loaded.title == 'Hello'
    assert loaded.created_at.tzinfo is not None
    assert abs(loaded.created_at - datetime.now(UTC)) < timedelta(minutes=1)
    messages = ConversationRepository(store).messages(conversation.id)
    assert [m.role for m in messages] == ['user', 'assistant']
    assert messages[0].attachments[0]['name'] == 'a.txt'
    assert messages[1].meta == {'model': 'synapse-demo', 'provider': 'synapse'}
    assert messages[1].cost is None
    tools = ConversationRepository(store).tool_invocations(conversation.id)
    assert tools[0].result == {'status': 'shipped', 'nested': [1, 2]}
    assert tools[0].started_at.tzinfo is not None


def test_ids_are_time_ordered(store: Store) -> None:
    first = ConversationRepository(store).create(agent_key='a')
    second = ConversationRepository(store).create(agent_key='a')
    assert first.id < second.id
    assert len(first.id) == 36


def test_rename(store: Store) -> None:
    conversation = ConversationRepository(store).create(agent_key='a', title='old')
    renamed = ConversationRepository(store).rename(conversation.id, 'new title')
    assert renamed is not None and renamed.title == 'new title'
    assert ConversationRepository(store).get(conversation.id).title == 'new title'  # type: ignore[union-attr]
    assert ConversationRepository(store).rename('missing', 'x') is None


def test_renaming_is_not_activity(store: Store) -> None:
    """A rename keeps `updated_at`, so "newest first" and retention do not count it."""
    older = ConversationRepository(store).create(agent_key='a', title='older')
    newer = ConversationRepository(store).create(agent_key='a', title='newer')
    before = ConversationRepository(store).get(older.id)
    assert before is not None
    ConversationRepository(store).rename(older.id, 'renamed later')
    after = ConversationRepository(store).get(older.id)
    assert after is not None and after.updated_at == before.updated_at
    assert newer.updated_at >= after.updated_at


@pytest.mark.parametrize(
    ('message', 'title'),
    [
        ('Short question', 'Short question'),
        ('  spaces   are\n collapsed ', 'spaces are collapsed'),
        ('word ' * 18 + 'exactly100', 'word ' * 18 + 'exactly100'),
        ('alpha ' * 30, ('alpha ' * 16).rstrip() + '…'),
        ('x' * 150, 'x' * 99 + '…'),
    ],
)
def test_a_title_is_cut_at_a_word_with_an_ellipsis(message: str, title: str) -> None:
    from synapse_agents.conversations.turn_writes import TITLE_LENGTH, title_from

    made = title_from(message)
    assert made == title and len(made) <= TITLE_LENGTH


def test_delete_cascades_to_rows_and_files(store: Store) -> None:
    keep = fill_conversation(store, files=1)
    gone = fill_conversation(store, files=2)
    report = ConversationRepository(store).delete(gone.id)
    assert report.as_dict() == {
        'conversations': 1,
        'messages': 2,
        'tool_invocations': 1,
        'llm_calls': 0,
        'trace_runs': 0,
        'debug_logs': 0,
        'trace_tools': 0,
        'history_summaries': 0,
        'prompt_contexts': 0,
        'memory_cursors': 0,
        'privacy_vaults': 0,
        'vector_memories': 0,
        'files': 2,
        'bytes': 6,
    }
    assert not ConversationRepository(store).files_dir(gone.id).exists()
    assert ConversationRepository(store).get(gone.id) is None
    with store.read() as session:
        assert session.scalars(select(Message).where(Message.conversation_id == gone.id)).all() == []
        # The ledger is the books: its row outlives the conversation, still naming it.
        assert len(session.scalars(select(LlmCall).where(LlmCall.conversation_id == gone.id)).all()) == 1
    assert ConversationRepository(store).get(keep.id) is not None
    assert ConversationRepository(store).files_dir(keep.id).exists()
    assert len(ConversationRepository(store).messages(keep.id)) == 2


def test_prune_removes_only_old_conversations(store: Store) -> None:
    old = fill_conversation(store)
    fresh = fill_conversation(store)
    with store.write() as session:
        row = session.get(Conversation, old.id)
        assert row is not None
        row.updated_at = datetime.now(UTC) - timedelta(days=10)
    assert ConversationRepository(store).count_older_than(7) == 1
    report = ConversationRepository(store).prune(7)
    assert report.conversations == 1 and report.messages == 2 and report.files == 2
    assert ConversationRepository(store).get(old.id) is None
    assert ConversationRepository(store).get(fresh.id) is not None
    assert ConversationRepository(store).prune(7).rows == 0


def test_clear_removes_everything_including_orphans(store: Store) -> None:
    fill_conversation(store)
    fill_conversation(store)
    with store.write() as session:
        session.add(Message(conversation_id='orphan', role='user', content='left behind'))
        session.add(LlmCall(conversation_id=None, module='task', input_tokens=1))
    # A crash's leftover: a folder named with an id whose conversation row is gone.
    orphan_file = store.attachments_dir / new_id() / 'f.bin'
    orphan_file.parent.mkdir(parents=True)
    orphan_file.write_bytes(b'12345')
    report = ConversationRepository(store).clear()
    assert report.conversations == 2
    assert report.messages == 5
    assert report.files == 5
    counts = store.counts()
    assert counts['conversations'] == 0 and counts['messages'] == 0 and counts['tool_invocations'] == 0
    # The ledger is the books: the two conversations' rows and the one of no conversation stay.
    assert counts['llm_calls'] == 3 and report.llm_calls == 0
    assert list(store.attachments_dir.iterdir()) == []


def test_open_store_migrates_sqlite_itself(tmp_path: Path) -> None:
    store = open_store(Settings(home=tmp_path / 'fresh'))
    assert current_revision(store.engine) == head_revision()
    store.close()


@pytest.mark.postgresql
def test_open_store_leaves_postgres_schema_to_db_upgrade(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = request.getfixturevalue('empty_postgres_database')
    with pytest.raises(StoreNotReady, match=r'has no Synapse tables; .* run `synapse db upgrade`'):
        open_store(Settings(database_url=url, home=tmp_path))
    store = Store.open(url, tmp_path)
    upgrade(store.engine)
    store.close()
    open_store(Settings(database_url=url, home=tmp_path)).close()
