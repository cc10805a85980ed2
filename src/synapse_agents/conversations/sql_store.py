"""pydantic-ai's `ConversationStore` on Synapse's database: `SqlConversationStore`.

pydantic-ai keeps a conversation as a chain of entries, one message each, and a record pointing at
the newest; this backend keeps the records in `log_conversations` and the entries in `log_entries`
(a fork shares its source's entries, so an entry names no conversation), doing every call's
database work in a worker thread. See docs/conversation-store.md.

A record changes only through a conditional `UPDATE ... WHERE revision = :expected` (or an `INSERT`
whose primary-key violation is the conflict), in one transaction with its new entries, so of two
saves of one loaded conversation exactly one commits. A delete releases the entries no remaining
record reaches. On PostgreSQL it first locks `log_conversations` against writers (SQLite serializes
writers anyway), and a writer checks its head entry only after writing its record, so a fork
committing meanwhile finds its entries kept or fails with `ConversationConflict`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, Self

import anyio.to_thread
from pydantic import TypeAdapter
from pydantic_ai.conversation_store import (
    ConversationConflict,
    ConversationEntry,
    ConversationRecord,
    ConversationStore,
)
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import ModelMessagesTypeAdapter
from pydantic_ai.tools import DeferredToolRequests
from pydantic_ai.usage import RunUsage
from sqlalchemy import Executable, Row, Text, bindparam, cast, delete, insert, null, select, text, update
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.exc import DataError, IntegrityError

from ..settings import load_settings
from ..store.repository import Store
from ..store.schema import Base, utcnow
from ..store.setup import open_store
from .log_mirror import mirror_delete, mirror_save
from .tables import LogConversation, LogEntry, register_log_tables

__all__ = ['SqlConversationStore', 'register_log_tables']


_records = Base.metadata.tables[LogConversation.__tablename__]
_entries = Base.metadata.tables[LogEntry.__tablename__]

_USAGE: TypeAdapter[RunUsage] = TypeAdapter(RunUsage)
_DEFERRED: TypeAdapter[DeferredToolRequests | None] = TypeAdapter(DeferredToolRequests | None)

MAX_KEY_LENGTH = 255
"""The longest `conversation_id` or `scope` the columns hold."""
_UNLIMITED = 2**31 - 1
_NO_TEXT_FOR_NUL = '22P05'
"""PostgreSQL's `untranslatable_character`: JSONB text cannot hold U+0000."""

# One query for a whole history: walk the parents from the head, then read the messages as JSON
# text, so one `validate_json` call reads them all.
_HISTORY = text(
    """
    WITH RECURSIVE chain(id, parent_id, depth) AS (
        SELECT id, parent_id, 1 FROM log_entries WHERE id = :head
        UNION ALL
        SELECT e.id, e.parent_id, chain.depth + 1
        FROM chain JOIN log_entries e ON e.id = chain.parent_id
        WHERE chain.depth < :limit
    )
    SELECT e.id, e.parent_id, e.kind, CAST(e.message AS TEXT) AS message
    FROM chain JOIN log_entries e ON e.id = chain.id
    ORDER BY chain.depth DESC
    """
)

# The deleted record's history (`up`), everything that hangs off it (`down`), the remaining records'
# heads and branch tips, and what those reach (`kept`): the history minus what is kept goes.
_RELEASE = """
    WITH RECURSIVE
    up(id, parent_id) AS (
        SELECT id, parent_id FROM log_entries WHERE id IN :tips
        UNION
        SELECT e.id, e.parent_id FROM up JOIN log_entries e ON e.id = up.parent_id
    ),
    down(id) AS (
        SELECT id FROM up
        UNION
        SELECT e.id FROM down JOIN log_entries e ON e.parent_id = down.id
    ),
    tips(id) AS (
        SELECT head_id FROM log_conversations WHERE head_id IS NOT NULL
        UNION
        {branch_tips}
    ),
    kept(id, parent_id) AS (
        SELECT id, parent_id FROM log_entries
        WHERE id IN (SELECT id FROM down) AND id IN (SELECT id FROM tips)
        UNION
        SELECT e.id, e.parent_id FROM kept JOIN log_entries e ON e.id = kept.parent_id
    )
    DELETE FROM log_entries WHERE id IN (SELECT id FROM up) AND id NOT IN (SELECT id FROM kept)
"""
_BRANCH_TIPS = {
    'sqlite': 'SELECT tip.value FROM log_conversations, json_each(log_conversations.branches) AS tip',
    'postgresql': (
        'SELECT tip FROM log_conversations, jsonb_array_elements_text(log_conversations.branches) AS tip'
    ),
}
_LOCK_RECORDS = text('LOCK TABLE log_conversations IN SHARE ROW EXCLUSIVE MODE')


class SqlConversationStore(ConversationStore):
    """A pydantic-ai `ConversationStore` on Synapse's SQLite or PostgreSQL store.

    Pass it wherever a `ConversationStore` goes (`InMemoryConversationStore()` in examples):

        conversations = SqlConversationStore.open()  # the project's database, from its settings
        conversation = await conversations.load(id) or Conversation(conversation_id=id)
        result = await agent.run(prompt, conversation=conversation)
        await conversations.save(result)

    `delete` also deletes the entries no other conversation's history (head or branches) reaches.
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        """The Synapse store the conversations are kept in."""
        self._owns_store = False
        self._release = text(_RELEASE.format(branch_tips=_BRANCH_TIPS[store.dialect])).bindparams(
            bindparam('tips', expanding=True)
        )
        self._insert_entries = _entry_insert(store.dialect)

    @classmethod
    def open(cls, database_url: str | None = None) -> SqlConversationStore:
        """Open the project's store from its settings (`SYNAPSE_DATABASE_URL`, ...), or `database_url`.

        A SQLite store is migrated to the newest schema; a PostgreSQL one must be, by
        `synapse db upgrade` (`StoreNotReady` says so). `close()` closes it again.
        """
        settings = load_settings({'database_url': database_url}).settings
        opened = cls(open_store(settings, auto_upgrade=True))
        opened._owns_store = True
        return opened

    def close(self) -> None:
        """Close the store if `open` opened it; a `Store` given to the constructor is left open."""
        if self._owns_store:
            self.store.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        await anyio.to_thread.run_sync(self.close)

    # -- the storage primitives --------------------------------------------------------------

    async def read_record(self, conversation_id: str) -> ConversationRecord | None:
        return await anyio.to_thread.run_sync(self._select_record, conversation_id)

    async def read_records(
        self, *, scope: str | None = None, limit: int | None = None
    ) -> Sequence[ConversationRecord]:
        _check_limit(limit)
        return await anyio.to_thread.run_sync(self._select_records, scope, limit)

    async def write_record(
        self,
        record: ConversationRecord,
        *,
        new_entries: Sequence[ConversationEntry] = (),
        expected_revision: str | None,
    ) -> None:
        for name in ('conversation_id', 'scope'):
            if not _storable(getattr(record, name)):
                raise UserError(
                    f'`{name}` must be at most {MAX_KEY_LENGTH} characters, with no NUL character.'
                )
        await anyio.to_thread.run_sync(self._store_record, record, list(new_entries), expected_revision)

    async def delete_record(self, conversation_id: str, *, expected_revision: str) -> None:
        await anyio.to_thread.run_sync(self._remove_record, conversation_id, expected_revision)

    async def read_entry(self, entry_id: str) -> ConversationEntry:
        return (await anyio.to_thread.run_sync(self._select_history, entry_id, 1))[0]

    async def read_history(self, head_id: str | None, *, limit: int | None = None) -> list[ConversationEntry]:
        """The entries from the first one up to `head_id`, in order (the last `limit`), in one query.

        Raises:
            LookupError: If `head_id` or an entry before it is not stored.
        """
        _check_limit(limit)
        if head_id is None or limit == 0:
            return []
        return await anyio.to_thread.run_sync(self._select_history, head_id, limit)

    # -- in the worker thread ----------------------------------------------------------------

    def _select_record(self, conversation_id: str) -> ConversationRecord | None:
        if not _storable(conversation_id):
            return None
        with self.store.read() as session:
            row = session.execute(
                select(_records).where(_records.c.conversation_id == conversation_id)
            ).first()
        return None if row is None else _record(row)

    def _select_records(self, scope: str | None, limit: int | None) -> list[ConversationRecord]:
        if not _storable(scope):
            return []
        query = select(_records).order_by(_records.c.updated_at.desc()).limit(limit)
        if scope is not None:
            query = query.where(_records.c.scope == scope)
        with self.store.read() as session:
            return [_record(row) for row in session.execute(query)]

    def _store_record(
        self, record: ConversationRecord, new_entries: list[ConversationEntry], expected_revision: str | None
    ) -> None:
        try:
            self._store_in_transaction(record, new_entries, expected_revision)
        except DataError as exc:
            if getattr(exc.orig, 'sqlstate', None) != _NO_TEXT_FOR_NUL:
                raise
            raise UserError(
                f'Conversation {record.conversation_id!r} holds a NUL character (U+0000), '
                'which PostgreSQL cannot store in JSON.'
            ) from None

    def _store_in_transaction(
        self, record: ConversationRecord, new_entries: list[ConversationEntry], expected_revision: str | None
    ) -> None:
        values = _record_values(record)
        conflict = ConversationConflict(record.conversation_id)
        with self.store.write() as session:
            connection = session.connection()
            # The record first: on PostgreSQL that takes the table lock a concurrent delete waits on.
            if expected_revision is None:
                try:
                    connection.execute(insert(_records).values(values))
                except IntegrityError:
                    raise conflict from None
            else:
                changed = connection.execute(
                    update(_records)
                    .where(
                        _records.c.conversation_id == record.conversation_id,
                        _records.c.revision == expected_revision,
                    )
                    .values(values)
                )
                if changed.rowcount != 1:
                    raise conflict
            if new_entries:
                connection.execute(self._insert_entries, _entry_rows(new_entries))
                # The same messages as the dashboard's rows (`log_mirror.py`).
                messages = [entry.message for entry in new_entries]
                mirror_save(connection, record.conversation_id, record.scope, messages)
            head = record.head_id
            if (
                head is not None
                and head not in {entry.id for entry in new_entries}
                and connection.scalar(select(_entries.c.id).where(_entries.c.id == head)) is None
            ):
                raise conflict  # released by a delete of the conversation a fork points into

    def _remove_record(self, conversation_id: str, expected_revision: str) -> None:
        with self.store.write() as session:
            connection = session.connection()
            if self.store.dialect == 'postgresql':
                connection.execute(_LOCK_RECORDS)
            found = connection.execute(
                select(_records.c.head_id, _records.c.branches).where(
                    _records.c.conversation_id == conversation_id, _records.c.revision == expected_revision
                )
            ).first()
            if found is None:
                raise ConversationConflict(conversation_id)
            connection.execute(delete(_records).where(_records.c.conversation_id == conversation_id))
            mirror_delete(connection, self.store.tables, conversation_id)
            tips = [tip for tip in [found.head_id, *found.branches] if tip is not None]
            if tips:
                connection.execute(self._release, {'tips': tips})

    def _select_history(self, head_id: str, limit: int | None) -> list[ConversationEntry]:
        with self.store.read() as session:
            rows = session.execute(_HISTORY, {'head': head_id, 'limit': limit or _UNLIMITED}).all()
        # The oldest row comes first; a parent it names that was not found is a missing entry.
        if not rows or (rows[0].parent_id is not None and (limit is None or len(rows) < limit)):
            missing = head_id if not rows else rows[0].parent_id
            raise LookupError(f'entry {missing!r} is not stored')
        return _entries_of(rows)


def _check_limit(limit: int | None) -> None:
    if limit is not None and limit < 0:
        raise UserError('`limit` must not be negative.')


def _storable(value: str | None) -> bool:
    """Whether a key fits its column (and PostgreSQL's text, which has no NUL)."""
    return value is None or (len(value) <= MAX_KEY_LENGTH and '\x00' not in value)


def _record_values(record: ConversationRecord) -> dict[str, Any]:
    deferred = record.deferred_tool_requests
    deferred_json = null() if deferred is None else _DEFERRED.dump_python(deferred, mode='json')
    return {
        'conversation_id': record.conversation_id,
        'head_id': record.head_id,
        'usage': _USAGE.dump_python(record.usage, mode='json'),
        'deferred_tool_requests': deferred_json,
        'scope': record.scope,
        'forked_from': record.forked_from,
        'forked_at': record.forked_at,
        'branches': list(record.branches),
        'revision': record.revision,
        'format_version': record.format_version,
        'updated_at': record.updated_at,
    }


def _record(row: Row[Any]) -> ConversationRecord:
    if row.format_version != 1:
        raise ValueError(
            f'conversation {row.conversation_id!r} is stored in format {row.format_version}, '
            'which this version of Synapse cannot read'
        )
    return ConversationRecord(
        conversation_id=row.conversation_id,
        head_id=row.head_id,
        usage=_USAGE.validate_python(row.usage),
        deferred_tool_requests=_DEFERRED.validate_python(row.deferred_tool_requests),
        scope=row.scope,
        forked_from=row.forked_from,
        forked_at=row.forked_at,
        branches=list(row.branches),
        revision=row.revision,
        updated_at=row.updated_at,
    )


def _entry_insert(dialect: str) -> Executable:
    """An executemany `INSERT` of entries whose message is given as JSON text, as pydantic-ai wrote it."""
    message: Any = bindparam('entry_message', type_=Text)
    if dialect == 'postgresql':
        message = cast(message, JSONB)
    return insert(_entries).values(
        id=bindparam('entry_id'),
        parent_id=bindparam('entry_parent_id'),
        kind=bindparam('entry_kind'),
        message=message,
        created_at=bindparam('entry_created_at'),
    )


def _entry_rows(entries: list[ConversationEntry]) -> list[dict[str, Any]]:
    now: datetime = utcnow()
    return [
        {
            'entry_id': entry.id,
            'entry_parent_id': entry.parent_id,
            'entry_kind': entry.kind,
            # One message in `ModelMessagesTypeAdapter`'s JSON: the array's only element.
            'entry_message': ModelMessagesTypeAdapter.dump_json([entry.message])[1:-1].decode(),
            'entry_created_at': now,
        }
        for entry in entries
    ]


def _entries_of(rows: Sequence[Row[Any]]) -> list[ConversationEntry]:
    if unknown := [row.id for row in rows if row.kind != 'message']:
        raise ValueError(f'entry {unknown[0]!r} holds what this version of Synapse cannot read')
    messages = ModelMessagesTypeAdapter.validate_json('[' + ','.join(row.message for row in rows) + ']')
    return [
        ConversationEntry(id=row.id, parent_id=row.parent_id, message=message)
        for row, message in zip(rows, messages, strict=True)
    ]
