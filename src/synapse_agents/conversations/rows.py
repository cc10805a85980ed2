"""What the history reads return: typed, immutable rows in the store's own terms.

No URLs, no wire format: timestamps are datetimes, a conversation's outcome is `has_error`, tool
arguments and results are whole. The web layer turns these into its response models
(`web/routes/schemas.py`). Frozen slotted dataclasses: building one costs about a microsecond,
against two to three for a pydantic model (a replay builds about a thousand).

Values read from JSON columns are checked for their type here, so that a row written by hand
cannot put a list where an object is promised: a wrong-typed value reads as None.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from decimal import Decimal
from operator import attrgetter
from typing import Any, Literal

Ref = tuple[str, str]
"""A scope part as `(type, id)`, such as `('user', '42')`."""


@dataclass(frozen=True, slots=True)
class ConversationSummary:
    """A conversation's list row: who answered, its title, whether it failed, its counters, its
    scope (tenant, actor, subject) and the conversation it was forked from."""

    id: str
    agent_key: str
    agent_name: str
    title: str
    has_error: bool
    origin: str
    tenant: Ref | None
    actor: Ref | None
    subject: Ref | None
    forked_from_id: str | None
    input_tokens: int
    output_tokens: int
    cost: Decimal | None
    message_count: int
    tool_count: int
    created_at: datetime
    updated_at: datetime


_SCOPE_AXES = ('tenant', 'actor', 'subject')
_PLAIN_FIELDS = tuple(f.name for f in fields(ConversationSummary) if f.name not in _SCOPE_AXES)
SUMMARY_FIELDS = (*_PLAIN_FIELDS, *(f'{axis}_{part}' for axis in _SCOPE_AXES for part in ('type', 'id')))
"""The `conversations` columns a summary is read from (the list selects exactly these)."""

_plain_values = attrgetter(*_PLAIN_FIELDS)
_scope_values = attrgetter(*SUMMARY_FIELDS[len(_PLAIN_FIELDS) :])


def _ref(kind: Any, ident: Any) -> Ref | None:
    return (kind, ident) if isinstance(kind, str) and isinstance(ident, str) else None


def summary_of(row: Any) -> ConversationSummary:
    """The summary of a `Conversation` (a query row with the summary's columns, or the ORM object)."""
    plain = dict(zip(_PLAIN_FIELDS, _plain_values(row), strict=True))
    t_type, t_id, a_type, a_id, s_type, s_id = _scope_values(row)
    return ConversationSummary(
        **plain, tenant=_ref(t_type, t_id), actor=_ref(a_type, a_id), subject=_ref(s_type, s_id)
    )


@dataclass(frozen=True, slots=True)
class ForkSource:
    """The conversation a fork was made from: its id, its title (None once it is deleted), and
    the user message of it the fork re-runs."""

    id: str
    title: str | None
    message_id: str | None


@dataclass(frozen=True, slots=True)
class ForkSummary:
    """A conversation forked from this one, as its thread lists it."""

    id: str
    title: str
    created_at: datetime
    forked_at_message_id: str | None


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool invocation as a replay holds it: arguments and result whole, no timestamps."""

    id: str
    tool_call_id: str
    kind: Literal['function', 'native', 'output']
    name: str
    arguments: Any
    result: Any
    status: Literal['pending', 'success', 'error', 'interrupted', 'awaiting', 'approved', 'denied']
    provider_status: str | None
    error: str | None
    duration_ms: int | None


@dataclass(frozen=True, slots=True)
class ToolCallDetail(ToolCall):
    """One tool invocation with when it started and finished."""

    started_at: datetime
    finished_at: datetime | None


TOOL_FIELDS = tuple(f.name for f in fields(ToolCall))
DETAIL_FIELDS = tuple(f.name for f in fields(ToolCallDetail))


@dataclass(frozen=True, slots=True)
class TextSegment:
    """Text or reasoning of an answer."""

    kind: Literal['text', 'reasoning']
    text: str


@dataclass(frozen=True, slots=True)
class ToolSegment:
    """A tool call, at the place in the answer where the model made it."""

    tool: ToolCall


@dataclass(frozen=True, slots=True)
class OutputSegment:
    """A structured output (any JSON)."""

    output: Any


Segment = TextSegment | ToolSegment | OutputSegment


@dataclass(frozen=True, slots=True)
class AttachmentRef:
    """A file sent with a user message, as its row describes it (index within the message)."""

    index: int
    name: str | None
    media_type: str | None
    size: int | None


@dataclass(frozen=True, slots=True)
class _Entry:
    id: str
    status: Literal['complete', 'streaming', 'failed', 'interrupted']
    content: str
    created_at: datetime
    copied_from_id: str | None
    """In a fork: the id of the source's row this one is a copy of."""


@dataclass(frozen=True, slots=True)
class UserEntry(_Entry):
    """A user message and the files sent with it."""

    attachments: tuple[AttachmentRef, ...]


@dataclass(frozen=True, slots=True)
class AssistantEntry(_Entry):
    """An answer: its parts in order (tool calls in place), usage, cost, time, model facts."""

    parts: tuple[Segment, ...]
    usage: dict[str, Any] | None
    input_tokens: int | None
    output_tokens: int | None
    cost: Decimal | None
    duration_ms: int | None
    meta: dict[str, Any] | None
    corrupt: str | None = None
    """Set when its stored `model_messages` cannot be replayed (`corrupt.note` naming the row)."""


@dataclass(frozen=True, slots=True)
class ErrorEntry(_Entry):
    """An error card: what failed (`details`: class, traceback, recoverable)."""

    details: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class NoticeEntry(_Entry):
    """A notice shown between turns."""

    meta: dict[str, Any] | None


Entry = UserEntry | AssistantEntry | ErrorEntry | NoticeEntry


@dataclass(frozen=True, slots=True)
class ConversationThread:
    """A conversation and its messages in order, where it was forked from, and its forks (oldest first)."""

    conversation: ConversationSummary
    messages: tuple[Entry, ...]
    forked_from: ForkSource | None = None
    forks: tuple[ForkSummary, ...] = ()
    deps_values: dict[str, Any] | None = None
    """The values its agent's deps schema was last sent (`conversations/deps_values.py`)."""
    corrupt: str | None = None
    """Set when a stored value of the conversation row cannot be read (`corrupt.note`)."""


def json_object(value: Any) -> dict[str, Any] | None:
    """`value` when it is a JSON object, else None."""
    return value if isinstance(value, dict) else None


def attachment_ref(reference: dict[str, Any]) -> AttachmentRef:
    """A well-formed reference (see `history.attachment_references`) as a typed row."""
    name, media_type, size = reference.get('name'), reference.get('media_type'), reference.get('size')
    return AttachmentRef(
        index=reference['index'],
        name=name if isinstance(name, str) else None,
        media_type=media_type if isinstance(media_type, str) else None,
        size=size if type(size) is int else None,
    )
