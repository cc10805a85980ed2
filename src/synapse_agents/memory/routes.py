"""The memory HTTP API: browse, search by meaning, add, change, forget; a person's memories and choice.

Axes are `type:id` labels (`org:acme`, `case:7`, `user:42`). A bad input is a 422 naming the field
(`MemoryInvalid`), an unknown id a 404 (`MemoryNotFound`); blocking services run in a thread.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query
from pydantic import BaseModel, ConfigDict, Field, StrictBool
from starlette.concurrency import run_in_threadpool

from ..conversations.tables import Conversation
from ..errors import ConversationNotFound, MemoryInvalid
from ..scope import Scope
from ..web.context import SynapseContext, get_context
from ..web.errors import ApiError, error_responses
from ..wire_types import Timestamp
from . import book
from .jobs import queue_distillation
from .recall import MAX_K, Found, Recall
from .tables import Memory

router = APIRouter(tags=['memory'])

Context = Annotated[SynapseContext, Depends(get_context)]
LABEL = r'^[^:\x00]{1,255}:[^\x00]{1,255}$'
CONTENT = r'^[^\x00]*[^\s\x00\x1c-\x1f][^\x00]*$'
Label = Annotated[str, Field(json_schema_extra={'pattern': LABEL}, examples=['org:acme'])]
Content = Annotated[
    str,
    Field(
        json_schema_extra={'pattern': CONTENT, 'maxLength': book.MAX_CONTENT},
        examples=['Invoices go out fortnightly.'],
    ),
]
LabelQuery = Annotated[
    str | None,
    Query(
        json_schema_extra={'pattern': r'^([^:\x00]{1,255}:[^\x00]{1,255})?$'},
        description="A `type:id`; '' for none.",
    ),
]
RequiredLabel = Annotated[str, Query(json_schema_extra={'pattern': LABEL}, description='`type:id`')]
Actor = Annotated[str, Path(json_schema_extra={'pattern': LABEL}, description='Who: `type:id`.')]
CURSOR = r'^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
"""A Synapse id (what a cursor and a memory id are); another is a 404 or a 422, never a lookup."""
MemoryId = Annotated[str, Path(json_schema_extra={'pattern': CURSOR}, description='A memory id.')]


class MemoryOut(BaseModel):
    """A memory as stored."""

    id: str
    tenant: str = Field(description='Whose memory it is (`type:id`).')
    subject: str | None = Field(description='What it is about; null: the tenant as a whole.')
    applies_to: str | None = Field(description='Who it applies to; null: everyone in that scope.')
    content: str
    source: Literal['distilled', 'tool', 'manual']
    created_by: str | None
    agent_key: str | None = Field(description='The agent that produced it.')
    conversation_id: str | None
    source_message_ids: list[str]
    embedded: bool = Field(
        description='Whether it has a vector of the current embedder (searchable by meaning).'
    )
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, memory: Memory, embedded: bool) -> MemoryOut:
        values = {name: getattr(memory, name) for name in cls.model_fields if name != 'embedded'}
        values['source_message_ids'] = [str(i) for i in memory.source_message_ids or []]
        return cls(**values, embedded=embedded)


class MemoryPage(BaseModel):
    memories: list[MemoryOut]
    next_cursor: str | None = None


class MemoryIn(BaseModel):
    """A memory written by hand."""

    model_config = ConfigDict(extra='forbid')

    tenant: Label
    content: Content
    subject: Label | None = None
    applies_to: Label | None = None
    created_by: str | None = Field(None, max_length=511, pattern=r'^[^\x00]*$')


class MemoryPatch(BaseModel):
    """The fields to change; the others stay. `subject` or `applies_to` null: tenant-wide, everyone."""

    model_config = ConfigDict(extra='forbid')

    content: Content = None  # type: ignore[assignment]  # may be left out, never null
    subject: Label | None = None
    applies_to: Label | None = None


class SearchResult(BaseModel):
    memory: MemoryOut
    score: float | None = Field(description='Cosine similarity to the query; null when ranked by recency.')
    applies_to_everyone: bool


class SearchAnswer(BaseModel):
    ranked_by: Literal['similarity', 'recency']
    embedder: str | None
    results: list[SearchResult]


class MemoryDeleted(BaseModel):
    deleted: str


class Forgotten(BaseModel):
    deleted: int


class Sharing(BaseModel):
    """A person's choice about shared memories: null never chose (the `share_memories` setting applies)."""

    actor: str
    share_memories: bool | None
    effective: bool


class SharingIn(BaseModel):
    model_config = ConfigDict(extra='forbid')

    share_memories: StrictBool | None


class MemoryStatus(BaseModel):
    distiller_model: str | None = Field(description='The `memory_model` setting; null: nothing is distilled.')
    embedder: str | None = Field(description='What embeds memories; null: search ranks by recency.')
    embedder_problem: str | None = Field(
        None, description='Why the `embedder` setting names an embedder that cannot be used here; null: none.'
    )
    vector_store: Literal['sqlite-vec', 'pgvector', 'exact']
    share_memories_default: bool
    memories: int


class DistillIn(BaseModel):
    model_config = ConfigDict(extra='forbid')

    conversation_id: str = Field(max_length=36)


class DistillQueued(BaseModel):
    task_id: str | None = Field(
        description='The queued task; null when one for this conversation already waits.'
    )


@router.get('/api/memories/status', response_model=MemoryStatus)
async def memory_status(context: Context) -> MemoryStatus:
    """What distils and embeds memories here, and how many there are."""
    recall = await run_in_threadpool(Recall.of, context.store, context.settings)
    return MemoryStatus(
        distiller_model=context.settings.memory_model,
        embedder=recall.embedder_name,
        embedder_problem=recall.embedder_problem,
        vector_store=recall.index.kind,
        share_memories_default=context.settings.share_memories,
        memories=await run_in_threadpool(book.count, context.store),
    )


@router.get('/api/memories', response_model=MemoryPage)
async def list_memories(
    context: Context,
    tenant: LabelQuery = None,
    subject: LabelQuery = None,
    applies_to: LabelQuery = None,
    source: Literal['distilled', 'tool', 'manual'] | None = None,
    cursor: Annotated[str | None, Query(json_schema_extra={'pattern': CURSOR})] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = book.PAGE,
) -> MemoryPage:
    """Memories, newest first, a page at a time (`next_cursor` for the next)."""
    filters = book.MemoryFilters(tenant=tenant or None, subject=subject, applies_to=applies_to, source=source)
    rows, next_cursor = await run_in_threadpool(
        lambda: book.listing(context.store, filters, cursor=cursor, limit=limit)
    )
    return MemoryPage(memories=await _out(context, rows), next_cursor=next_cursor)


@router.post('/api/memories', response_model=MemoryOut, status_code=201, responses=error_responses(409))
async def add_memory(body: MemoryIn, context: Context) -> MemoryOut:
    """A memory written by hand (embedded on write); one saying what a stored one on its axes says: 422."""
    recall = await run_in_threadpool(Recall.of, context.store, context.settings)
    written = await recall.remember(
        [book.MemoryInput(source='manual', **body.model_dump())], user=body.created_by
    )
    if not written:
        raise ApiError(409, 'A memory saying this is already stored on these axes.', code='memory_exists')
    return (await _out(context, written, recall))[0]


@router.get('/api/memories/search', response_model=SearchAnswer)
async def search_memories(
    context: Context,
    tenant: RequiredLabel,
    q: Annotated[str, Query(min_length=1, max_length=2000)],
    subject: LabelQuery = None,
    actor: LabelQuery = None,
    k: Annotated[int, Query(ge=1, le=MAX_K)] = 10,
) -> SearchAnswer:
    """The memories a conversation of this tenant, subject and actor sees, closest to `q` first."""
    scope = _scope(tenant, subject, actor)
    recall = await run_in_threadpool(Recall.of, context.store, context.settings)
    answer = await recall.search(scope, q, k)
    outs = await _out(context, [f.memory for f in answer.results], recall)
    return SearchAnswer(
        ranked_by=answer.ranked_by,
        embedder=answer.embedder,
        results=[_result(found, out) for found, out in zip(answer.results, outs, strict=True)],
    )


@router.get('/api/memories/people/{actor}', response_model=MemoryPage)
async def person_memories(actor: Actor, context: Context, tenant: LabelQuery = None) -> MemoryPage:
    """Everything that applies to this person (in one tenant, or in all)."""
    rows = await run_in_threadpool(book.for_person, context.store, _actor(actor), tenant or None)
    return MemoryPage(memories=await _out(context, rows))


@router.delete('/api/memories/people/{actor}', response_model=Forgotten)
async def forget_person(actor: Actor, context: Context, tenant: LabelQuery = None) -> Forgotten:
    """Delete everything that applies to this person (in one tenant, or in all)."""
    return Forgotten(
        deleted=await run_in_threadpool(book.forget_person, context.store, _actor(actor), tenant or None)
    )


@router.get('/api/memories/people/{actor}/sharing', response_model=Sharing)
async def get_sharing(actor: Actor, context: Context) -> Sharing:
    """The person's choice about shared memories."""
    chosen = await run_in_threadpool(book.sharing, context.store, _actor(actor))
    return _sharing(context, actor, chosen)


@router.put('/api/memories/people/{actor}/sharing', response_model=Sharing)
async def put_sharing(actor: Actor, body: SharingIn, context: Context) -> Sharing:
    """Store the person's choice (null: forget it); it gates the shared half of what is written next."""
    chosen = await run_in_threadpool(book.set_sharing, context.store, _actor(actor), body.share_memories)
    return _sharing(context, actor, chosen)


@router.post(
    '/api/memories/distill',
    response_model=DistillQueued,
    status_code=202,
    responses=error_responses(404, 409),
)
async def distill_conversation(body: DistillIn, context: Context) -> DistillQueued:
    """Queue the distillation of a conversation (what it said since the last one)."""
    if not context.settings.memory_model:
        raise ApiError(
            409, 'No memory_model is named: nothing is distilled until one is.', code='no_memory_model'
        )
    conversation = await run_in_threadpool(_conversation, context, body.conversation_id)
    return DistillQueued(
        task_id=await run_in_threadpool(
            queue_distillation, context, conversation.id, Scope.from_columns(conversation).tenant
        )
    )


@router.get('/api/memories/{memory_id}', response_model=MemoryOut, responses=error_responses(404))
async def get_memory(memory_id: MemoryId, context: Context) -> MemoryOut:
    row = await run_in_threadpool(book.get, context.store, memory_id)
    return (await _out(context, [row]))[0]


@router.patch('/api/memories/{memory_id}', response_model=MemoryOut, responses=error_responses(404))
async def change_memory(memory_id: MemoryId, body: MemoryPatch, context: Context) -> MemoryOut:
    """Change a memory's content (embedded again), subject or applies_to."""
    changes: dict[str, Any] = body.model_dump(exclude_unset=True)
    recall = await run_in_threadpool(Recall.of, context.store, context.settings)
    row = await recall.change(memory_id, changes)
    return (await _out(context, [row], recall))[0]


@router.delete('/api/memories/{memory_id}', response_model=MemoryDeleted, responses=error_responses(404))
async def forget_memory(memory_id: MemoryId, context: Context) -> MemoryDeleted:
    """Delete a memory for good."""
    await run_in_threadpool(book.remove, context.store, memory_id)
    return MemoryDeleted(deleted=memory_id)


async def _out(context: SynapseContext, rows: list[Memory], recall: Recall | None = None) -> list[MemoryOut]:
    """`rows` as answered, each saying whether it has a vector of the embedder (`recall`'s, when the
    route made one already)."""
    if recall is None:
        recall = await run_in_threadpool(Recall.of, context.store, context.settings)
    embedded = await run_in_threadpool(
        book.embedded, context.store, [r.id for r in rows], recall.embedder_name
    )
    return [MemoryOut.of(row, row.id in embedded) for row in rows]


def _result(found: Found, out: MemoryOut) -> SearchResult:
    return SearchResult(memory=out, score=found.score, applies_to_everyone=found.applies_to_everyone)


def _sharing(context: SynapseContext, actor: str, chosen: bool | None) -> Sharing:
    effective = context.settings.share_memories if chosen is None else chosen
    return Sharing(actor=_actor(actor), share_memories=chosen, effective=effective)


def _actor(actor: str) -> str:
    try:
        return book.check_label('actor', actor, required=True) or ''
    except MemoryInvalid as exc:
        raise MemoryInvalid('actor', exc.problem, where='path') from None


def _scope(tenant: str, subject: str | None, actor: str | None) -> Scope:
    try:
        labels = {
            'tenant': book.check_label('tenant', tenant, required=True),
            'subject': book.check_label('subject', subject),
            'actor': book.check_label('actor', actor),
        }
    except MemoryInvalid as exc:
        raise MemoryInvalid(exc.field, exc.problem, where='query') from None
    pairs = {axis: tuple(label.split(':', 1)) if label else None for axis, label in labels.items()}
    return Scope(**pairs)  # type: ignore[arg-type]


def _conversation(context: SynapseContext, conversation_id: str) -> Conversation:
    with context.store.read() as session:
        row = session.get(Conversation, conversation_id)
        if row is None:
            raise ConversationNotFound(f'No conversation with id {conversation_id[:40]}.')
        session.expunge(row)
        return row
