"""`SqlConversationStore`: pydantic-ai's `ConversationStore` on Synapse's SQLite and PostgreSQL store.

The behaviour tests run against pydantic-ai's own `InMemoryConversationStore` as well, so both
stores are held to the same expectations; the tests after them are about the database itself:
races between connections, the number of queries a load takes, deletes, the table registry.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import pytest
from pydantic_ai import Agent, Conversation, DeferredToolRequests
from pydantic_ai.conversation_store import (
    ConversationConflict,
    ConversationRecord,
    ConversationStore,
    InMemoryConversationStore,
)
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import (
    AudioUrl,
    BinaryContent,
    BinaryImage,
    DocumentUrl,
    FilePart,
    ImageUrl,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
    VideoUrl,
)
from pydantic_ai.models.test import TestModel
from pydantic_ai.run import AgentRunResult
from pydantic_ai.usage import RequestUsage
from sqlalchemy import delete, event

from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.conversations.sql_store import SqlConversationStore, register_log_tables
from synapse_agents.conversations.tables import LogEntry
from synapse_agents.store import Store

pytestmark = pytest.mark.anyio

WHEN = datetime(2026, 3, 4, 5, 6, 7, 890123, tzinfo=UTC)


@pytest.fixture(params=['in-memory', 'sql'])
def conversations(request: pytest.FixtureRequest, store: Store) -> ConversationStore:
    """pydantic-ai's reference store, or ours on the test database."""
    return InMemoryConversationStore() if request.param == 'in-memory' else SqlConversationStore(store)


def make_agent() -> Agent[None, str]:
    agent = Agent(TestModel())

    @agent.tool_plain
    def weather(city: str) -> str:
        return f'sunny in {city}'

    return agent


async def chat(
    conversations: ConversationStore, conversation_id: str, prompt: str, *, scope: str | None = None
) -> AgentRunResult[str]:
    """One turn as an app runs it: load (or start), run, save."""
    conversation = await conversations.load(conversation_id, scope=scope)
    result = await make_agent().run(
        prompt, conversation=conversation or Conversation(conversation_id=conversation_id)
    )
    await conversations.save(result, scope=scope)
    return result


async def stored(conversations: ConversationStore, conversation_id: str, **kwargs: Any) -> Conversation:
    conversation = await conversations.load(conversation_id, **kwargs)
    assert conversation is not None, f'{conversation_id} is not stored'
    return conversation


async def entry_ids(conversations: ConversationStore, conversation_id: str) -> list[str]:
    entries = await conversations.load_entries(conversation_id)
    assert entries is not None, f'{conversation_id} is not stored'
    return [entry.id for entry in entries]


def text_history(count: int) -> list[ModelMessage]:
    return [
        ModelRequest(parts=[UserPromptPart(f'question {n}', timestamp=WHEN)])
        if n % 2 == 0
        else ModelResponse(parts=[TextPart(f'answer {n}')], timestamp=WHEN)
        for n in range(count)
    ]


def every_part() -> list[ModelMessage]:
    """One of each kind of part, in the form pydantic-ai reads back its own JSON."""
    return [
        ModelRequest(
            parts=[
                SystemPromptPart('be brief', timestamp=WHEN),
                UserPromptPart(
                    [
                        'look — ünïcode 🎉',
                        BinaryImage(data=b'\x89PNG\x00\xff', media_type='image/png'),
                        BinaryContent(data=b'%PDF-1.7', media_type='application/pdf'),
                        ImageUrl('https://example.com/a.png'),
                        DocumentUrl('https://example.com/a.pdf'),
                        AudioUrl('https://example.com/a.mp3'),
                        VideoUrl('https://example.com/a.mp4'),
                    ],
                    timestamp=WHEN,
                ),
            ],
            instructions='answer in French',
            run_id='run-1',
            conversation_id='c',
            timestamp=WHEN,
            metadata={'trace': [1, 2.5, None]},
        ),
        ModelResponse(
            parts=[
                ThinkingPart('let me think', signature='sig', id='think-1', provider_name='anthropic'),
                TextPart('calling a tool'),
                ToolCallPart('weather', {'city': 'Lisbon', 'days': [1, 2]}, tool_call_id='call-1'),
                FilePart(BinaryImage(data=b'\x00drawn', media_type='image/jpeg')),
            ],
            usage=RequestUsage(input_tokens=12, output_tokens=34),
            model_name='model-x',
            timestamp=WHEN,
            provider_name='provider-y',
            provider_response_id='response-1',
            finish_reason='tool_call',
            run_id='run-1',
        ),
        ModelRequest(
            parts=[
                ToolReturnPart(
                    'weather', {'forecast': ['sun', 'rain']}, tool_call_id='call-1', timestamp=WHEN
                ),
                ToolReturnPart(
                    'weather', 'no such city', tool_call_id='call-2', timestamp=WHEN, outcome='retried'
                ),
                ToolReturnPart(
                    'chart', BinaryImage(data=b'\x01', media_type='image/png'), tool_call_id='call-3'
                ),
            ]
        ),
    ]


# -- the ConversationStore behaviour, on both stores ------------------------------------------


async def test_an_agent_run_round_trips(conversations: ConversationStore) -> None:
    result = await chat(conversations, 'c', 'weather in Lisbon?')
    loaded = await stored(conversations, 'c')
    assert any(isinstance(part, ToolReturnPart) for m in loaded.messages for part in m.parts)
    assert loaded.messages == result.all_messages()
    assert loaded.usage == result.usage
    assert loaded.revision == result.conversation.revision is not None


async def test_every_message_part_round_trips_exactly(conversations: ConversationStore) -> None:
    messages = every_part()
    saved = await conversations.save(Conversation(conversation_id='c', messages=messages))
    loaded = await stored(conversations, 'c')
    assert loaded.messages == messages
    assert [entry.message for entry in saved] == messages


async def test_a_second_run_appends_only_its_messages(conversations: ConversationStore) -> None:
    first = await chat(conversations, 'c', 'hello')
    before = await conversations.load_entries('c')
    assert before is not None and len(before) == len(first.all_messages())
    conversation = await conversations.load('c')
    second = await make_agent().run('again', conversation=conversation)
    stored = await conversations.save(second)
    assert [entry.message for entry in stored] == second.new_messages()
    after = await conversations.load_entries('c')
    assert after is not None
    assert [entry.id for entry in after] == [entry.id for entry in before] + [entry.id for entry in stored]
    assert await conversations.save(second) == []  # nothing new the second time


async def test_limit_loads_the_last_messages_and_saving_appends_to_the_whole(
    conversations: ConversationStore,
) -> None:
    await conversations.save(Conversation(conversation_id='c', messages=text_history(6)))
    window = await conversations.load('c', limit=3)
    assert window is not None and window.messages == text_history(6)[-3:]
    assert (await stored(conversations, 'c', limit=0)).messages == []
    assert (await stored(conversations, 'c', limit=99)).messages == text_history(6)
    entries = await conversations.load_entries('c', limit=2)
    assert entries is not None and [entry.message for entry in entries] == text_history(6)[-2:]
    result = await make_agent().run('more', conversation=window)
    await conversations.save(result)
    loaded = await stored(conversations, 'c')
    assert loaded.messages == text_history(6) + result.new_messages()


async def test_another_scope_sees_nothing(conversations: ConversationStore) -> None:
    await chat(conversations, 'c', 'hello', scope='alice')
    assert await conversations.load('c', scope='bob') is None
    assert await conversations.load_entries('c', scope='bob') is None
    assert await conversations.list_conversations(scope='bob') == []
    with pytest.raises(UserError, match='not in the store'):
        await conversations.fork('c', source_scope='bob')
    loaded = await stored(conversations, 'c', scope='alice')
    with pytest.raises(UserError, match='not in the store'):
        await conversations.branch('c', at=0, expected_revision=loaded.revision, scope='bob')
    with pytest.raises(ConversationConflict):
        await conversations.save(loaded, scope='bob')
    await conversations.delete('c', scope='bob')
    assert [r.conversation_id for r in await conversations.list_conversations(scope='alice')] == ['c']
    assert (await conversations.load('c', scope='alice')) == loaded


async def test_branch_at_then_back_to_the_branch_left(conversations: ConversationStore) -> None:
    first = await chat(conversations, 'c', 'one')
    original = (await chat(conversations, 'c', 'two')).all_messages()
    tip = (await entry_ids(conversations, 'c'))[-1]
    loaded = await stored(conversations, 'c')
    branched = await conversations.branch(
        'c', at=len(first.all_messages()), expected_revision=loaded.revision
    )
    assert branched.messages == first.all_messages()
    rewritten = await make_agent().run('two, differently', conversation=branched)
    await conversations.save(rewritten)
    assert (await stored(conversations, 'c')).messages == rewritten.all_messages()
    [record] = await conversations.list_conversations()
    assert record.branches == [tip]

    back = await conversations.branch('c', from_entry=tip, expected_revision=record.revision)
    assert back.messages == original
    assert (await stored(conversations, 'c')).messages == original
    [record] = await conversations.list_conversations()
    assert len(record.branches) == 1 and record.branches != [tip]  # the rewritten turn is the branch now


async def test_fork_shares_the_entries_and_goes_its_own_way(conversations: ConversationStore) -> None:
    await conversations.save(Conversation(conversation_id='c', messages=text_history(4)))
    source = await conversations.load_entries('c')
    assert source is not None
    fork = await conversations.fork('c', at=2, new_conversation_id='f')
    assert fork.messages == text_history(2)
    shared = await conversations.load_entries('f')
    assert shared is not None and [e.id for e in shared] == [e.id for e in source[:2]]
    result = await make_agent().run('fork only', conversation=fork)
    await conversations.save(result)
    assert (await stored(conversations, 'c')).messages == text_history(4)
    assert (await stored(conversations, 'f')).messages == text_history(2) + result.new_messages()
    with pytest.raises(ConversationConflict):
        await conversations.fork('c', new_conversation_id='f')


async def test_deferred_tool_requests_survive_a_load(conversations: ConversationStore) -> None:
    agent = Agent(TestModel(), output_type=[str, DeferredToolRequests])

    @agent.tool_plain(requires_approval=True)
    def refund(amount: int) -> str:
        return f'refunded {amount}'

    paused = await agent.run('refund me', conversation=Conversation(conversation_id='c'))
    assert isinstance(paused.output, DeferredToolRequests) and paused.output.approvals
    await conversations.save(paused)
    loaded = await stored(conversations, 'c')
    assert loaded.deferred_tool_requests == paused.output
    results = loaded.deferred_tool_requests.build_results(approve_all=True)
    resumed = await agent.run(conversation=loaded, deferred_tool_results=results)
    await conversations.save(resumed)
    done = await conversations.load('c')
    assert done is not None and done.deferred_tool_requests is None
    assert done.messages == resumed.all_messages()


async def test_a_stale_revision_conflicts(conversations: ConversationStore) -> None:
    await chat(conversations, 'c', 'hello')
    mine, theirs = await stored(conversations, 'c'), await stored(conversations, 'c')
    winner = await make_agent().run('mine', conversation=mine)
    await conversations.save(winner)
    loser = await make_agent().run('theirs', conversation=theirs)
    with pytest.raises(ConversationConflict):
        await conversations.save(loser)
    with pytest.raises(ConversationConflict):
        await conversations.save(Conversation(conversation_id='c'))  # not loaded, but it exists
    with pytest.raises(ConversationConflict):
        await conversations.branch('c', at=0, expected_revision=theirs.revision)
    assert (await stored(conversations, 'c')).messages == winner.all_messages()


async def test_delete_keeps_what_a_fork_shares(conversations: ConversationStore) -> None:
    await conversations.save(Conversation(conversation_id='c', messages=text_history(4)))
    await conversations.fork('c', at=3, new_conversation_id='f')
    await conversations.delete('c')
    assert await conversations.load('c') is None
    assert [r.conversation_id for r in await conversations.list_conversations()] == ['f']
    assert (await stored(conversations, 'f')).messages == text_history(3)
    await conversations.delete('f')
    await conversations.delete('missing')
    assert await conversations.list_conversations() == []


async def test_delete_keeps_a_branch_another_conversation_forked_from(
    conversations: ConversationStore,
) -> None:
    await conversations.save(Conversation(conversation_id='c', messages=text_history(4)))
    tip = (await entry_ids(conversations, 'c'))[-1]
    loaded = await stored(conversations, 'c')
    await conversations.branch('c', at=1, expected_revision=loaded.revision)
    await conversations.fork('c', from_entry=tip, new_conversation_id='f')
    await conversations.delete('c')
    assert (await stored(conversations, 'f')).messages == text_history(4)


async def test_delete_keeps_what_another_conversation_left_as_a_branch(
    conversations: ConversationStore,
) -> None:
    await conversations.save(Conversation(conversation_id='c', messages=text_history(4)))
    fork = await conversations.fork('c', new_conversation_id='f')
    tip = (await entry_ids(conversations, 'f'))[-1]
    await conversations.branch('f', at=1, expected_revision=fork.revision)  # the fork leaves c's turns
    await conversations.delete('c')
    [record] = await conversations.list_conversations()
    back = await conversations.branch('f', from_entry=tip, expected_revision=record.revision)
    assert back.messages == text_history(4)


async def test_list_is_newest_first_and_limited(conversations: ConversationStore) -> None:
    for conversation_id in ('a', 'b', 'c'):
        await chat(conversations, conversation_id, 'hello')
    await chat(conversations, 'a', 'again')
    assert [r.conversation_id for r in await conversations.list_conversations()] == ['a', 'c', 'b']
    assert [r.conversation_id for r in await conversations.list_conversations(limit=2)] == ['a', 'c']
    assert await conversations.list_conversations(limit=0) == []


async def test_malformed_input_is_a_user_error(conversations: ConversationStore) -> None:
    await conversations.save(Conversation(conversation_id='c', messages=text_history(2)))
    loaded = await stored(conversations, 'c')
    with pytest.raises(UserError, match='must not be negative'):
        await conversations.load('c', limit=-1)
    with pytest.raises(UserError, match='must not be negative'):
        await conversations.load_entries('c', limit=-1)
    with pytest.raises(UserError, match='must not be negative'):
        await conversations.list_conversations(limit=-1)
    with pytest.raises(UserError, match='exactly one'):
        await conversations.branch('c', expected_revision=loaded.revision)
    with pytest.raises(UserError, match='between 0 and 2'):
        await conversations.branch('c', at=3, expected_revision=loaded.revision)
    with pytest.raises(UserError, match='not in the history'):
        await conversations.fork('c', from_entry='no-such-entry')
    with pytest.raises(UserError, match='not in the store'):
        await conversations.fork('missing')


async def test_a_record_whose_head_is_not_stored_conflicts(conversations: ConversationStore) -> None:
    with pytest.raises(ConversationConflict):
        await conversations.write_record(
            ConversationRecord(conversation_id='c', head_id='no-such-entry'), expected_revision=None
        )
    assert await conversations.load('c') is None


async def test_a_missing_entry_is_a_lookup_error(conversations: ConversationStore) -> None:
    with pytest.raises(LookupError):
        await conversations.read_entry('missing')
    with pytest.raises(LookupError):
        await conversations.read_history('missing')
    assert await conversations.read_history(None) == []


# -- the database: races, queries, deletes, the registry ---------------------------------------


def url_of(store: Store) -> str:
    return store.engine.url.render_as_string(hide_password=False)


def race(*calls: Callable[[], Awaitable[Any]]) -> list[Any]:
    """Run each call in its own thread and event loop, all released at once; results or exceptions."""
    barrier = threading.Barrier(len(calls))
    outcomes: list[Any] = [None] * len(calls)

    def run(index: int, call: Callable[[], Awaitable[Any]]) -> None:
        async def released() -> Any:
            barrier.wait()
            return await call()

        try:
            outcomes[index] = anyio.run(released)
        except Exception as exc:
            outcomes[index] = exc

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def assert_one_wins(outcomes: list[Any]) -> None:
    conflicts = [outcome for outcome in outcomes if isinstance(outcome, ConversationConflict)]
    assert len(conflicts) == 1 and not any(
        isinstance(o, BaseException) for o in outcomes if o not in conflicts
    ), outcomes


def two_connections(
    store: Store, tmp_path: Path
) -> tuple[SqlConversationStore, SqlConversationStore, Callable[[], None]]:
    """Two stores on the test database, each with its own engine (so its own connections)."""
    first, second = (Store.open(url_of(store), tmp_path / 'attachments') for _ in range(2))

    def close() -> None:
        first.close()
        second.close()

    return SqlConversationStore(first), SqlConversationStore(second), close


def test_of_two_concurrent_saves_exactly_one_wins(store: Store, tmp_path: Path) -> None:
    left, right, close = two_connections(store, tmp_path)
    try:
        for round_ in range(50):
            conversation_id = f'race-{round_}'
            anyio.run(left.save, Conversation(conversation_id=conversation_id, messages=text_history(1)))
            mine, theirs = (anyio.run(left.load, conversation_id) for _ in range(2))
            assert mine is not None and theirs is not None
            mine.messages.append(ModelResponse(parts=[TextPart('mine')]))
            theirs.messages.append(ModelResponse(parts=[TextPart('theirs')]))
            outcomes = race(partial(left.save, mine), partial(right.save, theirs))
            assert_one_wins(outcomes)
            winner = theirs if isinstance(outcomes[0], ConversationConflict) else mine
            assert anyio.run(stored, left, conversation_id).messages == winner.messages
    finally:
        close()


def test_of_two_concurrent_record_writes_exactly_one_wins(store: Store, tmp_path: Path) -> None:
    """Both writes pass any check made before the transaction: only the database can tell them apart."""
    left, right, close = two_connections(store, tmp_path)
    try:
        for round_ in range(50):
            conversation_id = f'race-{round_}'
            anyio.run(left.save, Conversation(conversation_id=conversation_id, messages=text_history(1)))
            record = anyio.run(left.read_record, conversation_id)
            assert record is not None
            update = ConversationRecord(conversation_id=conversation_id, head_id=record.head_id)
            outcomes = race(
                *(
                    partial(side.write_record, update, expected_revision=record.revision)
                    for side in (left, right)
                )
            )
            assert_one_wins(outcomes)
            created = ConversationRecord(conversation_id=f'new-{round_}', head_id=None)
            outcomes = race(
                *(partial(side.write_record, created, expected_revision=None) for side in (left, right))
            )
            assert_one_wins(outcomes)
    finally:
        close()


def test_a_fork_racing_a_delete_of_its_source_is_whole_or_refused(store: Store, tmp_path: Path) -> None:
    left, right, close = two_connections(store, tmp_path)
    try:
        for round_ in range(30):
            source, fork_id = f'source-{round_}', f'fork-{round_}'
            anyio.run(left.save, Conversation(conversation_id=source, messages=text_history(6)))
            outcomes = race(
                partial(left.fork, source, at=4, new_conversation_id=fork_id), partial(right.delete, source)
            )
            assert outcomes[1] is None, outcomes
            if isinstance(outcomes[0], Conversation):
                forked = anyio.run(right.load, fork_id)
                assert forked is not None and forked.messages == text_history(4)
            else:  # the delete went first: the source was gone, or the entries the fork wanted were
                assert isinstance(outcomes[0], UserError), outcomes
                assert anyio.run(right.load, fork_id) is None
    finally:
        close()


def test_a_load_racing_a_delete_finds_the_conversation_whole_or_not_at_all(
    store: Store, tmp_path: Path
) -> None:
    left, right, close = two_connections(store, tmp_path)
    try:
        for round_ in range(30):
            conversation_id = f'gone-{round_}'
            anyio.run(left.save, Conversation(conversation_id=conversation_id, messages=text_history(200)))
            outcomes = race(partial(left.load, conversation_id), partial(right.delete, conversation_id))
            assert outcomes[1] is None, outcomes
            assert outcomes[0] is None or outcomes[0].messages == text_history(200), outcomes
    finally:
        close()


async def test_the_database_is_never_used_on_the_event_loop_thread(store: Store) -> None:
    conversations = SqlConversationStore(store)
    threads: set[int] = set()

    def record(*_args: Any) -> None:
        threads.add(threading.get_ident())

    event.listen(store.engine, 'before_cursor_execute', record)
    try:
        await conversations.save(Conversation(conversation_id='c', messages=text_history(2)))
        await conversations.fork('c', new_conversation_id='f')
        await conversations.list_conversations()
        await conversations.read_entry((await entry_ids(conversations, 'c'))[0])
        await conversations.delete('c')
    finally:
        event.remove(store.engine, 'before_cursor_execute', record)
    assert threads and threading.get_ident() not in threads


async def test_a_long_conversation_loads_in_a_constant_number_of_queries(store: Store) -> None:
    conversations = SqlConversationStore(store)
    statements: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement)

    counts: dict[int, int] = {}
    for length in (10, 1000):
        await conversations.save(Conversation(conversation_id=f'c{length}', messages=text_history(length)))
        event.listen(store.engine, 'before_cursor_execute', record)
        try:
            loaded = await conversations.load(f'c{length}')
        finally:
            event.remove(store.engine, 'before_cursor_execute', record)
        assert loaded is not None and loaded.messages == text_history(length)
        counts[length] = len(statements)
        statements.clear()
    assert counts[10] == counts[1000] == 2  # the record, then the whole history


async def test_deletes_leave_no_entry_behind_and_a_fork_copies_none(store: Store) -> None:
    tables = store.tables.copy()
    register_log_tables(tables)
    counted = Store(store.engine, store.attachments_dir, tables=tables)
    conversations = SqlConversationStore(counted)
    await conversations.save(Conversation(conversation_id='c', messages=text_history(4)))
    await conversations.fork('c', at=2, new_conversation_id='f')
    assert (counted.counts()['log_conversations'], counted.counts()['log_entries']) == (2, 4)
    fork = await conversations.load('f')
    result = await make_agent().run('only in the fork', conversation=fork)
    await conversations.save(result)
    await conversations.delete('c')
    # The two entries only the source had are gone; the fork's history is whole.
    assert counted.counts()['log_entries'] == 2 + len(result.new_messages())
    assert (await stored(conversations, 'f')).messages == result.all_messages()
    await conversations.delete('f')
    assert (counted.counts()['log_conversations'], counted.counts()['log_entries']) == (0, 0)


async def test_a_conflicting_save_stores_none_of_its_entries(store: Store) -> None:
    conversations = SqlConversationStore(store)
    await conversations.save(Conversation(conversation_id='c', messages=text_history(2)))
    with pytest.raises(ConversationConflict):
        await conversations.save(Conversation(conversation_id='c', messages=text_history(8)))
    with store.read() as session:
        assert session.query(LogEntry).count() == 2


async def test_synapse_clear_and_prune_leave_the_log_alone(store: Store) -> None:
    tables = store.tables.copy()
    register_log_tables(tables)
    declared = {t.name: (t.owner, t.key, t.root) for t in tables}
    assert declared['log_conversations'] == ('log_conversation', 'conversation_id', True)
    assert declared['log_entries'] == ('log_entry', 'id', True)
    counted = Store(store.engine, store.attachments_dir, tables=tables)
    conversations = SqlConversationStore(counted)
    await conversations.save(Conversation(conversation_id='c', messages=text_history(3)))
    ConversationRepository(counted).create(agent_key='a')

    pruned = ConversationRepository(counted).prune(1, now=datetime.now(UTC) + timedelta(days=3650))
    cleared = ConversationRepository(counted).clear()

    # The playground conversation and the log conversation's dashboard copy (`log_mirror.py`) go;
    # the log itself stays whole.
    assert pruned.conversations == 2 and cleared.rows == 0
    assert (pruned.removed('log_entries'), cleared.removed('log_conversations')) == (0, 0)
    assert (counted.counts()['log_conversations'], counted.counts()['log_entries']) == (1, 3)
    assert (await stored(conversations, 'c')).messages == text_history(3)


async def test_a_history_with_a_released_entry_raises_lookup_error(store: Store) -> None:
    conversations = SqlConversationStore(store)
    await conversations.save(Conversation(conversation_id='c', messages=text_history(3)))
    entries = await conversations.load_entries('c')
    assert entries is not None
    with store.write() as session:
        session.execute(delete(LogEntry).where(LogEntry.id == entries[1].id))
    with pytest.raises(LookupError, match=entries[1].id):
        await conversations.load('c')
    # The last message alone is still whole.
    assert (await stored(conversations, 'c', limit=1)).messages == text_history(3)[-1:]


async def test_keys_the_columns_cannot_hold(store: Store) -> None:
    conversations = SqlConversationStore(store)
    with pytest.raises(UserError, match='at most 255 characters'):
        await conversations.save(Conversation(conversation_id='x' * 256))
    with pytest.raises(UserError, match='`scope`'):
        await conversations.save(Conversation(conversation_id='c'), scope='nul\x00')
    assert await conversations.load('x' * 256) is None
    assert await conversations.load('nul\x00') is None
    assert await conversations.list_conversations(scope='nul\x00') == []
    await conversations.save(
        Conversation(conversation_id='y' * 255, messages=text_history(1)), scope='s' * 255
    )
    assert (await stored(conversations, 'y' * 255, scope='s' * 255)).messages == text_history(1)


async def test_a_nul_character_in_a_message(store: Store) -> None:
    conversations = SqlConversationStore(store)
    messages: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart('before\x00after', timestamp=WHEN)])]
    if store.dialect == 'postgresql':  # JSONB has no text for U+0000
        with pytest.raises(UserError, match='NUL character'):
            await conversations.save(Conversation(conversation_id='c', messages=messages))
        assert await conversations.load('c') is None
    else:
        await conversations.save(Conversation(conversation_id='c', messages=messages))
        assert (await stored(conversations, 'c')).messages == messages


async def test_raw_bytes_in_a_tool_return_read_back_as_pydantic_ai_serializes_them(store: Store) -> None:
    conversations = SqlConversationStore(store)
    messages: list[ModelMessage] = [
        ModelRequest(parts=[ToolReturnPart('blob', b'\x00\x01', tool_call_id='t')])
    ]
    await conversations.save(Conversation(conversation_id='c', messages=messages))
    loaded = await conversations.load('c')
    expected = ModelMessagesTypeAdapter.validate_json(ModelMessagesTypeAdapter.dump_json(messages))
    assert loaded is not None and loaded.messages == expected
    assert loaded.messages[0].parts[0].content == 'AAE='  # type: ignore[union-attr]


async def test_open_a_database_url_and_close_it(store: Store) -> None:
    async with SqlConversationStore.open(url_of(store)) as conversations:
        await conversations.save(Conversation(conversation_id='c', messages=text_history(2)))
        assert conversations.store.engine.pool.checkedin() == 1  # type: ignore[attr-defined]
    assert conversations.store.engine.pool.checkedin() == 0  # type: ignore[attr-defined]
    # A store given to the constructor is the caller's to close.
    given = SqlConversationStore(store)
    assert (await stored(given, 'c')).messages == text_history(2)
    given.close()
    assert store.engine.pool.checkedin() == 1  # type: ignore[attr-defined]


async def test_open_uses_the_project_settings(isolated_env: Path) -> None:
    conversations = SqlConversationStore.open()
    try:
        await conversations.save(Conversation(conversation_id='c', messages=text_history(2)))
        assert conversations.store.dialect == 'sqlite'
        assert (
            Path(conversations.store.engine.url.database or '') == isolated_env.parent / 'home' / 'synapse.db'
        )
    finally:
        conversations.close()
    async with SqlConversationStore.open() as reopened:
        assert (await stored(reopened, 'c')).messages == text_history(2)
