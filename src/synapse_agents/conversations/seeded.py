"""A conversation that starts with turns it did not run: a given history stored as earlier turns.

`seed_conversation` validates a history (pydantic-ai model messages, in the JSON form
`ModelMessagesTypeAdapter` dumps, or the messages themselves), splits it into turns at each
request carrying a user prompt (`transcript.py`), and stores a new conversation holding, per
turn, a user row and a complete answer row whose `model_messages` are that turn's messages, with
the tool calls the answer made. The engine replays those rows as history (`chat/replay.py`), so
the conversation's next turn runs after them, as if they had happened here.

Ids are generated in order, so the rows sort as the history does, before any turn run later. The
rows are marked `{"seeded": true}` in their `meta` and belong to no run: no model was called, so
there is no ledger row and the conversation's counters (set from its rows, `totals.py`) count the
messages and tool calls only. Everything is one transaction. Blocking: call from a thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter
from sqlalchemy import insert

from ..scope import Scope
from ..store.ids import new_id
from ..store.schema import Base, utcnow
from .tables import Conversation, Message, ToolInvocation
from .totals import reconcile_totals
from .transcript import transcript
from .turn_writes import title_from

if TYPE_CHECKING:
    from ..store.repository import Store

_messages = Base.metadata.tables[Message.__tablename__]
_tools = Base.metadata.tables[ToolInvocation.__tablename__]
SEEDED = {'seeded': True}
"""The `meta` of every row `seed_conversation` writes."""


def history_messages(history: Any) -> list[ModelMessage]:
    """`history` as pydantic-ai model messages; a `ValueError` saying why it is not."""
    if isinstance(history, Sequence) and all(hasattr(m, 'parts') and hasattr(m, 'kind') for m in history):
        history = ModelMessagesTypeAdapter.dump_python(list(history), mode='json')
    try:
        return ModelMessagesTypeAdapter.validate_python(history)
    except ValidationError as error:
        first = error.errors()[0]
        where = '.'.join(str(step) for step in first['loc'])
        raise ValueError(
            f'history: not pydantic-ai model messages ({where}: {first["msg"]})'
            if where
            else f'history: not pydantic-ai model messages ({first["msg"]})'
        ) from None


def seed_conversation(
    store: Store,
    history: Any,
    *,
    agent_key: str,
    agent_name: str = '',
    origin: str = 'app',
    title: str | None = None,
    scope: Scope | None = None,
) -> str:
    """A new conversation of `agent_key` holding `history` as its earlier turns; its id (see the
    module). `title` defaults to the history's first user message. Raises `ValueError` for a
    history that is not model messages, or is empty (nothing is stored then)."""
    messages = history_messages(history)
    if not messages:
        raise ValueError('history: no messages to store')
    turns = transcript(messages)
    conversation_id = new_id()
    ids = iter(sorted(new_id() for _ in range(2 * len(turns) + sum(len(t.tools) for t in turns))))
    now = utcnow()
    rows: list[dict[str, Any]] = []  # one multi-row insert: every row names the same columns
    tools: list[dict[str, Any]] = []
    common = {'conversation_id': conversation_id, 'run_id': None, 'status': 'complete', 'created_at': now}
    for turn in turns:
        rows.append(
            {
                **common,
                'id': next(ids),
                'role': 'user',
                'content': turn.prompt or '',
                'attachments': [],
                'parts': None,
                'model_messages': None,
                'meta': SEEDED,
                'details': {},
            }
        )
        answer_id = next(ids)
        rows.append(
            {
                **common,
                'id': answer_id,
                'role': 'assistant',
                'content': turn.content,
                'attachments': [],
                'parts': turn.parts,
                'model_messages': ModelMessagesTypeAdapter.dump_python(turn.messages, mode='json'),
                'meta': SEEDED,
                'details': {},
            }
        )
        tools.extend(
            {
                'id': next(ids),
                'conversation_id': conversation_id,
                'message_id': answer_id,
                'run_id': None,
                'tool_call_id': tool.tool_call_id,
                'kind': 'function',
                'name': tool.name,
                'arguments': tool.arguments,
                'result': tool.result,
                # A call the history holds no result for cannot be waiting here: no run is paused.
                'status': 'interrupted' if tool.status == 'pending' else tool.status,
                'error': tool.error,
                'started_at': now,
                'finished_at': now,
            }
            for tool in turn.tools
        )
    first = next((turn.prompt for turn in turns if turn.prompt), '')
    columns = (scope or Scope()).columns()
    with store.write() as session:
        session.add(
            Conversation(
                id=conversation_id,
                agent_key=agent_key,
                agent_name=agent_name,
                title=title_from(first) if title is None else title,
                origin=origin,
                **columns,
                has_error=False,
                message_count=0,
                tool_count=0,
                input_tokens=0,
                output_tokens=0,
                created_at=now,
                updated_at=now,
            )
        )
        session.flush()
        session.execute(insert(_messages), rows)
        if tools:
            session.execute(insert(_tools), tools)
        reconcile_totals(session.connection(), conversation_id)
    return conversation_id
