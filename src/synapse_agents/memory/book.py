"""Memories as stored: checks, reads by scope and by person, changes, and who shares (blocking).

What a conversation of a scope may see (`scope_filter`): the memories of its tenant, about its
subject or about the tenant as a whole, that apply to everyone or to the person it is talking to.
Without a tenant it sees none: a memory always has one, and no other tenant's is reachable.
Writing new memories (with their vectors) is `recall.remember`; this module writes only what a
person changes by hand.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, and_, delete, func, or_, select

from ..errors import MemoryInvalid, MemoryNotFound
from ..rules import book as rules_book
from ..scope import Scope
from ..store import Store
from ..store.ids import is_valid_id, shown_id
from ..store.schema import utcnow
from .tables import SOURCES, Memory, MemorySharing, MemoryVector

MAX_CONTENT = 4000
"""The longest memory, in characters: a fact or a preference, not a document."""
PAGE = 50
_WORDS = re.compile(r'[\W_]+', re.UNICODE)


@dataclass(frozen=True)
class MemoryInput:
    """A memory to write (checked by `checked`)."""

    tenant: str
    content: str
    subject: str | None = None
    applies_to: str | None = None
    source: str = 'manual'
    created_by: str | None = None
    agent_key: str | None = None
    conversation_id: str | None = None
    source_message_ids: Sequence[str] = field(default_factory=tuple)


@dataclass(frozen=True)
class ScopedMemories:
    """The newest memories a scope's prompt gets: shared (everyone) and personal (this person)."""

    shared: list[Memory] = field(default_factory=list)
    personal: list[Memory] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.shared or self.personal)


def check_label(name: str, value: Any, *, required: bool = False) -> str | None:
    """`value` as a stored `type:id` label, or `MemoryInvalid` naming the field."""
    return rules_book.check_label(name, value, required=required, whose='memory', error=MemoryInvalid)


def check_content(value: Any) -> str:
    return rules_book.check_text(
        value, field='content', what='a memory', limit=MAX_CONTENT, error=MemoryInvalid
    )


def checked(memory: MemoryInput) -> MemoryInput:
    """`memory` with its labels and content in stored form, or `MemoryInvalid` naming the field."""
    if memory.source not in SOURCES:
        raise MemoryInvalid('source', f'one of {", ".join(SOURCES)}, not {memory.source!r:.40}.')
    return MemoryInput(
        tenant=check_label('tenant', memory.tenant, required=True) or '',
        content=check_content(memory.content),
        subject=check_label('subject', memory.subject),
        applies_to=check_label('applies_to', memory.applies_to),
        source=memory.source,
        created_by=memory.created_by,
        agent_key=memory.agent_key,
        conversation_id=memory.conversation_id,
        source_message_ids=tuple(memory.source_message_ids),
    )


def fingerprint(content: str) -> str:
    """The same words, whatever their case, accents of form, spacing and punctuation, hash alike."""
    normal = unicodedata.normalize('NFKC', content).casefold()
    return hashlib.sha256(' '.join(_WORDS.split(normal)).strip().encode()).hexdigest()


def new_row(memory: MemoryInput) -> Memory:
    now = utcnow()
    return Memory(
        tenant=memory.tenant,
        subject=memory.subject,
        applies_to=memory.applies_to,
        content=memory.content,
        source=memory.source,
        created_by=memory.created_by,
        agent_key=memory.agent_key,
        conversation_id=memory.conversation_id,
        source_message_ids=list(memory.source_message_ids),
        fingerprint=fingerprint(memory.content),
        created_at=now,
        updated_at=now,
    )


def same_place(memory: MemoryInput) -> ColumnElement[bool]:
    """Memories on exactly `memory`'s three axes."""
    return and_(
        Memory.tenant == memory.tenant,
        Memory.subject.is_(None) if memory.subject is None else Memory.subject == memory.subject,
        Memory.applies_to.is_(None) if memory.applies_to is None else Memory.applies_to == memory.applies_to,
    )


def scope_filter(scope: Scope) -> ColumnElement[bool] | None:
    """What a conversation of `scope` may see (see the module docstring); None without a tenant."""
    tenant = scope.label('tenant')
    if tenant is None:
        return None
    subject, actor = scope.label('subject'), scope.label('actor')
    about = (
        Memory.subject.is_(None)
        if subject is None
        else or_(Memory.subject.is_(None), Memory.subject == subject)
    )
    whom = (
        Memory.applies_to.is_(None)
        if actor is None
        else or_(Memory.applies_to.is_(None), Memory.applies_to == actor)
    )
    return and_(Memory.tenant == tenant, about, whom)


def newest_in_scope(store: Store, scope: Scope, count: int) -> ScopedMemories:
    """The newest `count` memories a conversation of `scope` sees, oldest first within each half."""
    where = scope_filter(scope)
    if where is None or count <= 0:
        return ScopedMemories()
    query = select(Memory).where(where).order_by(Memory.id.desc()).limit(count)
    with store.read() as session:
        rows = list(session.scalars(query))
        session.expunge_all()
    rows.reverse()
    return ScopedMemories(
        shared=[r for r in rows if r.applies_to is None],
        personal=[r for r in rows if r.applies_to is not None],
    )


def in_scope(store: Store, scope: Scope, ids: Sequence[str]) -> dict[str, Memory]:
    """Those of `ids` that a conversation of `scope` may see."""
    where = scope_filter(scope)
    if where is None or not ids:
        return {}
    with store.read() as session:
        rows = list(session.scalars(select(Memory).where(where, Memory.id.in_(list(ids)))))
        session.expunge_all()
    return {row.id: row for row in rows}


@dataclass(frozen=True)
class MemoryFilters:
    """Browse filters: None for any; '' for subject or applies_to: only the tenant-wide / everyone's."""

    tenant: str | None = None
    subject: str | None = None
    applies_to: str | None = None
    source: str | None = None


def listing(
    store: Store, filters: MemoryFilters, *, cursor: str | None = None, limit: int = PAGE
) -> tuple[list[Memory], str | None]:
    """A page of memories, newest first, and the cursor of the next page (None: the last)."""
    conditions: list[ColumnElement[bool]] = []
    if filters.tenant is not None:
        conditions.append(Memory.tenant == check_label('tenant', filters.tenant, required=True))
    for name in ('subject', 'applies_to'):
        wanted, column = getattr(filters, name), getattr(Memory, name)
        if wanted == '':
            conditions.append(column.is_(None))
        elif wanted is not None:
            conditions.append(column == check_label(name, wanted))
    if filters.source is not None:
        if filters.source not in SOURCES:
            raise MemoryInvalid('source', f'one of {", ".join(SOURCES)}.', where='query')
        conditions.append(Memory.source == filters.source)
    if cursor:
        if not is_valid_id(cursor):
            raise MemoryInvalid('cursor', 'not a cursor this API gave.', where='query')
        conditions.append(Memory.id < cursor)
    query = select(Memory).where(*conditions).order_by(Memory.id.desc()).limit(limit + 1)
    with store.read() as session:
        rows = list(session.scalars(query))
        session.expunge_all()
    more = len(rows) > limit
    rows = rows[:limit]
    return rows, (rows[-1].id if more and rows else None)


def for_person(store: Store, actor: str, tenant: str | None = None) -> list[Memory]:
    """Every memory that applies to `actor` (in one tenant, or in all), newest first."""
    actor_label = check_label('actor', actor, required=True)
    conditions = [Memory.applies_to == actor_label]
    if tenant:
        conditions.append(Memory.tenant == check_label('tenant', tenant))
    with store.read() as session:
        rows = list(session.scalars(select(Memory).where(*conditions).order_by(Memory.id.desc())))
        session.expunge_all()
    return rows


def forget_person(store: Store, actor: str, tenant: str | None = None) -> int:
    """Delete every memory that applies to `actor` (in one tenant, or in all); how many went."""
    ids = [row.id for row in for_person(store, actor, tenant)]
    with store.write() as session:
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            session.execute(delete(MemoryVector).where(MemoryVector.memory_id.in_(chunk)))
            session.execute(delete(Memory).where(Memory.id.in_(chunk)))
    return len(ids)


def get(store: Store, memory_id: str) -> Memory:
    _check_id(memory_id)
    with store.read() as session:
        row = session.get(Memory, memory_id)
        if row is None:
            raise MemoryNotFound(f'No memory with id {shown_id(memory_id)}.')
        session.expunge(row)
        return row


def remove(store: Store, memory_id: str) -> Memory:
    """Delete a memory and its vector."""
    _check_id(memory_id)
    with store.write() as session:
        row = session.get(Memory, memory_id)
        if row is None:
            raise MemoryNotFound(f'No memory with id {shown_id(memory_id)}.')
        session.execute(delete(MemoryVector).where(MemoryVector.memory_id == memory_id))
        session.delete(row)
        session.flush()
        session.expunge(row)
    return row


def embedded(store: Store, ids: Sequence[str], embedder: str | None) -> set[str]:
    """Those of `ids` with a vector of `embedder`."""
    if not ids or embedder is None:
        return set()
    query = select(MemoryVector.memory_id).where(
        MemoryVector.memory_id.in_(list(ids)), MemoryVector.embedder == embedder
    )
    with store.read() as session:
        return set(session.scalars(query))


def count(store: Store) -> int:
    with store.read() as session:
        return int(session.scalar(select(func.count()).select_from(Memory)) or 0)


def sharing(store: Store, actor: str) -> bool | None:
    """The person's stored choice (None: never chose)."""
    label = check_label('actor', actor, required=True)
    with store.read() as session:
        row = session.get(MemorySharing, label)
        return None if row is None else row.share


def set_sharing(store: Store, actor: str, share: bool | None) -> bool | None:
    """Store the person's choice; None forgets it (back to the `share_memories` setting)."""
    label = check_label('actor', actor, required=True)
    if share is not None and not isinstance(share, bool):
        raise MemoryInvalid('share_memories', 'true, false or null.')
    with store.write() as session:
        row = session.get(MemorySharing, label, with_for_update=True)
        if share is None:
            if row is not None:
                session.delete(row)
        elif row is None:
            session.add(MemorySharing(actor=label, share=share, updated_at=utcnow()))
        else:
            row.share, row.updated_at = share, utcnow()
    return share


def _check_id(memory_id: str) -> None:
    if not is_valid_id(memory_id):
        raise MemoryNotFound(f'No memory with id {shown_id(memory_id)}.')
