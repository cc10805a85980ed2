"""The history answers: the response models the routes return, which FastAPI renders and documents.

These models are the API's contract: FastAPI serialises the returned model with pydantic-core
(`TypeAdapter.dump_json`, straight to bytes), the OpenAPI schema is generated from them, the
committed `frontend/openapi.json` and the dashboard's TypeScript types are generated from that
(docs/api.md), and the fuzzing test (tests/api/test_fuzz.py) checks every answer against it.

Each model's `of` builds it from the store's typed rows (`conversations/rows.py`); the presentation lives
here: timestamps as ISO 8601 in UTC with milliseconds, `status` from `has_error`, tool arguments and
results cut to a preview in a replay, attachment URLs. Building validates each model (about a
microsecond each; `model_construct` measured slower); FastAPI does not validate a returned model
again. JSON values that are the user's own (tool arguments and results, usage, metadata) are typed
as any JSON.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, PlainSerializer

from ...conversations.rows import ConversationSummary, Ref
from ...conversations.snippets import Snippet
from ...corrupt import note
from ...scope import pairs_problem
from ...store.repository import DeletionReport
from ...wire_types import Timestamp as Timestamp
from ...wire_types import iso as iso
from .chat_schemas import STREAM_EVENT as STREAM_EVENT
from .chat_schemas import STREAM_RESPONSE_HEADERS as STREAM_RESPONSE_HEADERS
from .chat_schemas import ModelList as ModelList
from .chat_schemas import ModelOption as ModelOption

TOOL_VALUE_LIMIT = 2048
"""Largest tool argument or result (bytes of JSON) shipped whole in a replay."""


Cost = Annotated[Decimal, PlainSerializer(float, return_type=float)]
"""USD: exact in the store, a JSON number on the wire (a float prints the decimal for any price)."""
ToolStatus = Literal['pending', 'success', 'error', 'interrupted', 'awaiting', 'approved', 'denied']
ToolKind = Literal['function', 'native', 'output']


class ScopeRef(BaseModel):
    """One part of a conversation's scope: a type and an id, such as `user` and `42`."""

    type: str
    id: str

    @classmethod
    def of(cls, ref: Ref | None) -> ScopeRef | None:
        return cls(type=ref[0], id=ref[1]) if ref is not None else None


class ConversationRow(BaseModel):
    """A conversation as the history list shows it."""

    id: str
    agent_key: str
    agent_name: str
    title: str
    status: Literal['success', 'error'] = Field(description='Whether the conversation has an error card.')
    origin: str = Field(description='Where it was opened: playground, app, task, workflow, eval or mcp.')
    tenant: ScopeRef | None
    actor: ScopeRef | None
    subject: ScopeRef | None
    forked_from_id: str | None = Field(
        description='The conversation this one was forked from (its id stays after that one is deleted).'
    )
    input_tokens: int
    output_tokens: int
    total_tokens: int
    cost: Cost | None = Field(description='USD; null when a price is unknown.')
    message_count: int
    tool_count: int
    created_at: Timestamp
    updated_at: Timestamp
    corrupt: str | None = Field(
        None,
        description='Set when a stored value of the conversation cannot be read (edited by hand, or '
        "written before a rule: a scope type holding ':'), naming the row; null otherwise. A turn "
        'that would use that value answers 409 `corrupt_row`.',
    )

    @classmethod
    def of(cls, c: ConversationSummary) -> ConversationRow:
        return cls(**row_fields(c))


def row_fields(c: ConversationSummary) -> dict[str, Any]:
    """The `ConversationRow` fields of a summary (shared with the thread's `ThreadConversation`)."""
    return {
        'id': c.id,
        'agent_key': c.agent_key,
        'agent_name': c.agent_name,
        'title': c.title,
        'status': 'error' if c.has_error else 'success',
        'origin': c.origin,
        'tenant': ScopeRef.of(c.tenant),
        'actor': ScopeRef.of(c.actor),
        'subject': ScopeRef.of(c.subject),
        'forked_from_id': c.forked_from_id,
        'input_tokens': c.input_tokens,
        'output_tokens': c.output_tokens,
        'total_tokens': c.input_tokens + c.output_tokens,
        'cost': c.cost,
        'message_count': c.message_count,
        'tool_count': c.tool_count,
        'created_at': c.created_at,
        'updated_at': c.updated_at,
        'corrupt': note('conversations', c.id, problem)
        if (problem := pairs_problem(c.tenant, c.actor, c.subject)) is not None
        else None,
    }


class ConversationListRow(ConversationRow):
    """A row of the history list: a conversation, and for a search where the term matched."""

    # Left out of the answer when there is no snippet (a list without a search), so such a row
    # is exactly a `ConversationRow`.
    snippet: str | None = Field(
        None,
        exclude_if=lambda value: value is None,
        description='For a search: about 160 characters around the first match, in the title or else '
        'the first matching message, cut at word boundaries ("…" marks a cut). Absent without a search.',
    )
    snippet_matches: list[tuple[int, int]] | None = Field(
        None,
        exclude_if=lambda value: value is None,
        description='With `snippet`: the [start, end) offsets, in Unicode code points, of each match in it.',
    )

    @classmethod
    def listed(cls, c: ConversationSummary, snippet: Snippet | None) -> ConversationListRow:
        return cls(
            **row_fields(c),
            snippet=snippet.text if snippet is not None else None,
            snippet_matches=snippet.matches if snippet is not None else None,
        )


class ConversationPage(BaseModel):
    """One page (25) of the history list."""

    conversations: list[ConversationListRow]
    total: int
    total_exact: bool = Field(
        description='False when a common search term was capped: `total` is a lower bound.'
    )
    page: int
    page_size: int
    pages: int


class DeletedCounts(BaseModel):
    conversations: int
    messages: int
    tool_invocations: int
    llm_calls: int
    files: int
    bytes: int


class Deleted(BaseModel):
    """What a delete removed."""

    deleted: DeletedCounts

    @classmethod
    def of(cls, report: DeletionReport) -> Deleted:
        return cls(deleted=DeletedCounts(**report.as_dict()))
