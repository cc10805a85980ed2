"""Forking a conversation in the store, on every selected database: exact copies of the rows before
a user message, their tool rows and files, no ledger, counters from the copies, one transaction;
and a turn in the fork replays the copied history."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from sqlalchemy import event, func, select, update

from chat_helpers import collect
from store_faults import StoreFault
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.chat.attachments import Upload
from synapse_agents.chat.engine import ChatEngine
from synapse_agents.chat.replay import load_history
from synapse_agents.chat.request import TurnRequest
from synapse_agents.conversations.files import resolve_path
from synapse_agents.conversations.forks import fork_title
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.conversations.rows import AssistantEntry, ConversationThread, UserEntry
from synapse_agents.conversations.tables import Message, ToolInvocation
from synapse_agents.errors import ConversationNotFound, NotAUserMessage, TurnInFlight
from synapse_agents.scope import Scope
from synapse_agents.store import Store
from synapse_agents.store.ids import new_id
from synapse_agents.store.write_queue import WriteQueue
from synapse_agents.targets.target import TurnTarget

pytestmark = pytest.mark.anyio

RECEIVED: list[list[ModelMessage]] = []
"""Every request's messages the recording model was given, in order."""


def _prompt(messages: list[ModelMessage]) -> str:
    for part in messages[-1].parts:
        if isinstance(part, UserPromptPart):
            content = part.content
            return content if isinstance(content, str) else str(content[0])
    return ''


async def _stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
    RECEIVED.append(list(messages))
    if any(isinstance(part, ToolReturnPart) for part in messages[-1].parts):
        yield 'The order shipped.'
        return
    prompt = _prompt(messages)
    if prompt.startswith('tool'):
        yield {0: DeltaToolCall(name='lookup', json_args='{"order_id": "A-1"}', tool_call_id='call_1')}
    elif prompt.startswith('fail'):
        raise ModelHTTPError(503, 'recorder', {'error': 'overloaded'})
    else:
        yield f'answer to {prompt}'


recorder = Agent(FunctionModel(stream_function=_stream, model_name='recorder'), name='recorder')


@recorder.tool_plain
def lookup(order_id: str) -> dict[str, str]:
    return {'order_id': order_id, 'status': 'shipped'}


TARGET = TurnTarget.for_agent(recorder, slug='tests.recorder')
ROLES = ['user', 'assistant', 'user', 'error', 'notice', 'user', 'assistant', 'user']
"""The source's rows up to its last user message (a failed turn with no answer leaves an error card)."""
SCOPE = Scope(tenant=('org', 'acme'), actor=('user', '42'), subject=('ticket', 'T-9'))


@pytest.fixture
def engine(store: Store) -> Iterator[ChatEngine]:
    writes = WriteQueue(store)
    yield ChatEngine(store, writes)
    writes.close()


async def turn(engine: ChatEngine, message: str, conversation_id: str | None, **kwargs: Any) -> str:
    """Run one turn; its conversation id."""
    prepared = await engine.prepare(TurnRequest(TARGET, message, conversation_id=conversation_id, **kwargs))
    await collect(engine.stream(prepared))
    await engine.writes.drain()
    return prepared.conversation_id


def rows(store: Store, model: Any, conversation_id: str) -> list[Any]:
    with store.read() as session:
        query = select(model).where(model.conversation_id == conversation_id)
        return list(session.scalars(query.order_by(model.id)))


def values(row: Any, *leave_out: str) -> dict[str, Any]:
    return {c.key: getattr(row, c.key) for c in row.__table__.columns if c.key not in leave_out}


def thread(store: Store, conversation_id: str) -> ConversationThread:
    found = ConversationRepository(store).thread(conversation_id)
    assert found is not None
    return found


async def source_conversation(engine: ChatEngine, store: Store) -> tuple[str, list[Message]]:
    """Five turns: a tool call with a file, a failed turn, a notice, a file, and a last question."""
    RECEIVED.clear()
    files = [Upload('notes.txt', 'text/plain', b'abc')]
    conversation = await turn(engine, 'tool please', None, uploads=files, origin='app', scope=SCOPE)
    await turn(engine, 'fail now', conversation)
    with store.write() as session:
        session.add(
            Message(conversation_id=conversation, role='notice', content='switched', meta={'kind': 'k'})
        )
    await turn(
        engine, 'plain question', conversation, uploads=[Upload('b.bin', 'application/x', b'\x00\x01')]
    )
    await turn(engine, 'last', conversation)
    return conversation, rows(store, Message, conversation)


async def test_a_fork_holds_exact_copies_of_the_rows_before_the_message(
    engine: ChatEngine, store: Store
) -> None:
    source, messages = await source_conversation(engine, store)
    assert [m.role for m in messages] == [*ROLES, 'assistant']
    at = messages[7]  # the last user message
    before = thread(store, source)
    source_row = values(ConversationRepository(store).get(source))
    fork = ConversationRepository(store).fork(source, at.id, title='Retry')
    copies = rows(store, Message, fork.id)
    assert [c.copied_from_id for c in copies] == [m.id for m in messages[:7]]
    assert [c.id for c in copies] == sorted(c.id for c in copies) and all(c.id > at.id for c in copies)
    for original, copy in zip(messages, copies, strict=False):
        leave_out: tuple[str, ...] = ('id', 'conversation_id', 'copied_from_id', 'owner', 'attachments')
        assert values(copy, *leave_out) == values(original, *leave_out)
        assert copy.conversation_id == fork.id and copy.owner is None
    assert copies[1].model_messages and copies[1].usage and copies[1].parts  # what the replay needs
    # The tool rows of the copied answers, pointing at the copies.
    source_tools, fork_tools = rows(store, ToolInvocation, source), rows(store, ToolInvocation, fork.id)
    assert len(source_tools) == 1 and len(fork_tools) == 1
    leave_out = ('id', 'conversation_id', 'message_id', 'owner')
    assert values(fork_tools[0], *leave_out) == values(source_tools[0], *leave_out)
    assert fork_tools[0].message_id == copies[1].id and fork_tools[0].id != source_tools[0].id
    # The files, copied into the fork's folders with their references rewritten.
    for original, copy in ((messages[0], copies[0]), (messages[5], copies[5])):
        (reference,) = original.attachments
        (copied,) = copy.attachments
        assert copied == {**reference, 'path': f'{fork.id}/{copy.id}/{Path(reference["path"]).name}'}
        old = resolve_path(store.attachments_dir, reference, source, original.id)
        new = resolve_path(store.attachments_dir, copied, fork.id, copy.id)
        assert old is not None and new is not None and new != old
        assert new.read_bytes() == old.read_bytes()
    # The conversation: the source's agent and scope, where it came from, its own counters.
    assert (fork.agent_key, fork.agent_name, fork.title, fork.origin) == (
        'tests.recorder',
        'recorder',
        'Retry',
        'playground',
    )
    assert Scope.from_columns(fork) == SCOPE
    assert (fork.forked_from_id, fork.forked_at_message_id) == (source, at.id)
    assert (fork.message_count, fork.tool_count) == (7, 1)
    assert (fork.input_tokens, fork.output_tokens, fork.cost) == (0, 0, None)
    assert fork.has_error is True  # it holds the error card
    with store.read() as session:
        ledger = session.scalar(select(func.count()).where(LlmCall.conversation_id == fork.id))
    assert ledger == 0
    # The source is unchanged, and lists the fork.
    after = thread(store, source)
    assert after.messages == before.messages and after.conversation == before.conversation
    assert values(ConversationRepository(store).get(source)) == source_row
    assert [f.id for f in after.forks] == [fork.id] and after.forks[0].forked_at_message_id == at.id
    shown = thread(store, fork.id)
    assert shown.forked_from is not None and (shown.forked_from.id, shown.forked_from.title) == (
        source,
        'tool please',
    )
    assert [m.copied_from_id for m in shown.messages] == [m.id for m in messages[:7]]
    assert [type(m) for m in shown.messages] == [type(m) for m in before.messages[:7]]


async def test_a_turn_in_the_fork_replays_the_copied_history(engine: ChatEngine, store: Store) -> None:
    source, messages = await source_conversation(engine, store)
    at_source = RECEIVED[-1]  # what the model got for 'last' in the source
    fork = ConversationRepository(store).fork(source, messages[7].id)
    history = load_history(store, fork.id, store.attachments_dir)
    assert ModelMessagesTypeAdapter.dump_json(history) == ModelMessagesTypeAdapter.dump_json(at_source[:-1])
    await turn(engine, 'last', fork.id)
    in_fork = RECEIVED[-1]
    assert ModelMessagesTypeAdapter.dump_json(in_fork[:-1]) == ModelMessagesTypeAdapter.dump_json(
        at_source[:-1]
    )
    assert _prompt(in_fork) == 'last'
    binaries = [
        item.data
        for m in in_fork
        for p in m.parts
        if isinstance(p, UserPromptPart) and isinstance(p.content, list)
        for item in p.content
        if hasattr(item, 'data')
    ]
    assert binaries == [b'abc', b'\x00\x01']
    # The fork's own turn counts in its own ledger and counters; the source's are untouched.
    reloaded = ConversationRepository(store).get(fork.id)
    assert reloaded is not None and reloaded.message_count == 9 and reloaded.output_tokens > 0
    assert [values(m) for m in rows(store, Message, source)] == [values(m) for m in messages]


async def test_a_fork_at_the_first_user_message_is_empty(engine: ChatEngine, store: Store) -> None:
    source, messages = await source_conversation(engine, store)
    fork = ConversationRepository(store).fork(source, messages[0].id, origin='task')
    assert rows(store, Message, fork.id) == [] and rows(store, ToolInvocation, fork.id) == []
    assert (fork.message_count, fork.tool_count, fork.has_error, fork.origin) == (0, 0, False, 'task')
    assert fork.title == 'fork of tool please'
    assert not (store.attachments_dir / fork.id).exists()
    await turn(engine, 'hello again', fork.id)
    assert _prompt(RECEIVED[-1]) == 'hello again' and len(RECEIVED[-1]) == 1  # no history


async def test_a_fork_of_a_fork(engine: ChatEngine, store: Store) -> None:
    source, messages = await source_conversation(engine, store)
    first = ConversationRepository(store).fork(source, messages[7].id)
    copies = rows(store, Message, first.id)
    second = ConversationRepository(store).fork(first.id, copies[5].id)  # the copy of 'plain question'
    again = rows(store, Message, second.id)
    # A copy of a copy names the original row, so a fork of a fork and the source share turns.
    assert [m.copied_from_id for m in again] == [m.id for m in messages[:5]]
    assert second.forked_from_id == first.id and second.forked_at_message_id == copies[5].id
    (reference,) = again[0].attachments
    found = resolve_path(store.attachments_dir, reference, second.id, again[0].id)
    assert found is not None and found.read_bytes() == b'abc'
    assert [f.id for f in thread(store, first.id).forks] == [second.id]
    assert [f.id for f in thread(store, source).forks] == [first.id]


async def test_what_cannot_be_forked(engine: ChatEngine, store: Store) -> None:
    source, messages = await source_conversation(engine, store)
    other = await turn(engine, 'elsewhere', None)
    other_user = rows(store, Message, other)[0]
    with pytest.raises(ConversationNotFound):
        ConversationRepository(store).fork(new_id(), messages[0].id)
    with pytest.raises(ConversationNotFound):
        ConversationRepository(store).fork('../x', messages[0].id)
    for wrong in (
        messages[1].id,
        messages[3].id,
        messages[4].id,
        messages[6].id,
        other_user.id,
        new_id(),
        'nope',
    ):
        with pytest.raises(NotAUserMessage):
            ConversationRepository(store).fork(source, wrong)
    counted = store.counts()
    # A turn still in flight before the message: a copy of it would be half a turn.
    with store.write() as session:
        session.execute(update(Message).where(Message.id == messages[6].id).values(status='streaming'))
    with pytest.raises(TurnInFlight, match='still running'):
        ConversationRepository(store).fork(source, messages[7].id)
    ConversationRepository(store).fork(source, messages[5].id)  # before the turn in flight: fine
    with store.write() as session:
        session.execute(update(Message).where(Message.id == messages[6].id).values(status='complete'))
        session.execute(
            update(ToolInvocation).where(ToolInvocation.conversation_id == source).values(status='pending')
        )
    with pytest.raises(TurnInFlight):
        ConversationRepository(store).fork(source, messages[5].id)
    assert store.counts()['conversations'] == counted['conversations'] + 1


async def test_a_failed_fork_stores_nothing_and_removes_its_files(engine: ChatEngine, store: Store) -> None:
    source, messages = await source_conversation(engine, store)
    counted = store.counts()
    folders = sorted(store.attachments_dir.iterdir())
    seen: list[bool] = []

    def before(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.startswith('INSERT') and not seen:  # the fork's first write
            seen.append(any(p not in folders for p in store.attachments_dir.iterdir()))

    fault = StoreFault(store)
    event.listen(store.engine, 'before_cursor_execute', before)
    fault.fail()
    try:
        with pytest.raises(Exception, match=fault.cause):
            ConversationRepository(store).fork(source, messages[7].id)
    finally:
        fault.heal()
        event.remove(store.engine, 'before_cursor_execute', before)
    assert store.counts() == counted
    assert sorted(store.attachments_dir.iterdir()) == folders
    assert seen == [True]  # the files were in place before the first write, and are gone now


async def test_missing_files_and_symlinks_are_not_copied(engine: ChatEngine, store: Store) -> None:
    source, messages = await source_conversation(engine, store)
    first, second = messages[0], messages[5]

    def resolve(m: Message) -> Path | None:
        return resolve_path(store.attachments_dir, m.attachments[0], source, m.id)

    missing, linked = resolve(first), resolve(second)
    assert missing is not None and linked is not None
    missing.unlink()
    # A link to a file beside it, in the same message folder: `resolve_path` alone would accept it.
    beside = linked.with_name('beside.txt')
    beside.write_text('not this one')
    linked.unlink()
    linked.symlink_to(beside)
    assert resolve(second) == beside
    fork = ConversationRepository(store).fork(source, messages[7].id)
    copies = rows(store, Message, fork.id)
    for copy, original in ((copies[0], first), (copies[5], second)):
        (reference,) = copy.attachments
        assert reference == {
            **original.attachments[0],
            'path': f'{fork.id}/{copy.id}/{Path(reference["path"]).name}',
        }
        assert resolve_path(store.attachments_dir, reference, fork.id, copy.id) is None
    assert not any(p.is_file() for p in (store.attachments_dir / fork.id).rglob('*'))
    entries = thread(store, fork.id).messages
    assert isinstance(entries[0], UserEntry) and len(entries[0].attachments) == 1  # shown, as missing


async def test_deleting_a_source_or_a_fork_leaves_the_other(engine: ChatEngine, store: Store) -> None:
    source, messages = await source_conversation(engine, store)
    fork = ConversationRepository(store).fork(source, messages[7].id)
    kept = ConversationRepository(store).fork(source, messages[5].id)
    ConversationRepository(store).delete(fork.id)
    assert [f.id for f in thread(store, source).forks] == [kept.id]
    assert len(rows(store, Message, source)) == len(messages)
    assert resolve_path(store.attachments_dir, messages[0].attachments[0], source, messages[0].id) is not None
    ConversationRepository(store).delete(source)
    shown = thread(store, kept.id)
    assert shown.forked_from is not None
    assert (shown.forked_from.id, shown.forked_from.title, shown.forked_from.message_id) == (
        source,
        None,
        messages[5].id,
    )
    assert len(shown.messages) == 5 and shown.conversation.forked_from_id == source
    copy = rows(store, Message, kept.id)[0]
    found = resolve_path(store.attachments_dir, copy.attachments[0], kept.id, copy.id)
    assert found is not None and found.read_bytes() == b'abc'
    answer = shown.messages[1]
    assert isinstance(answer, AssistantEntry) and answer.usage is not None


async def test_two_references_to_one_file_copy_it_once(engine: ChatEngine, store: Store) -> None:
    source, messages = await source_conversation(engine, store)
    (reference,) = messages[0].attachments
    twice = [reference, {**reference, 'index': 1}]
    with store.write() as session:
        session.execute(update(Message).where(Message.id == messages[0].id).values(attachments=twice))
    fork = ConversationRepository(store).fork(source, messages[7].id)
    copy = rows(store, Message, fork.id)[0]
    assert [a['index'] for a in copy.attachments] == [0, 1]
    found = {resolve_path(store.attachments_dir, a, fork.id, copy.id) for a in copy.attachments}
    assert len(found) == 1 and next(iter(found)).read_bytes() == b'abc'  # type: ignore[union-attr]


def test_a_fork_title_names_its_source_once() -> None:
    assert fork_title('Where is my order?', source_is_fork=False) == 'fork of Where is my order?'
    assert fork_title(' Where  is\nmy order? ', source_is_fork=False) == 'fork of Where is my order?'
    # A fork of a fork keeps the `fork of` its source has; a renamed fork is named anew.
    assert fork_title('fork of Where is my order?', source_is_fork=True) == 'fork of Where is my order?'
    assert fork_title('Fork of a plan', source_is_fork=True) == 'Fork of a plan'
    assert fork_title('Refund path', source_is_fork=True) == 'fork of Refund path'
    # A conversation that is not a fork but was named so by its user still gets its `fork of`.
    assert fork_title('fork of the river', source_is_fork=False) == 'fork of fork of the river'
    assert fork_title('', source_is_fork=False) == 'fork of Untitled'
    assert fork_title('   ', source_is_fork=True) == 'fork of Untitled'
    # No longer than the column: cut at a word, with an ellipsis; one endless word is cut inside.
    cut = fork_title(' '.join(['refund'] * 30), source_is_fork=False)
    assert len(cut) <= 200 and cut.endswith(' refund…')
    assert len(fork_title('x' * 200, source_is_fork=False)) == 200
