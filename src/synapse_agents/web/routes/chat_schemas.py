"""The chat answers' shapes for the OpenAPI schema: the model selector, and the stream's events."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel


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
