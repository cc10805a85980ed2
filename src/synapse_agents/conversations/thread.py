"""A conversation's replay in four queries, and one tool invocation in full.

`conversation_thread`: the conversation (with its source's title when it is a fork), the
conversations forked from it, its messages without `model_messages`, its tool invocations. Each
tool invocation is placed inside the assistant answer that made them, where the answer's stored
parts reference it; an answer's calls that no part references go last. Parts that are not well
formed (a row written by hand) are left out, and an answer whose stored `model_messages` are not a
JSON list is marked `corrupt` (told from the value's first character, or its JSON type on
PostgreSQL, so the thread still never reads them whole); stored deps values that are not a JSON object are
shown as none, the thread marked `corrupt` naming the row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, String, case, func, select, type_coerce
from sqlalchemy.orm import aliased

from ..corrupt import json_problem, note
from .history import LIST_COLUMNS, attachment_references
from .rows import (
    DETAIL_FIELDS,
    TOOL_FIELDS,
    AssistantEntry,
    ConversationThread,
    Entry,
    ErrorEntry,
    ForkSource,
    ForkSummary,
    NoticeEntry,
    OutputSegment,
    Segment,
    TextSegment,
    ToolCall,
    ToolCallDetail,
    ToolSegment,
    UserEntry,
    attachment_ref,
    json_object,
    summary_of,
)
from .tables import Conversation, Message, ToolInvocation

if TYPE_CHECKING:
    from ..store.repository import Store

_TOOL_COLUMNS = (ToolInvocation.message_id, *(getattr(ToolInvocation, name) for name in TOOL_FIELDS))
_DETAIL_COLUMNS = tuple(getattr(ToolInvocation, name) for name in DETAIL_FIELDS)

_MESSAGE_COLUMNS = (
    Message.id,
    Message.role,
    Message.status,
    Message.content,
    Message.attachments,
    Message.parts,
    Message.usage,
    Message.input_tokens,
    Message.output_tokens,
    Message.cost,
    Message.duration_ms,
    Message.meta,
    Message.details,
    Message.created_at,
    Message.copied_from_id,
)


def _model_messages_kind(dialect: str) -> ColumnElement[str]:
    """The JSON type of a message's `model_messages` ('array' when well formed, 'invalid' when it is
    not JSON), told without reading the value whole when it starts as a list."""
    column = Message.model_messages
    if dialect == 'postgresql':
        kind: Any = func.jsonb_typeof(column)
    else:
        kind = case(
            (column.is_(None), None),  # no messages stored (a notice, an answer written without them)
            (func.substr(column, 1, 1) == '[', 'array'),
            (func.json_valid(column) == 1, func.json_type(column)),
            else_='invalid',
        )
    return type_coerce(kind, String).label('model_messages_kind')


_KINDS = {'object': 'an object', 'text': 'a string', 'string': 'a string', 'integer': 'a number'}
_KINDS |= {'real': 'a number', 'number': 'a number', 'true': 'a boolean', 'false': 'a boolean'}
_KINDS |= {'boolean': 'a boolean'}


def _replay_problem(m: Any) -> str | None:
    """`corrupt.note` for an answer whose stored model messages are not a JSON list, else None."""
    kind = m.model_messages_kind
    if kind in (None, 'array', 'null'):
        return None
    detail = (
        'model_messages is not JSON'
        if kind == 'invalid'
        else f'model_messages holds {_KINDS[kind]}, not a list'
    )
    return note('messages', m.id, detail)


_source = aliased(Conversation)
_SOURCE_TITLE = (
    select(_source.title)
    .where(_source.id == Conversation.forked_from_id)
    .scalar_subquery()
    .label('source_title')
)
_FORK_COLUMNS = (
    Conversation.id,
    Conversation.title,
    Conversation.created_at,
    Conversation.forked_at_message_id,
)


def conversation_thread(store: Store, conversation_id: str) -> ConversationThread | None:
    """The whole thread in order, or None when there is no such conversation. Blocking."""
    with store.read() as session:
        conversation = session.execute(
            select(
                *LIST_COLUMNS, Conversation.forked_at_message_id, Conversation.deps_values, _SOURCE_TITLE
            ).where(Conversation.id == conversation_id)
        ).first()
        if conversation is None:
            return None
        forks = session.execute(
            select(*_FORK_COLUMNS)
            .where(Conversation.forked_from_id == conversation_id)
            .order_by(Conversation.created_at, Conversation.id)
        ).all()
        messages = session.execute(
            select(*_MESSAGE_COLUMNS, _model_messages_kind(store.dialect))
            .where(Message.conversation_id == conversation_id)
            .order_by(Message.id)
        ).all()
        tools = session.execute(
            select(*_TOOL_COLUMNS)
            .where(ToolInvocation.conversation_id == conversation_id)
            .order_by(ToolInvocation.started_at, ToolInvocation.id)
        ).all()
    by_message: dict[str | None, list[ToolCall]] = {}
    for tool in tools:
        by_message.setdefault(tool[0], []).append(ToolCall(*tool[1:]))
    source_id = conversation.forked_from_id
    damaged = json_problem('deps_values', conversation.deps_values, dict)
    return ConversationThread(
        conversation=summary_of(conversation),
        messages=tuple(_entry(m, by_message.pop(m.id, [])) for m in messages),
        forked_from=ForkSource(source_id, conversation.source_title, conversation.forked_at_message_id)
        if source_id is not None
        else None,
        forks=tuple(ForkSummary(*fork) for fork in forks),
        deps_values=None if damaged else conversation.deps_values,
        corrupt=note('conversations', conversation_id, damaged) if damaged else None,
    )


def _entry(m: Any, tools: list[ToolCall]) -> Entry:
    if m.role == 'user':
        attachments = tuple(attachment_ref(a) for a in attachment_references(m.attachments))
        return UserEntry(m.id, m.status, m.content, m.created_at, m.copied_from_id, attachments)
    if m.role == 'assistant':
        return AssistantEntry(
            m.id,
            m.status,
            m.content,
            m.created_at,
            m.copied_from_id,
            parts=_segments(m.parts, tools),
            usage=json_object(m.usage),
            input_tokens=m.input_tokens,
            output_tokens=m.output_tokens,
            cost=m.cost,
            duration_ms=m.duration_ms,
            meta=json_object(m.meta),
            corrupt=_replay_problem(m),
        )
    if m.role == 'error':
        return ErrorEntry(m.id, m.status, m.content, m.created_at, m.copied_from_id, json_object(m.details))
    return NoticeEntry(m.id, m.status, m.content, m.created_at, m.copied_from_id, json_object(m.meta))


def _segments(parts: Any, tools: list[ToolCall]) -> tuple[Segment, ...]:
    """The answer's stored parts with each tool reference replaced by its call; unplaced calls go last."""
    by_call = {tool.tool_call_id: tool for tool in tools}
    shown: list[Segment] = []
    for part in parts if isinstance(parts, list) else ():
        kind = part.get('type') if isinstance(part, dict) else None
        if kind in ('tool', 'native-tool'):
            tool = by_call.pop(part.get('tool_call_id'), None)
            if tool is not None:
                shown.append(ToolSegment(tool))
        elif kind in ('text', 'reasoning'):
            text = part.get('text')
            if isinstance(text, str):
                shown.append(TextSegment(kind, text))
        elif kind == 'structured-output':
            shown.append(OutputSegment(part.get('output')))
    shown.extend(ToolSegment(tool) for tool in by_call.values())
    return tuple(shown)


def tool_invocation(store: Store, tool_id: str) -> ToolCallDetail | None:
    """One tool invocation with its arguments and result in full. Blocking."""
    with store.read() as session:
        row = session.execute(select(*_DETAIL_COLUMNS).where(ToolInvocation.id == tool_id)).first()
    return ToolCallDetail(*row) if row is not None else None
