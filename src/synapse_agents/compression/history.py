"""A conversation's model messages as turns: where it may be cut, what it weighs, and how it reads.

A cut is a place where the messages before it can be summarised and the rest sent verbatim: the
start of a request that carries a user prompt and no tool result, with every tool call before it
answered before it. So a tool call never loses its return (a resumed run's request, which answers
calls the run paused on, is never a cut), and the newest turns are whole.

Token counts here are estimates (about four characters a token, plus a few per message and part),
and are said to be: providers count differently, and a budget needs a figure before any request.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

CHARS_PER_TOKEN = 4
PER_MESSAGE = 4
PER_PART = 3
TRANSCRIPT_PART_LIMIT = 2000
"""The most characters of one tool result the summariser reads (the rest is cut, and says so)."""


def estimate_tokens(messages: Sequence[ModelMessage]) -> int:
    """An estimate of what `messages` weigh in tokens (see the module docstring)."""
    return sum(message_tokens(message) for message in messages)


def message_tokens(message: ModelMessage) -> int:
    chars = sum(len(part_text(part)) for part in message.parts)
    return PER_MESSAGE + PER_PART * len(message.parts) + -(-chars // CHARS_PER_TOKEN)


def text_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def cuts(messages: Sequence[ModelMessage]) -> list[int]:
    """The indexes a history may be cut at (see the module docstring), ascending; 0 excluded."""
    found: list[int] = []
    open_calls: set[str] = set()
    for index, message in enumerate(messages):
        if isinstance(message, ModelRequest):
            if index > 0 and not open_calls and _starts_turn(message):
                found.append(index)
            for asked in message.parts:
                if isinstance(asked, ToolReturnPart | RetryPromptPart) and asked.tool_call_id:
                    open_calls.discard(asked.tool_call_id)
        elif isinstance(message, ModelResponse):
            for answered in message.parts:
                if isinstance(answered, ToolCallPart):
                    open_calls.add(answered.tool_call_id)
    return found


def turn_starts(messages: Sequence[ModelMessage]) -> list[int]:
    """Where each turn starts (0 and every cut)."""
    return [0, *cuts(messages)] if messages else []


def transcript(messages: Sequence[ModelMessage]) -> str:
    """`messages` as plain text for the summariser: who said what, which tools ran with what."""
    lines: list[str] = []
    for message in messages:
        for part in message.parts:
            line = _line(part)
            if line:
                lines.append(line)
    return '\n'.join(lines)


def _starts_turn(request: ModelRequest) -> bool:
    parts = request.parts
    has_prompt = any(isinstance(part, UserPromptPart) for part in parts)
    answers = any(isinstance(part, ToolReturnPart | RetryPromptPart) for part in parts)
    return has_prompt and not answers


def _line(part: Any) -> str:
    if isinstance(part, UserPromptPart):
        return f'User: {_content(part.content)}'
    if isinstance(part, TextPart):
        return f'Assistant: {part.content}'
    if isinstance(part, ToolCallPart):
        return f'Assistant called {part.tool_name}({part.args_as_json_str()})'
    if isinstance(part, ToolReturnPart):
        text = _content(part.content)
        if len(text) > TRANSCRIPT_PART_LIMIT:
            text = (
                text[:TRANSCRIPT_PART_LIMIT] + f' [... {len(text) - TRANSCRIPT_PART_LIMIT} more characters]'
            )
        return f'{part.tool_name} returned: {text}'
    if isinstance(part, RetryPromptPart):
        return f'(retry asked: {_content(part.content)})'
    return ''  # instructions, system prompts and thinking are not summarised


def part_text(part: Any) -> str:
    if isinstance(part, UserPromptPart | SystemPromptPart | ToolReturnPart | RetryPromptPart):
        return _content(part.content)
    if isinstance(part, TextPart | ThinkingPart):
        return part.content
    if isinstance(part, ToolCallPart):
        return part.tool_name + part.args_as_json_str()
    return ''


def _content(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list | tuple):  # a prompt with files: their text, and a mark for the rest
        return ' '.join(item if isinstance(item, str) else f'[{type(item).__name__}]' for item in content)
    try:
        return json.dumps(content, default=str, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(content)
