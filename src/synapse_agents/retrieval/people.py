"""The privacy view: everything stored about one person within one tenant, listed or deleted.

A person is an actor's `type:id` (`user:42`). What is stored about them in a tenant:

- their vector memories (both scopes: `person` is them);
- the memory area's memories that apply to them (`applies_to`) or are about them (`subject`).

`forget_person` deletes all of those and says how many of each went. The ledger's rows naming the
person (`llm_calls.user`) are counted but never deleted: the ledger is the books (docs/accounting.md),
and its rows hold tokens and costs, not what was said. Conversations and their messages are
deleted with the conversations themselves (`DELETE /api/conversations/{id}`).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select

from ..accounting.tables import LlmCall
from ..errors import MemoryNotFound
from ..memory import book
from ..memory.tables import Memory
from ..store import Store
from . import vector_memory
from .memory_tables import VectorMemory

LEDGER_KEPT = (
    'The ledger (llm_calls) keeps its rows naming this person: they are the books (tokens and '
    'costs, never what was said) and are never deleted.'
)
_BATCH = 200


@dataclass(frozen=True)
class PersonData:
    """What is stored about `person` in `tenant`."""

    person: str
    tenant: str
    vector_memories: list[VectorMemory]
    memories: list[Memory]
    """The memory area's memories that apply to the person or are about them, newest first."""
    ledger_rows: int
    """Ledger rows naming the person in this tenant (kept: see the module docstring)."""


@dataclass(frozen=True)
class PersonForgotten:
    """What `forget_person` deleted, and what it kept."""

    person: str
    tenant: str
    vector_memories: int
    memories: int
    ledger_rows_kept: int


def labels(person: str, tenant: str) -> tuple[str, str]:
    """`person` and `tenant` as stored labels, or `VectorMemoryInvalid` naming the one at fault."""
    return (
        vector_memory.check_label('person', person, required=True, where='path') or '',
        vector_memory.check_label('tenant', tenant, required=True, where='query') or '',
    )


def person_data(store: Store, person: str, tenant: str) -> PersonData:
    """Everything stored about `person` in `tenant` (blocking)."""
    person, tenant = labels(person, tenant)
    return PersonData(
        person=person,
        tenant=tenant,
        vector_memories=vector_memory.for_person(store, person, tenant),
        memories=_memories(store, person, tenant),
        ledger_rows=_ledger_rows(store, person, tenant),
    )


def forget_person(store: Store, person: str, tenant: str) -> PersonForgotten:
    """Delete everything stored about `person` in `tenant` but the ledger; the counts (blocking).

    Each kind is deleted in its own transaction: a delete interrupted half-way is finished by
    asking again, and nothing of another person or another tenant is touched."""
    person, tenant = labels(person, tenant)
    vectors = vector_memory.forget_person(store, person, tenant)
    memories = book.forget_person(store, person, tenant)
    for row in _about(store, person, tenant):
        try:
            book.remove(store, row.id)
        except MemoryNotFound:  # deleted meanwhile
            continue
        memories += 1
    return PersonForgotten(
        person=person,
        tenant=tenant,
        vector_memories=vectors,
        memories=memories,
        ledger_rows_kept=_ledger_rows(store, person, tenant),
    )


def _memories(store: Store, person: str, tenant: str) -> list[Memory]:
    applying = book.for_person(store, person, tenant)
    seen = {row.id for row in applying}
    about = [row for row in _about(store, person, tenant) if row.id not in seen]
    return sorted([*applying, *about], key=lambda row: row.id, reverse=True)


def _about(store: Store, person: str, tenant: str) -> list[Memory]:
    """The memories of `tenant` whose subject is `person`, every page."""
    filters = book.MemoryFilters(tenant=tenant, subject=person)
    rows, cursor = book.listing(store, filters, limit=_BATCH)
    while cursor is not None:
        more, cursor = book.listing(store, filters, cursor=cursor, limit=_BATCH)
        rows.extend(more)
    return rows


def _ledger_rows(store: Store, person: str, tenant: str) -> int:
    query = select(func.count()).select_from(LlmCall).where(LlmCall.user == person, LlmCall.tenant == tenant)
    with store.read() as session:
        return int(session.scalar(query) or 0)
