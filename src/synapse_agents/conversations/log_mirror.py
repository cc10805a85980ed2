"""`SqlConversationStore`'s conversations in Synapse's own tables, so the dashboard shows them.

pydantic-ai's conversation store keeps its log (`log_conversations`, `log_entries`: a chain of
entries a fork shares); the dashboard's history and thread read `conversations`, `messages` and
`tool_invocations`. Each save writes its new messages to both, in one transaction: a user message
row and an answer row per turn (`transcript.py`, the parts and content the chat recorder writes),
the answer's tool calls, and the conversation's counters. The log's conversation id is the app's
own string; its Synapse conversation has a UUIDv7-shaped id derived from it (`mirror_id`), with
origin `conversation-store`, the record's scope as its actor and the agent key `pydantic-ai`.
A delete of the record deletes its Synapse conversation too.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import datetime
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter
from sqlalchemy import Connection, insert, select, update

from ..store.ids import new_id
from ..store.prepared import execute
from ..store.schema import Base, utcnow
from ..store.tables import TableRegistry
from .tables import OWNER, Conversation, Message, ToolInvocation
from .totals import reconcile_totals
from .transcript import Turn, transcript
from .turn_writes import title_from

ORIGIN = 'conversation-store'
AGENT_KEY = 'pydantic-ai'

_conversations = Base.metadata.tables[Conversation.__tablename__]
_messages = Base.metadata.tables[Message.__tablename__]
_tools = Base.metadata.tables[ToolInvocation.__tablename__]
_INSERT_MESSAGE = insert(_messages)
_INSERT_TOOL = insert(_tools)


def mirror_id(conversation_id: str) -> str:
    """The Synapse conversation id of a log conversation: the same for the same id, shaped as a
    UUIDv7 (the form every Synapse id has, which the routes check)."""
    digest = bytearray(hashlib.sha256(conversation_id.encode()).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x70
    digest[8] = (digest[8] & 0x3F) | 0x80
    return str(uuid.UUID(bytes=bytes(digest)))


def mirror_save(
    connection: Connection, conversation_id: str, scope: str | None, messages: list[ModelMessage]
) -> None:
    """Add a save's new `messages` to the conversation's Synapse rows (made on its first save)."""
    target = mirror_id(conversation_id)
    turns = transcript(messages)
    now = utcnow()
    exists = connection.scalar(select(_conversations.c.id).where(_conversations.c.id == target))
    if exists is None:
        first = next((turn.prompt for turn in turns if turn.prompt), '')
        connection.execute(
            insert(_conversations).values(
                id=target,
                agent_key=AGENT_KEY,
                agent_name=AGENT_KEY,
                title=title_from(first or conversation_id),
                origin=ORIGIN,
                actor_type=None if scope is None else 'scope',
                actor_id=scope,
                has_error=False,
                created_at=now,
                updated_at=now,
            )
        )
    messages_rows: list[dict[str, Any]] = []
    tool_rows: list[dict[str, Any]] = []
    for turn in turns:
        _turn_rows(target, turn, now, messages_rows, tool_rows)
    # One multi-row insert each: a long history is one save.
    if messages_rows:
        execute(connection, _INSERT_MESSAGE, messages_rows)
    if tool_rows:
        execute(connection, _INSERT_TOOL, tool_rows)
    reconcile_totals(connection, target)
    connection.execute(update(_conversations).where(_conversations.c.id == target).values(updated_at=now))


def _turn_rows(
    conversation_id: str,
    turn: Turn,
    now: datetime,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
) -> None:
    """Add the turn's user row, answer row and tool rows (in that order: ids follow time)."""
    common: dict[str, Any] = {
        'conversation_id': conversation_id,
        'run_id': None,
        'status': 'complete',
        'attachments': [],
        'meta': {},
        'details': {},
        'created_at': now,
    }
    if turn.prompt is not None:
        messages.append(
            {
                **common,
                'id': new_id(),
                'role': 'user',
                'content': turn.prompt,
                'parts': None,
                'model_messages': None,
            }
        )
    if not turn.messages or (turn.prompt is not None and len(turn.messages) == 1):
        return  # a prompt saved without its answer
    answer_id = new_id()
    messages.append(
        {
            **common,
            'id': answer_id,
            'role': 'assistant',
            'content': turn.content,
            'parts': turn.parts,
            'model_messages': ModelMessagesTypeAdapter.dump_python(turn.messages, mode='json'),
        }
    )
    for tool in turn.tools:
        tools.append(
            {
                'id': new_id(),
                'conversation_id': conversation_id,
                'message_id': answer_id,
                'run_id': None,
                'tool_call_id': tool.tool_call_id,
                'kind': 'function',
                'name': tool.name,
                'arguments': tool.arguments,
                'result': tool.result,
                'status': tool.status,
                'error': tool.error,
                'started_at': now,
                'finished_at': None if tool.status == 'pending' else now,
            }
        )


def mirror_delete(connection: Connection, tables: TableRegistry, conversation_id: str) -> None:
    """Delete the log conversation's Synapse conversation and every row of it."""
    tables.delete_owned(connection, OWNER, [mirror_id(conversation_id)])
