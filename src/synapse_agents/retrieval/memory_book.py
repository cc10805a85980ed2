"""Vector memories as stored: checks, one tenant's pages, one memory, a person's, and what a recall
sees (blocking). Writing with vectors and recalling by meaning is `vector_memory`.

Every read but one by id is of one tenant, and returns no row of another; `get` and `forget` by id
refuse a row of another tenant when a tenant is named.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, and_, delete, false, or_, select
from sqlalchemy.orm import Session

from ..conversations.tables import Conversation
from ..errors import VectorMemoryInvalid, VectorMemoryNotFound
from ..rules import book as rules_book
from ..store import Store
from ..store.ids import is_valid_id, shown_id
from .memory_tables import SCOPES, SOURCE_TYPES, VectorMemory

MAX_CONTENT = 20_000
"""The longest vector memory, in characters (a fact, or a passage of a document)."""
MAX_META_BYTES = 16_384
"""The largest `meta`, as JSON."""
PAGE = 50


@dataclass(frozen=True)
class VectorMemoryInput:
    """A vector memory to write (checked by `checked`)."""

    tenant: str
    content: str
    scope: str = 'user'
    person: str | None = None
    conversation_id: str | None = None
    source_type: str = 'manual'
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class VectorMemoryFilters:
    """Browse filters within one tenant: None for any; `person=''`: only those of no person."""

    tenant: str
    person: str | None = None
    scope: str | None = None
    conversation_id: str | None = None
    source_type: str | None = None


# -- checks --------------------------------------------------------------------------------------


def check_label(name: str, value: Any, *, required: bool = False, where: str = 'body') -> str | None:
    """`value` as a stored `type:id` label, or `VectorMemoryInvalid` naming the field."""
    if required and (value is None or value == ''):
        raise VectorMemoryInvalid(name, "required: a 'type:id' (for example 'user:42').", where=where)
    try:
        return rules_book.check_label(name, value, whose='vector memory', error=VectorMemoryInvalid)
    except VectorMemoryInvalid as exc:
        raise VectorMemoryInvalid(name, exc.problem, where=where) from None


def checked(memory: VectorMemoryInput) -> VectorMemoryInput:
    """`memory` in stored form, or `VectorMemoryInvalid` naming the field at fault."""
    if memory.scope not in SCOPES:
        raise VectorMemoryInvalid('scope', f'one of {", ".join(SCOPES)}, not {memory.scope!r:.40}.')
    if memory.source_type not in SOURCE_TYPES:
        raise VectorMemoryInvalid(
            'source_type', f'one of {", ".join(SOURCE_TYPES)}, not {memory.source_type!r:.40}.'
        )
    tenant = check_label('tenant', memory.tenant, required=True) or ''
    person = check_label('person', memory.person, required=memory.scope == 'user')
    conversation_id = memory.conversation_id or None
    if memory.scope == 'user' and conversation_id is not None:
        raise VectorMemoryInvalid(
            'conversation_id',
            'a user-scoped memory outlives every conversation: name none (its origin may go in meta).',
        )
    if memory.scope == 'conversation':
        if conversation_id is None:
            raise VectorMemoryInvalid('conversation_id', 'required for a conversation-scoped memory.')
        if not isinstance(conversation_id, str) or not is_valid_id(conversation_id):
            raise VectorMemoryInvalid(
                'conversation_id', f'no conversation with id {shown_id(str(conversation_id))}.'
            )
    content = rules_book.check_text(
        memory.content, field='content', what='a vector memory', limit=MAX_CONTENT, error=VectorMemoryInvalid
    )
    return VectorMemoryInput(
        tenant=tenant,
        content=content,
        scope=memory.scope,
        person=person,
        conversation_id=conversation_id,
        source_type=memory.source_type,
        meta=check_meta(memory.meta),
    )


def check_meta(meta: Any) -> dict[str, Any]:
    """`meta` as stored: a JSON object of at most `MAX_META_BYTES`, with no NUL and no NaN."""
    if meta is None:
        return {}
    if not isinstance(meta, Mapping):
        raise VectorMemoryInvalid('meta', f'expected a JSON object, got {type(meta).__name__}.')
    try:
        text = json.dumps(dict(meta), allow_nan=False, ensure_ascii=True)
    except (TypeError, ValueError) as exc:
        raise VectorMemoryInvalid('meta', f'not plain JSON: {exc}.') from None
    if len(text) > MAX_META_BYTES:
        raise VectorMemoryInvalid('meta', f'{len(text)} bytes of JSON is more than {MAX_META_BYTES}.')
    if '\\u0000' in text:
        raise VectorMemoryInvalid('meta', 'NUL characters are not accepted.')
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def check_choice(name: str, value: str | None, choices: Sequence[str]) -> None:
    if value is not None and value not in choices:
        raise VectorMemoryInvalid(name, f'one of {", ".join(choices)}.', where='query')


# -- reads and deletes (blocking) ----------------------------------------------------------------


def listing(
    store: Store, filters: VectorMemoryFilters, *, cursor: str | None = None, limit: int = PAGE
) -> tuple[list[VectorMemory], str | None]:
    """A page of one tenant's vector memories, newest first, and the next page's cursor (None: last)."""
    conditions: list[ColumnElement[bool]] = [
        VectorMemory.tenant == check_label('tenant', filters.tenant, required=True, where='query')
    ]
    if filters.person == '':
        conditions.append(VectorMemory.person.is_(None))
    elif filters.person is not None:
        conditions.append(VectorMemory.person == check_label('person', filters.person, where='query'))
    check_choice('scope', filters.scope, SCOPES)
    check_choice('source_type', filters.source_type, SOURCE_TYPES)
    if filters.scope is not None:
        conditions.append(VectorMemory.scope == filters.scope)
    if filters.source_type is not None:
        conditions.append(VectorMemory.source_type == filters.source_type)
    if filters.conversation_id is not None:
        if not is_valid_id(filters.conversation_id):
            return [], None
        conditions.append(VectorMemory.conversation_id == filters.conversation_id)
    if cursor is not None:
        if not is_valid_id(cursor):
            raise VectorMemoryInvalid('cursor', 'not a cursor this API gave.', where='query')
        conditions.append(VectorMemory.id < cursor)
    query = select(VectorMemory).where(*conditions).order_by(VectorMemory.id.desc()).limit(limit + 1)
    with store.read() as session:
        rows = list(session.scalars(query))
        session.expunge_all()
    more = len(rows) > limit
    rows = rows[:limit]
    return rows, (rows[-1].id if more and rows else None)


def get(store: Store, memory_id: str, tenant: str | None = None) -> VectorMemory:
    """One vector memory (of `tenant`, when given), or `VectorMemoryNotFound`."""
    within = check_label('tenant', tenant, where='query')
    if not is_valid_id(memory_id):
        raise VectorMemoryNotFound(f'No vector memory with id {shown_id(memory_id)}.')
    with store.read() as session:
        row = session.get(VectorMemory, memory_id)
        if row is None or (within is not None and row.tenant != within):
            raise VectorMemoryNotFound(f'No vector memory with id {shown_id(memory_id)}.')
        session.expunge(row)
        return row


def forget(store: Store, memory_id: str, tenant: str | None = None) -> VectorMemory:
    """Delete one vector memory (of `tenant`, when given) for good; the row deleted."""
    within = check_label('tenant', tenant, where='query')
    if not is_valid_id(memory_id):
        raise VectorMemoryNotFound(f'No vector memory with id {shown_id(memory_id)}.')
    with store.write() as session:
        row = session.get(VectorMemory, memory_id)
        if row is None or (within is not None and row.tenant != within):
            raise VectorMemoryNotFound(f'No vector memory with id {shown_id(memory_id)}.')
        session.delete(row)
        session.flush()
        session.expunge(row)
    return row


def for_person(store: Store, person: str, tenant: str) -> list[VectorMemory]:
    """Every vector memory of `person` in `tenant` (either scope), newest first."""
    where = _of_person(person, tenant)
    with store.read() as session:
        rows = list(session.scalars(select(VectorMemory).where(where).order_by(VectorMemory.id.desc())))
        session.expunge_all()
    return rows


def forget_person(store: Store, person: str, tenant: str) -> int:
    """Delete every vector memory of `person` in `tenant` (either scope); how many went."""
    where = _of_person(person, tenant)
    with store.write() as session:
        result = session.execute(delete(VectorMemory).where(where))
    return int(getattr(result, 'rowcount', 0) or 0)


def _of_person(person: str, tenant: str) -> ColumnElement[bool]:
    return and_(
        VectorMemory.tenant == check_label('tenant', tenant, required=True, where='query'),
        VectorMemory.person == check_label('person', person, required=True, where='path'),
    )


def visible(
    tenant: str,
    person: str | None,
    conversation_id: str | None,
    source_types: Sequence[str] | None = None,
) -> ColumnElement[bool]:
    """What a recall for `person` in `conversation_id` sees in `tenant` (see the module docstring)."""
    tenant_label = check_label('tenant', tenant, required=True, where='query')
    person_label = check_label('person', person, where='query')
    if person_label is None and not conversation_id:
        raise VectorMemoryInvalid('person', 'name a person, a conversation or both.', where='query')
    mine = (
        and_(VectorMemory.scope == 'user', VectorMemory.person == person_label)
        if person_label is not None
        else false()
    )
    this_conversation = (
        and_(VectorMemory.scope == 'conversation', VectorMemory.conversation_id == conversation_id)
        if conversation_id and is_valid_id(conversation_id)
        else false()
    )
    conditions = [VectorMemory.tenant == tenant_label, or_(mine, this_conversation)]
    if source_types:
        for source_type in source_types:
            check_choice('source_type', source_type, SOURCE_TYPES)
        conditions.append(VectorMemory.source_type.in_(list(source_types)))
    return and_(*conditions)


def check_conversation(session: Session, conversation_id: str, tenant: str) -> None:
    """The conversation exists and is of `tenant`, or `VectorMemoryInvalid` naming `conversation_id`."""
    row = session.get(Conversation, conversation_id)
    if row is None:
        raise VectorMemoryInvalid('conversation_id', f'no conversation with id {shown_id(conversation_id)}.')
    owner = f'{row.tenant_type}:{row.tenant_id}' if row.tenant_type and row.tenant_id else None
    if owner != tenant:
        raise VectorMemoryInvalid(
            'conversation_id',
            f'conversation {shown_id(conversation_id)} is not one of tenant {tenant} '
            "(a conversation-scoped memory is of its conversation's tenant).",
        )
