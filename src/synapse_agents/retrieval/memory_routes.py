"""The vector memory HTTP API, and the privacy view of one person's data.

`/api/vector-memories`: browse one tenant's (GET), recall by meaning (GET `/recall`), write (POST),
forget one (DELETE). `/api/people/{person}/data?tenant=`: everything stored about a person in a
tenant (GET) and deleting it (DELETE). Labels are `type:id`; a bad input is a 422 naming the field
(`VectorMemoryInvalid`), an unknown id a 404 (`VectorMemoryNotFound`); blocking services run in a
thread.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query
from pydantic import BaseModel, ConfigDict, Field, JsonValue
from starlette.concurrency import run_in_threadpool

from ..memory.tables import Memory
from ..web.context import SynapseContext, get_context
from ..web.errors import error_responses
from ..wire_types import Timestamp
from . import people, vector_memory
from .memory_tables import VectorMemory

router = APIRouter(tags=['vector memory'])

Context = Annotated[SynapseContext, Depends(get_context)]
LABEL = r'^[^:\x00]{1,255}:[^\x00]{1,255}$'
CONTENT = r'^[^\x00]*[^\s\x00\x1c-\x1f][^\x00]*$'
ID = r'^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
"""A Synapse id (a memory's, a conversation's, a cursor)."""
Label = Annotated[str, Field(json_schema_extra={'pattern': LABEL}, examples=['user:42'])]
RequiredLabel = Annotated[str, Query(json_schema_extra={'pattern': LABEL}, description='`type:id`')]
LabelQuery = Annotated[
    str | None,
    Query(
        json_schema_extra={'pattern': r'^([^:\x00]{1,255}:[^\x00]{1,255})?$'},
        description="A `type:id`; '' for none.",
    ),
]
IdQuery = Annotated[str | None, Query(pattern=ID)]
Person = Annotated[str, Path(json_schema_extra={'pattern': LABEL}, description='Who: `type:id`.')]
MemoryId = Annotated[str, Path(json_schema_extra={'pattern': ID}, description='A vector memory id.')]
ScopeName = Literal['user', 'conversation']
SourceType = Literal['fact', 'document', 'manual']


class VectorMemoryOut(BaseModel):
    """A vector memory as stored (its vector left out)."""

    model_config = ConfigDict(from_attributes=True)

    id: str
    tenant: str = Field(description='Whose memory it is (`type:id`).')
    person: str | None = Field(description='The person it belongs to or is about (`type:id`).')
    scope: ScopeName = Field(description='`user`: permanent; `conversation`: removed with its conversation.')
    conversation_id: str | None
    source_type: SourceType
    content: str
    meta: dict[str, Any]
    embedder: str | None = Field(description='What embedded it; null: not embedded (found by recency).')
    dimensions: int | None
    created_at: Timestamp


class VectorMemoryPage(BaseModel):
    vector_memories: list[VectorMemoryOut]
    next_cursor: str | None = None


class VectorMemoryIn(BaseModel):
    """A vector memory to write."""

    model_config = ConfigDict(extra='forbid')

    tenant: Label
    content: Annotated[
        str,
        Field(
            json_schema_extra={'pattern': CONTENT, 'maxLength': vector_memory.MAX_CONTENT},
            examples=['Prefers invoices by e-mail.'],
        ),
    ]
    scope: ScopeName = 'user'
    person: Label | None = Field(None, description='Required for scope `user`.')
    conversation_id: str | None = Field(
        None,
        json_schema_extra={'pattern': ID},
        description="Required for scope `conversation` (one of the tenant's conversations); none for `user`.",
    )
    source_type: SourceType = 'manual'
    meta: dict[str, JsonValue] = Field(default_factory=dict)


class Recalled(BaseModel):
    memory: VectorMemoryOut
    score: float | None = Field(description='Cosine similarity to the query; null when ranked by recency.')


class RecallOut(BaseModel):
    ranked_by: Literal['similarity', 'recency']
    embedder: str | None
    results: list[Recalled]


class VectorMemoryDeleted(BaseModel):
    deleted: str


class PersonMemoryOut(BaseModel):
    """One of the memory area's memories, as the privacy view lists it."""

    model_config = ConfigDict(from_attributes=True)

    id: str
    subject: str | None
    applies_to: str | None
    content: str
    source: str
    conversation_id: str | None
    created_at: Timestamp


class PersonDataOut(BaseModel):
    """Everything stored about one person in one tenant."""

    person: str
    tenant: str
    vector_memories: list[VectorMemoryOut]
    memories: list[PersonMemoryOut] = Field(
        description="The memory area's memories that apply to the person or are about them."
    )
    ledger_rows: int = Field(description='Ledger rows naming the person in this tenant (never deleted).')
    ledger: str = Field(description='What becomes of the ledger rows.')


class PersonDeletedCounts(BaseModel):
    vector_memories: int
    memories: int


class PersonForgottenOut(BaseModel):
    """What deleting a person's data removed, and what it kept."""

    person: str
    tenant: str
    deleted: PersonDeletedCounts
    ledger_rows_kept: int = Field(description='Ledger rows naming the person: the books, kept.')
    ledger: str


@router.get('/api/vector-memories', response_model=VectorMemoryPage)
async def list_vector_memories(
    context: Context,
    tenant: RequiredLabel,
    person: LabelQuery = None,
    scope: ScopeName | None = None,
    conversation_id: IdQuery = None,
    source_type: SourceType | None = None,
    cursor: IdQuery = None,
    limit: Annotated[int, Query(ge=1, le=200)] = vector_memory.PAGE,
) -> VectorMemoryPage:
    """One tenant's vector memories, newest first, a page at a time (`next_cursor` for the next)."""
    filters = vector_memory.VectorMemoryFilters(
        tenant=tenant, person=person, scope=scope, conversation_id=conversation_id, source_type=source_type
    )
    rows, next_cursor = await run_in_threadpool(
        lambda: vector_memory.listing(context.store, filters, cursor=cursor, limit=limit)
    )
    return VectorMemoryPage(vector_memories=_outs(rows), next_cursor=next_cursor)


@router.post('/api/vector-memories', response_model=VectorMemoryOut, status_code=201)
async def add_vector_memory(body: VectorMemoryIn, context: Context) -> VectorMemoryOut:
    """Write a vector memory (embedded on write, when an embedder is on)."""
    memories = await run_in_threadpool(vector_memory.VectorMemories.of, context.store, context.settings)
    row = await memories.remember(vector_memory.VectorMemoryInput(**body.model_dump()))
    return VectorMemoryOut.model_validate(row)


@router.get('/api/vector-memories/recall', response_model=RecallOut)
async def recall_vector_memories(
    context: Context,
    tenant: RequiredLabel,
    q: Annotated[str, Query(min_length=1, max_length=2000)],
    person: LabelQuery = None,
    conversation_id: IdQuery = None,
    source_type: Annotated[list[SourceType] | None, Query()] = None,
    k: Annotated[int, Query(ge=1, le=vector_memory.MAX_K)] = 10,
) -> RecallOut:
    """The person's user-scoped and the conversation's conversation-scoped memories closest to `q`."""
    memories = await run_in_threadpool(vector_memory.VectorMemories.of, context.store, context.settings)
    answer = await memories.recall(
        q,
        tenant=tenant,
        person=person or None,
        conversation_id=conversation_id,
        k=k,
        source_types=source_type,
    )
    return RecallOut(
        ranked_by=answer.ranked_by,
        embedder=answer.embedder,
        results=[Recalled(memory=_out(found.memory), score=found.score) for found in answer.results],
    )


@router.delete(
    '/api/vector-memories/{memory_id}', response_model=VectorMemoryDeleted, responses=error_responses(404)
)
async def forget_vector_memory(
    memory_id: MemoryId, context: Context, tenant: LabelQuery = None
) -> VectorMemoryDeleted:
    """Delete a vector memory for good (only if it is `tenant`'s, when given)."""
    await run_in_threadpool(vector_memory.forget, context.store, memory_id, tenant or None)
    return VectorMemoryDeleted(deleted=memory_id)


@router.get('/api/people/{person}/data', response_model=PersonDataOut)
async def person_data(person: Person, context: Context, tenant: RequiredLabel) -> PersonDataOut:
    """Everything stored about this person in this tenant: vector memories and memories."""
    data = await run_in_threadpool(people.person_data, context.store, person, tenant)
    return PersonDataOut(
        person=data.person,
        tenant=data.tenant,
        vector_memories=_outs(data.vector_memories),
        memories=_memory_outs(data.memories),
        ledger_rows=data.ledger_rows,
        ledger=people.LEDGER_KEPT,
    )


@router.delete('/api/people/{person}/data', response_model=PersonForgottenOut)
async def forget_person_data(person: Person, context: Context, tenant: RequiredLabel) -> PersonForgottenOut:
    """Delete everything stored about this person in this tenant but the ledger (the books)."""
    gone = await run_in_threadpool(people.forget_person, context.store, person, tenant)
    return PersonForgottenOut(
        person=gone.person,
        tenant=gone.tenant,
        deleted=PersonDeletedCounts(vector_memories=gone.vector_memories, memories=gone.memories),
        ledger_rows_kept=gone.ledger_rows_kept,
        ledger=people.LEDGER_KEPT,
    )


def _out(row: VectorMemory) -> VectorMemoryOut:
    return VectorMemoryOut.model_validate(row)


def _outs(rows: list[VectorMemory]) -> list[VectorMemoryOut]:
    return [_out(row) for row in rows]


def _memory_outs(rows: list[Memory]) -> list[PersonMemoryOut]:
    return [PersonMemoryOut.model_validate(row) for row in rows]
