"""The replay's answers: a conversation's thread (`GET /api/conversations/{id}`) and its parts.

Built from the store's typed rows (`conversations/rows.py`) like the rest of the API's response models
(`schemas.py`, whose module docstring says how they are serialised and documented).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny
from pydantic_core import to_json

from ...conversations.rows import (
    AssistantEntry,
    AttachmentRef,
    ConversationThread,
    Entry,
    ErrorEntry,
    OutputSegment,
    Segment,
    TextSegment,
    ToolCall,
    ToolCallDetail,
    UserEntry,
)
from .schemas import TOOL_VALUE_LIMIT, ConversationRow, Cost, Timestamp, ToolKind, ToolStatus, row_fields


class ForkedFrom(BaseModel):
    """The conversation a fork was made from (built from a `rows.ForkSource`)."""

    model_config = ConfigDict(from_attributes=True)

    id: str
    title: str | None = Field(description='Null once the source conversation is deleted.')
    message_id: str | None = Field(description="The source's user message the fork re-runs.")


class ForkRow(BaseModel):
    """A conversation forked from this one (built from a `rows.ForkSummary`)."""

    model_config = ConfigDict(from_attributes=True)

    id: str
    title: str
    created_at: Timestamp
    forked_at_message_id: str | None = Field(description="This conversation's user message the fork re-runs.")


class ThreadConversation(ConversationRow):
    """The conversation row of a thread, with what the catalog knows of its agent, where it was
    forked from and the conversations forked from it (oldest first)."""

    stateless: bool
    agent_available: bool
    forked_from: ForkedFrom | None
    forks: list[ForkRow]
    deps_values: dict[str, Any] | None = Field(
        description="The values last sent for its agent's `deps_schema` (the playground's deps form "
        'starts from them); null when none were sent, or when the stored ones cannot be read (`corrupt`).'
    )

    @classmethod
    def about(
        cls, thread: ConversationThread, *, stateless: bool, agent_available: bool
    ) -> ThreadConversation:
        source = thread.forked_from
        fields = row_fields(thread.conversation)
        marks = [mark for mark in (fields.pop('corrupt'), thread.corrupt) if mark is not None]
        return cls(
            **fields,
            corrupt='; '.join(marks) or None,
            stateless=stateless,
            agent_available=agent_available,
            forked_from=ForkedFrom.model_validate(source) if source is not None else None,
            forks=[ForkRow.model_validate(fork) for fork in thread.forks],
            deps_values=thread.deps_values,
        )


def _left_out_at(default: bool | None, description: str) -> Any:
    """A field left out of the JSON while it holds `default`: optional, and with no default in the
    schema (there, a default reads as "always present" to the TypeScript generator)."""

    def schema(field_schema: dict[str, Any]) -> None:
        field_schema.pop('default', None)

    return Field(
        default,
        exclude_if=lambda value: value is default,
        description=description,
        json_schema_extra=schema,
    )


class ToolInvocation(BaseModel):
    """A tool call inside a thread: large arguments and results are cut to a preview."""

    id: str
    tool_call_id: str
    """The model's id of the call (what a decision on a waiting call names)."""
    kind: ToolKind
    name: str
    arguments: Any
    result: Any
    status: ToolStatus
    duration_ms: int | None
    error: str | None = _left_out_at(None, 'Present when the call failed, was interrupted or denied.')
    provider_status: str | None = _left_out_at(
        None,
        'Native tools: the outcome the provider reported. A call that waits (`awaiting`) or was decided: '
        '`approval` or `external`.',
    )
    truncated: bool = _left_out_at(False, 'Present (true) when an argument or result was cut.')


def _tool_fields(t: ToolCall) -> dict[str, Any]:
    """A replay's `ToolInvocation`, as the fields it is validated from."""
    arguments, cut_arguments = _preview(t.arguments)
    result, cut_result = _preview(t.result)
    return {
        'id': t.id,
        'tool_call_id': t.tool_call_id,
        'kind': t.kind,
        'name': t.name,
        'arguments': arguments,
        'result': result,
        'status': t.status,
        'duration_ms': t.duration_ms,
        'error': t.error,
        'provider_status': t.provider_status,
        'truncated': cut_arguments or cut_result,
    }


def _preview(value: Any) -> tuple[Any, bool]:
    """`value`, or a string preview of its JSON when that is over the limit."""
    if value is None or isinstance(value, bool | int | float):
        return value, False
    if isinstance(value, str) and len(value) <= TOOL_VALUE_LIMIT // 4:
        return value, False
    encoded = to_json(value)
    if len(encoded) <= TOOL_VALUE_LIMIT:
        return value, False
    return encoded.decode()[: TOOL_VALUE_LIMIT // 2] + '…', True


class ToolInvocationFull(BaseModel):
    """One tool invocation in full (`GET /api/tool-invocations/{id}`)."""

    id: str
    tool_call_id: str
    kind: ToolKind
    name: str
    arguments: Any
    result: Any
    truncated: bool
    status: ToolStatus
    provider_status: str | None
    error: str | None
    duration_ms: int | None
    started_at: Timestamp
    finished_at: Timestamp | None

    @classmethod
    def of(cls, t: ToolCallDetail) -> ToolInvocationFull:
        return cls(
            id=t.id,
            tool_call_id=t.tool_call_id,
            kind=t.kind,
            name=t.name,
            arguments=t.arguments,
            result=t.result,
            truncated=False,
            status=t.status,
            provider_status=t.provider_status,
            error=t.error,
            duration_ms=t.duration_ms,
            started_at=t.started_at,
            finished_at=t.finished_at,
        )


class TextPart(BaseModel):
    type: Literal['text', 'reasoning']
    text: str


class ToolPart(BaseModel):
    type: Literal['tool', 'native-tool']
    tool: ToolInvocation


class StructuredOutputPart(BaseModel):
    type: Literal['structured-output']
    output: Any


# `SerializeAsAny`: each part is rendered by its own model's serializer; a union's serializer would
# first work out which member the value is (the replay's parts render in half the time this way).
Part = SerializeAsAny[Annotated[TextPart | ToolPart | StructuredOutputPart, Field(discriminator='type')]]


def _part_fields(segment: Segment) -> dict[str, Any]:
    """One segment of an answer as the fields of its `Part`.

    Parts and their tools are validated from these in the answer's one `AssistantMessage` call
    (in pydantic-core), not model by model: a replay builds about a thousand of them."""
    if isinstance(segment, TextSegment):
        return {'type': segment.kind, 'text': segment.text}
    if isinstance(segment, OutputSegment):
        return {'type': 'structured-output', 'output': segment.output}
    tool = segment.tool
    return {'type': 'native-tool' if tool.kind == 'native' else 'tool', 'tool': _tool_fields(tool)}


class Attachment(BaseModel):
    """A file sent with a user message; `url` serves it."""

    index: int
    name: str | None
    media_type: str | None
    size: int | None
    url: str

    @classmethod
    def of(cls, message_id: str, a: AttachmentRef) -> Attachment:
        url = f'/api/attachments/{message_id}/{a.index}'
        return cls(index=a.index, name=a.name, media_type=a.media_type, size=a.size, url=url)


MessageStatus = Literal['complete', 'streaming', 'failed', 'interrupted']
CopiedFrom = Annotated[
    str | None, Field(description="In a fork: the id of the source conversation's row this one is a copy of.")
]


class UserMessage(BaseModel):
    id: str
    role: Literal['user']
    status: MessageStatus
    content: str
    created_at: Timestamp
    copied_from_id: CopiedFrom
    attachments: list[Attachment]


class AssistantMessage(BaseModel):
    id: str
    role: Literal['assistant']
    status: MessageStatus
    content: str
    created_at: Timestamp
    copied_from_id: CopiedFrom
    parts: list[Part]
    usage: dict[str, Any] | None
    input_tokens: int | None
    output_tokens: int | None
    cost: Cost | None
    duration_ms: int | None
    meta: dict[str, Any] | None = Field(description='model, provider, finish_reason, llm_calls.')
    corrupt: str | None = _left_out_at(
        None,
        'Present when its stored model messages cannot be replayed (a row edited by hand: not a '
        'JSON list), naming the row: a new turn of the conversation is then a 409 `corrupt_row`.',
    )


class ErrorMessage(BaseModel):
    id: str
    role: Literal['error']
    status: MessageStatus
    content: str
    created_at: Timestamp
    copied_from_id: CopiedFrom
    details: dict[str, Any] | None = Field(
        description='class, traceback, recoverable; provider (status, type, code, message, '
        'retry_after, model) when a provider refused the request.'
    )


class NoticeMessage(BaseModel):
    id: str
    role: Literal['notice']
    status: MessageStatus
    content: str
    created_at: Timestamp
    copied_from_id: CopiedFrom
    meta: dict[str, Any] | None


ThreadMessage = SerializeAsAny[
    Annotated[UserMessage | AssistantMessage | ErrorMessage | NoticeMessage, Field(discriminator='role')]
]


def message_of(m: Entry) -> UserMessage | AssistantMessage | ErrorMessage | NoticeMessage:
    """The API's message for one entry of a thread."""
    if isinstance(m, AssistantEntry):
        return AssistantMessage(
            id=m.id,
            copied_from_id=m.copied_from_id,
            role='assistant',
            status=m.status,
            content=m.content,
            created_at=m.created_at,
            parts=[_part_fields(segment) for segment in m.parts],
            usage=m.usage,
            input_tokens=m.input_tokens,
            output_tokens=m.output_tokens,
            cost=m.cost,
            duration_ms=m.duration_ms,
            meta=m.meta,
            corrupt=m.corrupt,
        )
    common = {
        'id': m.id,
        'copied_from_id': m.copied_from_id,
        'status': m.status,
        'content': m.content,
        'created_at': m.created_at,
    }
    if isinstance(m, UserEntry):
        return UserMessage(**common, role='user', attachments=[Attachment.of(m.id, a) for a in m.attachments])
    if isinstance(m, ErrorEntry):
        return ErrorMessage(**common, role='error', details=m.details)
    return NoticeMessage(**common, role='notice', meta=m.meta)


class Totals(BaseModel):
    """What the conversation's own turns spent (a fork's copied turns are its source's spend), and
    how many tool calls it holds."""

    input_tokens: int
    output_tokens: int
    cost: Cost | None
    duration_ms: int = Field(description='Summed over the answers of its own turns (copies left out).')
    tool_calls: int = Field(description='Every tool call the thread holds, copied ones included.')


class Thread(BaseModel):
    """A whole conversation in order."""

    conversation: ThreadConversation
    messages: list[ThreadMessage]
    totals: Totals

    @classmethod
    def of(cls, thread: ConversationThread, *, stateless: bool, agent_available: bool) -> Thread:
        c = thread.conversation
        duration = sum(
            m.duration_ms or 0
            for m in thread.messages
            if isinstance(m, AssistantEntry) and m.copied_from_id is None
        )
        return cls(
            conversation=ThreadConversation.about(
                thread, stateless=stateless, agent_available=agent_available
            ),
            messages=[message_of(m) for m in thread.messages],
            totals=Totals(
                input_tokens=c.input_tokens,
                output_tokens=c.output_tokens,
                cost=c.cost,
                duration_ms=duration,
                tool_calls=c.tool_count,
            ),
        )
