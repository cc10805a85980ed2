"""The shapes of the history and chat answers, declared for the OpenAPI schema (docs/api.md).

The routes build their answers as plain dicts (`store/history.py`) and render them with
pydantic-core directly; these models document them (`response_model=`), and the fuzzing test
(tests/api/test_fuzz.py) checks every answer against them. JSON values that are the user's own
(tool arguments and results, usage, metadata) are typed as any JSON.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

Timestamp = Annotated[str, Field(description='ISO 8601 in UTC with milliseconds: 2026-11-30T06:11:50.884Z.')]
ToolStatus = Literal['pending', 'success', 'error', 'interrupted']
ToolKind = Literal['function', 'native', 'output']


class ConversationRow(BaseModel):
    """A conversation as the history list shows it."""

    id: str
    agent_key: str
    agent_name: str
    title: str
    status: Literal['success', 'error'] = Field(description='Whether the conversation has an error card.')
    origin: str
    input_tokens: int
    output_tokens: int
    total_tokens: int
    cost: float | None = Field(description='USD; null when a price is unknown.')
    message_count: int
    tool_count: int
    created_at: Timestamp | None
    updated_at: Timestamp | None


class ConversationPage(BaseModel):
    """One page (25) of the history list."""

    conversations: list[ConversationRow]
    total: int
    total_exact: bool = Field(
        description='False when a common search term was capped: `total` is a lower bound.'
    )
    page: int
    page_size: int
    pages: int


class ThreadConversation(ConversationRow):
    """The conversation row of a thread, with what the catalog knows of its agent."""

    stateless: bool
    agent_available: bool


class ToolInvocation(BaseModel):
    """A tool call inside a thread: large arguments and results are cut to a preview."""

    id: str
    kind: ToolKind
    name: str
    arguments: Any
    result: Any
    status: ToolStatus
    duration_ms: int | None
    error: str | None = Field(None, description='Present when the call failed or was interrupted.')
    provider_status: str | None = Field(None, description='Native tools: the outcome the provider reported.')
    truncated: bool = Field(False, description='Present (true) when an argument or result was cut.')


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
    started_at: Timestamp | None
    finished_at: Timestamp | None


class TextPart(BaseModel):
    type: Literal['text', 'reasoning']
    text: str


class ToolPart(BaseModel):
    type: Literal['tool', 'native-tool']
    tool: ToolInvocation


class StructuredOutputPart(BaseModel):
    type: Literal['structured-output']
    output: Any


Part = Annotated[TextPart | ToolPart | StructuredOutputPart, Field(discriminator='type')]


class Attachment(BaseModel):
    """A file sent with a user message; `url` serves it."""

    index: int
    name: str | None
    media_type: str | None
    size: int | None
    url: str


class _Message(BaseModel):
    id: str
    status: Literal['complete', 'streaming', 'interrupted']
    content: str
    created_at: Timestamp | None


class UserMessage(_Message):
    role: Literal['user']
    attachments: list[Attachment]


class AssistantMessage(_Message):
    role: Literal['assistant']
    parts: list[Part]
    usage: dict[str, Any] | None
    input_tokens: int
    output_tokens: int
    cost: float | None
    duration_ms: int | None
    meta: dict[str, Any] | None = Field(description='model, provider, finish_reason, llm_calls.')


class ErrorMessage(_Message):
    role: Literal['error']
    details: dict[str, Any] | None = Field(description='class, traceback, recoverable.')


class NoticeMessage(_Message):
    role: Literal['notice']
    meta: dict[str, Any] | None


ThreadMessage = Annotated[
    UserMessage | AssistantMessage | ErrorMessage | NoticeMessage, Field(discriminator='role')
]


class Totals(BaseModel):
    input_tokens: int
    output_tokens: int
    cost: float | None
    duration_ms: int
    tool_calls: int


class Thread(BaseModel):
    """A whole conversation in order."""

    conversation: ThreadConversation
    messages: list[ThreadMessage]
    totals: Totals


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


class ModelOption(BaseModel):
    """One entry of an agent's model selector."""

    id: str
    label: str
    provider: str
    source: Literal['agent', 'demo', 'setting', 'provider']
    available: bool
    missing_env: str | None


class ModelList(BaseModel):
    """The models the playground can run an agent on; `default` is preselected."""

    default: str
    models: list[ModelOption]


STREAM_EVENT: dict[str, Any] = {
    'type': 'object',
    'description': (
        'One server-sent event of a Vercel AI UI message stream: `data` is a chunk as JSON '
        '(`{"type": "text-delta", ...}`), or `[DONE]` after the last one.'
    ),
    'required': ['data'],
    'properties': {
        'event': {'const': 'message'},
        'data': {
            'type': 'string',
            'anyOf': [
                {'const': '[DONE]'},
                {
                    'contentMediaType': 'application/json',
                    'contentSchema': {
                        'type': 'object',
                        'required': ['type'],
                        'properties': {'type': {'type': 'string', 'pattern': '^[a-z]+(-[a-z]+)*$'}},
                    },
                },
            ],
        },
    },
}
"""The OpenAPI schema of each event of the chat stream (before OpenAPI 3.2, `schema` describes one event)."""

STREAM_RESPONSE_HEADERS: dict[str, Any] = {
    'x-vercel-ai-ui-message-stream': {
        'description': 'The protocol marker the `ai` SDK checks.',
        'required': True,
        'schema': {'type': 'string', 'const': 'v1'},
    },
    'x-accel-buffering': {
        'description': 'Tells a proxy (nginx) not to buffer the stream.',
        'required': True,
        'schema': {'type': 'string', 'const': 'no'},
    },
}
