"""How the demo model reads the messages it is sent: the current turn, earlier prompts, token counts.

A *turn* starts at the last request that carries a user prompt. Everything after it (the model's
own responses, tool results) belongs to the current turn; the user prompts before it are the
conversation's earlier messages, which is what makes multi-turn and stateless agents differ.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ModelResponsePart,
    NativeToolCallPart,
    NativeToolReturnPart,
    SystemPromptPart,
    TextContent,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserContent,
    UserPromptPart,
)
from pydantic_ai.tools import ToolDefinition

CHARS_PER_TOKEN = 4
"""The demo model's token estimate: about four characters of text per token."""

_MEDIA_TOKENS = 256
"""What an image, audio clip or document in a prompt counts for, whatever its size."""


@dataclass(frozen=True)
class ToolOutcome:
    """A tool result the model received in the current turn."""

    tool_name: str
    content: str
    succeeded: bool


@dataclass(frozen=True)
class Turn:
    """The demo model's view of the conversation at one request."""

    prompt: str
    """The text of the current user prompt (empty when there is none)."""
    earlier_prompts: list[str] = field(default_factory=list[str])
    """The text of the user prompts before the current one, oldest first."""
    responded: bool = False
    """Whether the model already answered once in this turn (so it must now conclude, never loop)."""
    tool_outcomes: list[ToolOutcome] = field(default_factory=list[ToolOutcome])
    """Results of the function tools called in this turn."""
    media_count: int = 0
    """How many non-text items (images, documents, audio) the current prompt carries."""


def read_turn(messages: Sequence[ModelMessage]) -> Turn:
    """Split ``messages`` into the current turn and the earlier user prompts."""
    start = None
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, ModelRequest) and any(isinstance(p, UserPromptPart) for p in message.parts):
            start = index
            break
    if start is None:
        return Turn(prompt='', responded=any(isinstance(m, ModelResponse) for m in messages))
    current = messages[start]
    assert isinstance(current, ModelRequest)
    prompts = [p for p in current.parts if isinstance(p, UserPromptPart)]
    earlier = [
        prompt_text(part.content)
        for message in messages[:start]
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, UserPromptPart)
    ]
    outcomes = [
        ToolOutcome(part.tool_name, part.model_response_str(), part.outcome == 'success')
        for message in messages[start:]
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    ]
    return Turn(
        prompt='\n'.join(prompt_text(p.content) for p in prompts),
        earlier_prompts=[text for text in earlier if text],
        responded=any(isinstance(m, ModelResponse) for m in messages[start:]),
        tool_outcomes=outcomes,
        media_count=sum(_media_items(p.content) for p in prompts),
    )


def prompt_text(content: str | Sequence[UserContent]) -> str:
    """The text of a user prompt's content, leaving out images, audio and documents."""
    if isinstance(content, str):
        return content
    texts = [
        item if isinstance(item, str) else item.content
        for item in content
        if isinstance(item, str | TextContent)
    ]
    return '\n'.join(texts)


def _media_items(content: str | Sequence[UserContent]) -> int:
    if isinstance(content, str):
        return 0
    return sum(1 for item in content if not isinstance(item, str | TextContent))


def estimate_input_tokens(
    messages: Sequence[ModelMessage],
    instructions: str | None,
    tools: Iterable[ToolDefinition],
    *,
    output_schema: dict[str, Any] | None = None,
) -> int:
    """Input tokens for a request: instructions, tool and output schemas, every message's text; at least 1."""
    chars = len(instructions or '') + (len(json.dumps(output_schema)) if output_schema else 0)
    media = 0
    for tool in tools:
        chars += len(tool.name) + len(tool.description or '') + len(json.dumps(tool.parameters_json_schema))
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart):
                    chars += len(prompt_text(part.content))
                    media += _media_items(part.content)
                elif isinstance(part, SystemPromptPart):
                    chars += len(part.content)
                elif isinstance(part, ToolReturnPart):
                    chars += len(part.tool_name) + len(part.model_response_str())
                else:
                    chars += len(str(getattr(part, 'content', '') or ''))
        else:
            chars += sum(
                response_part_chars(part) for part in message.parts if not isinstance(part, ThinkingPart)
            )
    return max(1, math.ceil(chars / CHARS_PER_TOKEN) + media * _MEDIA_TOKENS)


def response_part_chars(part: ModelResponsePart) -> int:
    """How many characters of output a response part stands for."""
    if isinstance(part, TextPart | ThinkingPart):
        return len(part.content)
    if isinstance(part, ToolCallPart | NativeToolCallPart):
        return len(part.tool_name) + len(part.args_as_json_str())
    if isinstance(part, NativeToolReturnPart):
        return len(part.model_response_str())
    return 0


def estimate_output_tokens(parts: Iterable[ModelResponsePart]) -> int:
    """Output tokens for the parts of a response, at least 1."""
    return max(1, math.ceil(sum(response_part_chars(part) for part in parts) / CHARS_PER_TOKEN))
