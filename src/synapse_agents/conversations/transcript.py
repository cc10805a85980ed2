"""A conversation's pydantic-ai messages as the rows the dashboard shows.

`display_parts` and `answer_text` give an answer's `parts` (what the replay shows, in order:
reasoning, text, tool references, structured output) and its `content`; the chat engine's recorder
uses them for every turn it records. `transcript` splits a history into turns (a user message and
the answer that followed it), with the tool calls each answer made, for writers that are handed
whole messages (`SqlConversationStore`, through `log_mirror.py`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    NativeToolCallPart,
    RetryPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from .._json import jsonable


@dataclass
class ToolRow:
    """One tool call an answer made, with its result or error when the history holds it."""

    tool_call_id: str
    name: str
    arguments: dict[str, Any]
    status: str = 'pending'
    result: Any = None
    error: str | None = None


@dataclass
class Turn:
    """A user message (None: the history starts with an answer) and the messages answering it."""

    prompt: str | None
    messages: list[ModelMessage] = field(default_factory=list)
    tools: list[ToolRow] = field(default_factory=list)

    @property
    def parts(self) -> list[dict[str, Any]]:
        return display_parts(self.messages)

    @property
    def content(self) -> str:
        return answer_text(self.parts)


def _prompt_text(request: ModelRequest) -> str | None:
    """The user's words in a request (its text prompt parts), or None when it holds no prompt."""
    texts: list[str] = []
    found = False
    for part in request.parts:
        if isinstance(part, UserPromptPart):
            found = True
            content = part.content
            if isinstance(content, str):
                texts.append(content)
            else:
                texts.extend(item for item in content if isinstance(item, str))
    return '\n\n'.join(texts) if found else None


def transcript(messages: list[ModelMessage]) -> list[Turn]:
    """`messages` as turns: each request with a user prompt starts one, and the messages up to the
    next prompt are its answer (the prompt's request included, as the recorder keeps it)."""
    turns: list[Turn] = []
    calls: dict[str, ToolRow] = {}
    for message in messages:
        if isinstance(message, ModelRequest):
            prompt = _prompt_text(message)
            if prompt is not None or not turns:
                turns.append(Turn(prompt))
            for part in message.parts:
                row = calls.get(getattr(part, 'tool_call_id', ''))
                if row is None:
                    continue
                if isinstance(part, ToolReturnPart):
                    row.status, row.result = 'success', jsonable(part.content)
                elif isinstance(part, RetryPromptPart):
                    row.status, row.error = 'error', part.model_response()
        elif isinstance(message, ModelResponse):
            if not turns:
                turns.append(Turn(None))
            for made in message.parts:
                if isinstance(made, ToolCallPart) and not isinstance(made, NativeToolCallPart):
                    call = ToolRow(made.tool_call_id, made.tool_name, _arguments(made))
                    calls[made.tool_call_id] = call
                    turns[-1].tools.append(call)
        turns[-1].messages.append(message)
    return turns


def _arguments(part: ToolCallPart) -> dict[str, Any]:
    try:
        return part.args_as_dict()
    except (ValueError, json.JSONDecodeError):
        return {'_raw': part.args_as_json_str()}


def display_parts(
    messages: list[ModelMessage], output: Any = None, *, has_output: bool = False
) -> list[dict[str, Any]]:
    """What the replay shows for an answer, in order: reasoning, text, tool references, output."""
    parts: list[dict[str, Any]] = []
    called = {
        part.tool_call_id
        for message in messages
        if isinstance(message, ModelResponse)
        for part in message.parts
        if isinstance(part, ToolCallPart)
    }
    for message in messages:
        if isinstance(message, ModelRequest):
            # A resumed run starts with the results of calls an earlier answer made (approved ones
            # ran here): they are placed first, where the stream shows them.
            for request_part in message.parts:
                if isinstance(request_part, ToolReturnPart) and request_part.tool_call_id not in called:
                    parts.append({'type': 'tool', 'tool_call_id': request_part.tool_call_id})
            continue
        for part in message.parts:
            if isinstance(part, ThinkingPart):
                _append_text(parts, 'reasoning', part.content)
            elif isinstance(part, TextPart):
                _append_text(parts, 'text', part.content)
            elif isinstance(part, NativeToolCallPart):
                parts.append({'type': 'native-tool', 'tool_call_id': part.tool_call_id})
            elif isinstance(part, ToolCallPart):
                parts.append({'type': 'tool', 'tool_call_id': part.tool_call_id})
    if has_output and not isinstance(output, str):
        parts.append({'type': 'structured-output', 'output': jsonable(output)})
    return parts


def _append_text(parts: list[dict[str, Any]], kind: str, text: str) -> None:
    if not text:
        return
    if parts and parts[-1]['type'] == kind:
        parts[-1]['text'] += text
    else:
        parts.append({'type': kind, 'text': text})


def answer_text(parts: list[dict[str, Any]], output: Any = None, *, has_output: bool = False) -> str:
    """The assistant row's `content`: the text answer, or the structured output as JSON."""
    if has_output:
        return output if isinstance(output, str) else json.dumps(jsonable(output), ensure_ascii=False)
    return '\n\n'.join(part['text'] for part in parts if part['type'] == 'text')
