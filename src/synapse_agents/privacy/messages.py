"""Copies of pydantic-ai messages with every text changed by one function: redacted, or restored.

Only copies are made (`dataclasses.replace`): the run's history and the stored conversation are
never changed in place. What is text: a part's `content` (a prompt, an instruction, a tool's return
at any depth of its dicts and lists, a reply, a thought), a text file sent with a prompt (`text/*`,
JSON, XML, YAML), a tool call's `args` (a dict, or a JSON string read and written back, at any
depth), a request's `instructions`, and the instruction parts of the request's parameters. Names,
ids, timestamps and other files (images, PDFs, audio: nothing to read them with here) are left as
they are.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from pydantic_ai.messages import BinaryContent, ModelMessage, ModelRequest, ModelResponse
from pydantic_ai.models import ModelRequestParameters

Change = Callable[[str], str]
T = TypeVar('T')

_TEXT_FIELDS = ('content', 'args')
TEXT_MEDIA_TYPES = frozenset(
    {'application/json', 'application/xml', 'application/x-yaml', 'application/yaml'}
)
"""Files read as text besides `text/*`."""


def changed_value(value: T, change: Change) -> T:
    """`value` with every string in it changed: a string, or strings at any depth of dicts, lists,
    tuples and dataclasses' `content` (the same object when nothing changed)."""
    result: Any = value
    if isinstance(value, str):
        result = change(value)
    elif isinstance(value, dict):
        items = {key: changed_value(item, change) for key, item in value.items()}
        if any(items[key] is not value[key] for key in value):
            result = items
    elif isinstance(value, list | tuple):
        items_list = [changed_value(item, change) for item in value]
        if any(new is not old for new, old in zip(items_list, value, strict=True)):
            result = type(value)(items_list)
    elif isinstance(value, BinaryContent):
        result = _changed_file(value, change)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        result = _changed_part(value, change)
    return result  # type: ignore[no-any-return]


def _changed_file(file: BinaryContent, change: Change) -> BinaryContent:
    """A text file (`text/*`, JSON, XML) with its text changed; any other file as it is."""
    if not (file.media_type.startswith('text/') or file.media_type in TEXT_MEDIA_TYPES):
        return file
    try:
        text = file.data.decode('utf-8')
    except UnicodeDecodeError:
        return file
    new = change(text)
    if new == text:
        return file
    return BinaryContent(data=new.encode('utf-8'), media_type=file.media_type, identifier=file.identifier)


def _changed_part(part: Any, change: Change) -> Any:
    """A copy of `part` with its text fields changed (`part` itself when nothing changed)."""
    updates: dict[str, Any] = {}
    for name in _TEXT_FIELDS:
        if not hasattr(part, name):
            continue
        old = getattr(part, name)
        if isinstance(old, bytes) or old is None:
            continue
        new = (
            _changed_args(old, change)
            if name == 'args' and isinstance(old, str)
            else changed_value(old, change)
        )
        if new is not old and new != old:
            updates[name] = new
    if not updates:
        return part
    try:
        return dataclasses.replace(part, **updates)
    except (TypeError, ValueError):  # a field that is not an init field: set it on a shallow copy
        copied = dataclasses.replace(part)
        for name, new in updates.items():
            object.__setattr__(copied, name, new)
        return copied


def _changed_args(args: str, change: Change) -> str:
    """A tool call's JSON arguments with each string in them changed (re-serialised, so a value with a
    quote or a backslash stays valid JSON); text that is not JSON is changed as text."""
    try:
        parsed = json.loads(args)
    except ValueError:
        return change(args)
    if not isinstance(parsed, dict | list):
        return change(args)
    new = changed_value(parsed, change)
    return args if new is parsed else json.dumps(new, ensure_ascii=False)


def changed_messages(messages: Sequence[ModelMessage], change: Change) -> list[ModelMessage]:
    """Copies of `messages` with their texts changed (a message with no change is the same object)."""
    result: list[ModelMessage] = []
    for message in messages:
        parts = [_changed_part(part, change) for part in message.parts]
        updates: dict[str, Any] = {}
        if any(new is not old for new, old in zip(parts, message.parts, strict=True)):
            updates['parts'] = parts
        if isinstance(message, ModelRequest) and message.instructions:
            instructions = change(message.instructions)
            if instructions != message.instructions:
                updates['instructions'] = instructions
        result.append(dataclasses.replace(message, **updates) if updates else message)
    return result


def changed_response(response: ModelResponse, change: Change) -> ModelResponse:
    """A copy of `response` with its texts and tool-call arguments changed (itself when none did)."""
    changed = changed_messages([response], change)[0]
    assert isinstance(changed, ModelResponse)
    return changed


def changed_parameters(parameters: ModelRequestParameters, change: Change) -> ModelRequestParameters:
    """A copy of `parameters` with its instruction parts changed (itself when none did)."""
    parts = parameters.instruction_parts
    if not parts:
        return parameters
    new_parts = [_changed_part(part, change) for part in parts]
    if all(new is old for new, old in zip(new_parts, parts, strict=True)):
        return parameters
    return dataclasses.replace(parameters, instruction_parts=new_parts)
