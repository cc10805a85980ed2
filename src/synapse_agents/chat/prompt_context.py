"""What filled each prompt: a model request's context window broken down by source.

The recorder keeps a reference to each request as it is sent (`PromptSnapshot`: the messages, the
instructions and tool definitions after every capability had its say); nothing is counted on the
event loop. When the turn is stored, the writer thread turns each into a row
(`conversations/prompt_contexts.py`) with these blocks, in prompt order:

- `rules`: the block `Rules()` put at the top; `instructions`: the agent's own; `memories`: the
  block `Memory()` put after them;
- `tools`: the tool definitions (names, descriptions, JSON schemas);
- `summary`: what `Compression` sent for the older turns; `history`: earlier turns sent verbatim;
- `message`: the user's new message (with its files); `run`: this turn's own tool calls, results and
  answers so far;
- `retrieved`: what `Retrieval`'s search tool returned (in this turn or earlier ones), counted apart
  from the history and the run it sits in.

Each block has its token count and its text (cut at `TEXT_LIMIT` characters, saying so). Counts are
estimates (`compression.history`: about four characters a token), marked `estimated`; the
provider's own count of the whole request (`input_tokens`, from its usage) sits beside them, with the
model's context window when genai-prices knows it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart, UserPromptPart
from pydantic_ai.models import ModelRequestParameters
from sqlalchemy import Connection, insert

from ..compression.capability import SUMMARY_HEADING
from ..compression.history import message_tokens, part_text, text_tokens
from ..conversations.prompt_contexts import PromptContext
from ..memory.capability import PART_NAME as MEMORY_PART
from ..redaction import scrub
from ..retrieval.capability import SEARCH_TOOL
from ..rules.capability import PART_NAME as RULES_PART
from ..store.ids import new_id
from ..store.prepared import execute

logger = logging.getLogger('synapse.chat')

TEXT_LIMIT = 4000
KINDS = ('rules', 'instructions', 'memories', 'tools', 'summary', 'history', 'message', 'run', 'retrieved')
LABELS = {
    'rules': 'Rules',
    'instructions': 'Instructions',
    'memories': 'Memories',
    'tools': 'Tool definitions',
    'summary': 'Summary of older turns',
    'history': 'History (verbatim)',
    'message': 'New message',
    'run': 'This turn so far',
    'retrieved': 'Retrieved documents',
}


_PART_KINDS = {RULES_PART: 'rules', MEMORY_PART: 'memories'}


@dataclass(frozen=True)
class PromptSnapshot:
    """One model request as it was sent (references only: built on the event loop for free)."""

    messages: Sequence[ModelMessage]
    parameters: ModelRequestParameters
    run_id: str | None
    model: str | None
    provider: str | None


def context_rows(
    snapshots: Sequence[PromptSnapshot],
    input_tokens: Sequence[int | None],
    *,
    conversation_id: str,
    message_id: str,
    texts: bool,
) -> list[dict[str, Any]]:
    """The `prompt_contexts` rows of a turn's requests (`input_tokens`: each one's provider count);
    the blocks' texts only when `texts` (the turn keeps bodies: `chat/tracing.wants_debug`)."""
    rows = []
    for position, snapshot in enumerate(snapshots):
        reported = input_tokens[position] if position < len(input_tokens) else None
        rows.append(
            {
                'id': new_id(),
                'conversation_id': conversation_id,
                'message_id': message_id,
                'run_id': snapshot.run_id,
                'position': position,
                'data': breakdown(snapshot, reported, texts=texts),
            }
        )
    return rows


def record_contexts(rows_of: Callable[[], list[dict[str, Any]]]) -> Callable[[Connection], None]:
    """A write op that builds the rows in the writer thread and inserts them."""

    def op(connection: Connection) -> None:
        try:
            rows = rows_of()
        except Exception:  # a breakdown that cannot be built never costs the turn its save
            logger.warning('what filled the prompt could not be recorded', exc_info=True)
            return
        if rows:
            execute(connection, _insert(), rows)

    return op


def breakdown(snapshot: PromptSnapshot, input_tokens: int | None, *, texts: bool = True) -> dict[str, Any]:
    """One request's blocks (see the module docstring)."""
    found: dict[str, list[str]] = {kind: [] for kind in KINDS}
    tokens = dict.fromkeys(KINDS, 0)
    for part in snapshot.parameters.instruction_parts or []:
        kind = _PART_KINDS.get(part.name or '', 'instructions')
        found[kind].append(part.content)
        tokens[kind] += text_tokens(part.content)
    tools = [*snapshot.parameters.function_tools, *snapshot.parameters.output_tools]
    if tools:
        described = json.dumps(
            [
                {'name': t.name, 'description': t.description, 'parameters': t.parameters_json_schema}
                for t in tools
            ],
            ensure_ascii=False,
            default=str,
        )
        found['tools'].append(described)
        tokens['tools'] += text_tokens(described)
    messages = list(snapshot.messages)
    first_own = next(
        (
            i
            for i, m in enumerate(messages)
            if snapshot.run_id and getattr(m, 'run_id', None) == snapshot.run_id
        ),
        len(messages),
    )
    for index, message in enumerate(messages):
        own = index >= first_own
        if own and index == first_own and isinstance(message, ModelRequest):
            _split_opening(message, found, tokens, kind='message')
            continue
        if not own and index == 0 and isinstance(message, ModelRequest) and _has_summary(message):
            _split_opening(message, found, tokens, kind='history')
            continue
        kind = 'run' if own else 'history'
        message = _apart_retrieved(message, found, tokens)
        if message.parts:
            found[kind].append(_message_text(message))
            tokens[kind] += message_tokens(message)
    blocks = []
    for kind in KINDS:
        if not found[kind] and not tokens[kind]:
            continue
        block: dict[str, Any] = {'kind': kind, 'label': LABELS[kind], 'tokens': tokens[kind]}
        if texts:
            text = '\n\n'.join(t for t in found[kind] if t)
            block.update(text=scrub(text[:TEXT_LIMIT]), truncated=len(text) > TEXT_LIMIT)
        blocks.append(block)
    return {
        'model': snapshot.model,
        'provider': snapshot.provider,
        'context_window': context_window(snapshot.model, snapshot.provider),
        'estimated_tokens': sum(tokens.values()),
        'input_tokens': input_tokens,
        'estimated': True,
        'blocks': blocks,
    }


def _split_opening(
    message: ModelRequest, texts: dict[str, list[str]], tokens: dict[str, int], *, kind: str
) -> None:
    """A request that opens a turn: its user text under `kind` (tool results a resumed run opens
    with under `run`), and the summary `Compression` put before it apart."""
    for part in message.parts:
        text = part_text(part)
        if isinstance(part, UserPromptPart):
            summary = isinstance(part.content, str) and text.startswith(SUMMARY_HEADING)
            target = 'summary' if summary else kind
        else:
            target = 'run' if kind == 'message' else kind
        texts[target].append(text)
        tokens[target] += text_tokens(text) + 3


def _apart_retrieved(
    message: ModelMessage, texts: dict[str, list[str]], tokens: dict[str, int]
) -> ModelMessage:
    """`message` without the results of `Retrieval`'s search tool, which go under `retrieved`."""
    if not isinstance(message, ModelRequest):
        return message
    rest = []
    for part in message.parts:
        if isinstance(part, ToolReturnPart) and part.tool_name == SEARCH_TOOL:
            text = part_text(part)
            texts['retrieved'].append(text)
            tokens['retrieved'] += text_tokens(text) + 3
        else:
            rest.append(part)
    return message if len(rest) == len(message.parts) else replace(message, parts=rest)


def _has_summary(message: ModelRequest) -> bool:
    return any(
        isinstance(p, UserPromptPart) and isinstance(p.content, str) and p.content.startswith(SUMMARY_HEADING)
        for p in message.parts
    )


def _message_text(message: ModelMessage) -> str:
    return '\n'.join(text for part in message.parts if (text := part_text(part)))


@lru_cache(maxsize=256)
def context_window(model: str | None, provider: str | None) -> int | None:
    """The model's context window in tokens, when genai-prices knows the model (no network)."""
    if not model:
        return None
    from genai_prices.data_snapshot import get_snapshot

    try:
        _, info = get_snapshot().find_provider_model(model, None, provider, None)
    except Exception:
        return None
    window = getattr(info, 'context_window', None)
    return window if isinstance(window, int) else None


@lru_cache(maxsize=1)
def _insert() -> Any:
    return insert(PromptContext)
