"""The history API: list, replay, rename, fork, delete and clear conversations; one tool call in full.

An id in a path is checked to be a Synapse id (`errors.require_id`) before anything is read: any
other text is a 404 that touches neither the database nor the disk.
"""

from __future__ import annotations

import errno
from datetime import UTC, date, datetime, time, timedelta
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ...chat.request import Origin
from ...chat.service import find_agent
from ...conversations.history import PAGE_SIZE, ConversationFilters, ScopeFilter
from ...conversations.repository import ConversationRepository
from ...conversations.rows import summary_of
from ...conversations.snippets import Snippet, page_snippets
from ...errors import AgentLookupError, ConversationNotFound, NotAUserMessage, TurnInFlight
from ...scope import MAX_LENGTH
from ...store.ids import is_valid_id, shown_id
from ..context import SynapseContext, get_context
from ..errors import ApiError, error_responses, require_id
from .schemas import ConversationListRow, ConversationPage, ConversationRow, Deleted
from .thread_schemas import Thread, ToolInvocationFull

router = APIRouter(tags=['conversations'])


Context = Annotated[SynapseContext, Depends(get_context)]
Name = Annotated[str, Field(min_length=1, max_length=500)]
"""An agent slug or a tool name in a filter (an empty one means nothing: it is refused)."""


def _bound(value: str, name: str, *, end: bool) -> datetime | None:
    """An ISO date (whole day) or datetime, in UTC; a date as `to` includes that day.

    A bound beyond what a datetime can hold (`to=9999-12-31`, `from=0001-01-01T00:00-05:00`) is
    no bound at all.
    """
    if not value:
        return None
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            moment = datetime.combine(day, time.min, tzinfo=UTC)
            return moment + timedelta(days=1) if end else moment
        parsed = datetime.fromisoformat(value.replace('Z', '+00:00').replace('z', '+00:00'))
        return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).astimezone(UTC)
    except OverflowError:
        return None
    except ValueError as exc:
        raise ApiError(
            422,
            f'{name}: not an ISO date or datetime.',
            fields=[{'location': f'query.{name}', 'message': str(exc)}],
        ) from exc


def _scope(value: str | None, name: str) -> ScopeFilter | None:
    """`type:id` split at the first colon; `type` or `type:` alone matches every id of that type."""
    if value is None:
        return None
    kind, _colon, ident = value.partition(':')
    problem = None
    if not kind:
        problem = 'the type (before the first colon) is empty'
    elif '\x00' in value:
        problem = 'NUL characters are not accepted'
    elif len(kind) > MAX_LENGTH or len(ident) > MAX_LENGTH:
        problem = f'the type and the id are each at most {MAX_LENGTH} characters'
    if problem is not None:
        raise ApiError(
            422,
            f'{name}: expected type:id (or type alone), but {problem}.',
            fields=[{'location': f'query.{name}', 'message': problem}],
        )
    return kind, ident or None


_SCOPE = {
    'type': 'string',
    'pattern': r'^[^:\x00]{1,255}(:[^\x00]{0,255})?$',
    'description': 'type:id (split at the first colon), or type alone for every id of that type.',
}
_ID: dict[str, Any] = {
    'type': 'string',
    'pattern': r'^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$',
}
"""A Synapse id (`ids.is_valid_id`), as the schema states it; the route checks it itself."""

_ISO = {
    'anyOf': [
        {'type': 'string', 'format': 'date'},
        {'type': 'string', 'format': 'date-time'},
        {'type': 'string', 'maxLength': 0},
    ],
    'description': 'An ISO 8601 date or datetime (UTC when it names no offset); empty means no bound.',
}


@router.get('/api/conversations', response_model=ConversationPage)
async def conversations(
    *,
    context: Context,
    search: Annotated[str, Query(max_length=200)] = '',
    agents: Annotated[list[Name], Query(default_factory=list)],
    agents_brackets: Annotated[list[Name], Query(alias='agents[]', default_factory=list)],
    status: Annotated[Literal['success', 'error', ''], Query()] = '',
    tools: Annotated[list[Name], Query(default_factory=list)],
    tools_brackets: Annotated[list[Name], Query(alias='tools[]', default_factory=list)],
    date_from: Annotated[str, Query(alias='from', json_schema_extra=_ISO)] = '',
    date_to: Annotated[str, Query(alias='to', json_schema_extra=_ISO)] = '',
    origin: Annotated[list[Origin], Query(default_factory=list)],
    origin_brackets: Annotated[list[Origin], Query(alias='origin[]', default_factory=list)],
    tenant: Annotated[str | None, Query(json_schema_extra=_SCOPE)] = None,
    actor: Annotated[str | None, Query(json_schema_extra=_SCOPE)] = None,
    subject: Annotated[str | None, Query(json_schema_extra=_SCOPE)] = None,
    forked_from: Annotated[
        str | None, Query(description='Only the forks of this conversation.', json_schema_extra=_ID)
    ] = None,
    sort: Annotated[Literal['newest', 'oldest'], Query()] = 'newest',
    page: Annotated[int, Query(ge=1, le=100_000)] = 1,
) -> ConversationPage:
    """A page of conversations (25) matching the filters, newest first by default, and the total; for a
    search each row carries a snippet of where the term matched."""
    if forked_from is not None and not is_valid_id(forked_from):
        raise ApiError(
            422,
            f'forked_from: {shown_id(forked_from)} is not a conversation id.',
            fields=[{'location': 'query.forked_from', 'message': 'not a conversation id'}],
        )
    filters = ConversationFilters(
        search=search.strip() or None,
        agents=[*agents, *agents_brackets],
        status=status or None,
        tools=[*tools, *tools_brackets],
        date_from=_bound(date_from, 'from', end=False),
        date_to=_bound(date_to, 'to', end=True),
        origins=list(dict.fromkeys([*origin, *origin_brackets])),
        tenant=_scope(tenant, 'tenant'),
        actor=_scope(actor, 'actor'),
        subject=_scope(subject, 'subject'),
        forked_from=forked_from,
        newest_first=sort == 'newest',
        page=page,
    )
    rows, total, exact = await run_in_threadpool(ConversationRepository(context.store).page, filters)
    snippets: dict[str, Snippet | None] = {}
    if filters.search and rows:
        snippets = await run_in_threadpool(page_snippets, context.store, rows, filters.search)
    pages = (total + PAGE_SIZE - 1) // PAGE_SIZE
    return ConversationPage(
        conversations=[ConversationListRow.listed(row, snippets.get(row.id)) for row in rows],
        total=total,
        total_exact=exact,
        page=page,
        page_size=PAGE_SIZE,
        pages=pages,
    )


@router.get('/api/conversations/{conversation_id}', response_model=Thread)
async def conversation(conversation_id: str, context: Context) -> Thread:
    """The whole thread in order, with tool invocations inside the answers that made them."""
    require_id(conversation_id, 'conversation')
    thread = await run_in_threadpool(ConversationRepository(context.store).thread, conversation_id)
    if thread is None:
        raise ApiError(404, f'No conversation with id {shown_id(conversation_id)}.')
    return Thread.of(thread, **await _agent_facts(context, thread.conversation.agent_key))


async def _agent_facts(context: SynapseContext, slug: str) -> dict[str, bool]:
    try:
        found = await find_agent(context, slug)
    except AgentLookupError:
        found = None
    return {'stateless': bool(getattr(found, 'stateless', False)), 'agent_available': found is not None}


class Rename(BaseModel):
    """A new title."""

    title: str = Field(
        min_length=1,
        max_length=200,
        pattern=r'^[^\x00]*[^\s\x00\x1c-\x1f][^\x00]*$',
        description='1 to 200 characters, not only whitespace, no NUL (runs of whitespace become one space).',
    )


@router.patch('/api/conversations/{conversation_id}', response_model=ConversationRow)
async def rename(conversation_id: str, body: Rename, context: Context) -> ConversationRow:
    """Rename a conversation (1 to 200 characters)."""
    require_id(conversation_id, 'conversation')
    title = ' '.join(body.title.split())
    if not title:
        raise ApiError(
            422, 'title: must not be empty.', fields=[{'location': 'body.title', 'message': 'empty'}]
        )
    renamed = await run_in_threadpool(ConversationRepository(context.store).rename, conversation_id, title)
    if renamed is None:
        raise ApiError(404, f'No conversation with id {shown_id(conversation_id)}.')
    return ConversationRow.of(summary_of(renamed))


_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
"""A disk that is full: 507 (`store_full`); any other refusal is a 503."""


class ForkRequest(BaseModel):
    """Where to fork: the user message to re-run; the fork holds copies of the turns before it."""

    model_config = ConfigDict(extra='forbid')

    message_id: str = Field(description='A user message of the conversation.', json_schema_extra=_ID)
    title: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        pattern=r'^[^\x00]*[^\s\x00\x1c-\x1f][^\x00]*$',
        description="The fork's title (`fork of <the source's title>` when left out; a fork of a fork keeps "
        "its source's `fork of …` title).",
    )


@router.post(
    '/api/conversations/{conversation_id}/fork',
    response_model=ConversationRow,
    status_code=201,
    responses=error_responses(409, 507),
)
async def fork(conversation_id: str, body: ForkRequest, context: Context) -> ConversationRow:
    """A new conversation holding copies of the turns before one user message, to re-run it."""
    require_id(conversation_id, 'conversation')
    if not is_valid_id(body.message_id):
        raise ApiError(
            422,
            f'message_id: {shown_id(body.message_id)} is not a message id.',
            fields=[{'location': 'body.message_id', 'message': 'not a message id'}],
        )
    title = ' '.join(body.title.split()) if body.title is not None else None
    if title == '':
        raise ApiError(
            422, 'title: must not be empty.', fields=[{'location': 'body.title', 'message': 'empty'}]
        )
    await context.chat_service().writes.drain()
    try:
        forked = await run_in_threadpool(
            ConversationRepository(context.store).fork, conversation_id, body.message_id, title=title
        )
    except ConversationNotFound as exc:
        raise ApiError(404, f'No conversation with id {shown_id(conversation_id)}.') from exc
    except NotAUserMessage as exc:
        raise ApiError(
            404, f'No user message with id {shown_id(body.message_id)} in this conversation.'
        ) from exc
    except TurnInFlight as exc:
        raise ApiError(409, str(exc)) from exc
    except OSError as exc:  # the disk refused a copied file; nothing was stored
        full = exc.errno in _FULL
        raise ApiError(
            507 if full else 503,
            f'The attachments could not be copied: {exc.strerror or exc}.',
            code='store_full' if full else 'store_unavailable',
        ) from exc
    return ConversationRow.of(summary_of(forked))


@router.delete('/api/conversations/{conversation_id}', response_model=Deleted)
async def delete(conversation_id: str, context: Context) -> Deleted:
    """Delete a conversation with its messages, tool rows, ledger rows and files."""
    require_id(conversation_id, 'conversation')
    await context.chat_service().writes.drain()
    report = await run_in_threadpool(ConversationRepository(context.store).delete, conversation_id)
    if report.conversations == 0:
        raise ApiError(404, f'No conversation with id {shown_id(conversation_id)}.')
    return Deleted.of(report)


@router.post('/api/conversations/clear', response_model=Deleted)
async def clear(context: Context) -> Deleted:
    """Delete every conversation and everything that belongs to one."""
    await context.chat_service().writes.drain()
    report = await run_in_threadpool(ConversationRepository(context.store).clear)
    return Deleted.of(report)


@router.get('/api/tool-invocations/{tool_id}', response_model=ToolInvocationFull)
async def one_tool_invocation(tool_id: str, context: Context) -> ToolInvocationFull:
    """One tool invocation with its arguments and result in full (the replay may cut them)."""
    require_id(tool_id, 'tool invocation')
    found = await run_in_threadpool(ConversationRepository(context.store).tool_invocation, tool_id)
    if found is None:
        raise ApiError(404, f'No tool invocation with id {shown_id(tool_id)}.')
    return ToolInvocationFull.of(found)
