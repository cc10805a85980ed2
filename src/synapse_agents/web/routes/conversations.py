"""The history API: list, replay, rename, delete and clear conversations; one tool call in full.

An id in a path is checked to be a Synapse id (`errors.require_id`) before anything is read: any
other text is a 404 that touches neither the database nor the disk.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from ...store.history import PAGE_SIZE, ConversationFilters
from ...store.ids import shown_id
from ...store.rows import summary_of
from ..context import SynapseContext, get_context
from ..errors import ApiError, require_id
from .schemas import ConversationPage, ConversationRow, Deleted, Thread, ToolInvocationFull

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
    sort: Annotated[Literal['newest', 'oldest'], Query()] = 'newest',
    page: Annotated[int, Query(ge=1, le=100_000)] = 1,
) -> ConversationPage:
    """A page of conversations (25) matching the filters, newest first by default, and the total."""
    filters = ConversationFilters(
        search=search.strip() or None,
        agents=[*agents, *agents_brackets],
        status=status or None,
        tools=[*tools, *tools_brackets],
        date_from=_bound(date_from, 'from', end=False),
        date_to=_bound(date_to, 'to', end=True),
        newest_first=sort == 'newest',
        page=page,
    )
    rows, total, exact = await run_in_threadpool(context.store.conversations.page, filters)
    pages = (total + PAGE_SIZE - 1) // PAGE_SIZE
    return ConversationPage(
        conversations=[ConversationRow.of(row) for row in rows],
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
    thread = await run_in_threadpool(context.store.conversations.thread, conversation_id)
    if thread is None:
        raise ApiError(404, f'No conversation with id {shown_id(conversation_id)}.')
    return Thread.of(thread, **await _agent_facts(context, thread.conversation.agent_key))


async def _agent_facts(context: SynapseContext, slug: str) -> dict[str, bool]:
    from ...chat.service import AgentLookupError, find_agent

    try:
        found = await find_agent(context.catalog, slug)
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
    renamed = await run_in_threadpool(context.store.conversations.rename, conversation_id, title)
    if renamed is None:
        raise ApiError(404, f'No conversation with id {shown_id(conversation_id)}.')
    return ConversationRow.of(summary_of(renamed))


@router.delete('/api/conversations/{conversation_id}', response_model=Deleted)
async def delete(conversation_id: str, context: Context) -> Deleted:
    """Delete a conversation with its messages, tool rows, ledger rows and files."""
    require_id(conversation_id, 'conversation')
    await context.chat_service().writes.drain()
    report = await run_in_threadpool(context.store.conversations.delete, conversation_id)
    if report.conversations == 0:
        raise ApiError(404, f'No conversation with id {shown_id(conversation_id)}.')
    return Deleted.of(report)


@router.post('/api/conversations/clear', response_model=Deleted)
async def clear(context: Context) -> Deleted:
    """Delete every conversation and everything that belongs to one."""
    await context.chat_service().writes.drain()
    report = await run_in_threadpool(context.store.conversations.clear)
    return Deleted.of(report)


@router.get('/api/tool-invocations/{tool_id}', response_model=ToolInvocationFull)
async def one_tool_invocation(tool_id: str, context: Context) -> ToolInvocationFull:
    """One tool invocation with its arguments and result in full (the replay may cut them)."""
    require_id(tool_id, 'tool invocation')
    found = await run_in_threadpool(context.store.conversations.tool_invocation, tool_id)
    if found is None:
        raise ApiError(404, f'No tool invocation with id {shown_id(tool_id)}.')
    return ToolInvocationFull.of(found)
