"""The agents the chat tests talk to: ordinary module-level pydantic-ai agents on scripted models.

Tests reach them the way `synapse serve` does, through discovery:
`Catalog(['chat_agents', 'synapse_agents.demo'], root).scan().get('chat_agents.greeter')` (see
`chat_helpers.agent_catalog`). The module is importable because pytest puts tests/ on `sys.path`.
Import it only through discovery: `keyed` names a provider whose key the tests never set, which
discovery turns into a `missing_api_key` agent (a plain import would fail on the missing key).

The models are pydantic-ai `FunctionModel`s that stream a fixed script, so every turn is exact and
takes milliseconds. Slugs are `chat_agents.<attribute with hyphens>`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from pydantic_ai import Agent, ModelRetry
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelMessage, UserPromptPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

# -- scripted models ---------------------------------------------------------------------


def _called_a_tool(messages: list[ModelMessage]) -> bool:
    return any(getattr(p, 'part_kind', '') == 'tool-call' for m in messages for p in m.parts)


def _last_prompt(messages: list[ModelMessage]) -> str:
    for message in reversed(messages):
        for part in message.parts:
            if isinstance(part, UserPromptPart):
                content = part.content
                return content if isinstance(content, str) else str(content[0])
    return ''


def tool_then_text_model(tool: str, args: dict[str, Any], text: str) -> FunctionModel:
    """Streams a call to `tool` first, then `text` (split in words) once the tool has answered."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        if not _called_a_tool(messages):
            yield {0: DeltaToolCall(name=tool, json_args=json.dumps(args), tool_call_id=f'call_{tool}')}
            return
        for word in text.split(' '):
            yield word + ' '

    return FunctionModel(stream_function=stream, model_name='scripted')


def text_model(text: str, model_name: str = 'scripted') -> FunctionModel:
    """Streams `text` word by word (as `model_name`)."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for word in text.split(' '):
            yield word + ' '

    return FunctionModel(stream_function=stream, model_name=model_name)


def echo_history_model() -> FunctionModel:
    """Answers with how many user prompts it received and the binary sizes it saw."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        prompts = [p for m in messages for p in m.parts if isinstance(p, UserPromptPart)]
        sizes = [
            len(item.data)
            for p in prompts
            if isinstance(p.content, list)
            for item in p.content
            if hasattr(item, 'data')
        ]
        yield f'prompts={len(prompts)} files={sizes}'

    return FunctionModel(stream_function=stream, model_name='echo')


# -- agents ------------------------------------------------------------------------------

greeter = Agent(text_model('Hello there friend'), name='greeter')
"""Streams three words."""

priced = Agent(text_model('Priced words', model_name='gpt-4o'), name='priced')
"""Answers as `gpt-4o`, a model pydantic-ai knows the price of: a turn with a known cost."""

echo = Agent(echo_history_model(), name='echo')
"""Reports the prompts and file sizes it was sent (history and attachments)."""

echo_stateless = Agent(echo_history_model(), name='echo_stateless', metadata={'synapse.stateless': True})

modelless = Agent(None, name='modelless')
"""No model of its own: the playground runs it on the selected model (the demo model by default)."""

shop = Agent(tool_then_text_model('lookup', {'order_id': 'A-1'}, 'It shipped.'), name='shop')
"""One tool call, then the answer."""


@shop.tool_plain
def lookup(order_id: str) -> dict[str, str]:
    return {'order_id': order_id, 'status': 'shipped'}


archivist = Agent(tool_then_text_model('lookup', {'order_id': 'A-1'}, 'It shipped.'), name='archivist')
"""Like `shop`, with a tool result large enough for the replay to truncate."""


@archivist.tool_plain(name='lookup')
def lookup_history(order_id: str) -> dict[str, Any]:
    return {'order_id': order_id, 'history': ['x' * 100] * 40}


boom = Agent(tool_then_text_model('explode', {}, 'never'), name='boom')
"""Its only tool raises."""


@boom.tool_plain
def explode() -> str:
    raise RuntimeError('inventory down')


picky = Agent(tool_then_text_model('picky_tool', {'x': 1}, 'fine then'), name='picky', retries=1)
"""Its tool always asks the model to retry."""


@picky.tool_plain(name='picky_tool')
def picky_tool(x: int) -> str:
    raise ModelRetry('try harder')


_HTTP_ERRORS = {
    '429': ModelHTTPError(
        429,
        'scripted',
        {
            'error': {
                'message': 'Rate limit reached for requests',
                'type': 'requests',
                'code': 'rate_limit_exceeded',
            }
        },
        headers={'Retry-After': '20'},
    ),
    '401': ModelHTTPError(401, 'scripted', {'error': 'bad key'}),
    '400': ModelHTTPError(400, 'scripted', {'error': 'context window exceeded'}),
    '503': ModelHTTPError(503, 'scripted', {'error': 'overloaded'}),
    # A plan or credit used up: OpenAI's 429 `insufficient_quota` (with a Retry-After it sends
    # anyway), Anthropic's billing 400 and a 402 Payment Required.
    'quota': ModelHTTPError(
        429,
        'scripted',
        {
            'error': {
                'message': 'You exceeded your current quota, please check your plan and billing details.',
                'type': 'insufficient_quota',
                'code': 'insufficient_quota',
            }
        },
        headers={'Retry-After': '20'},
    ),
    'credit': ModelHTTPError(
        400,
        'scripted',
        {
            'type': 'error',
            'error': {
                'type': 'invalid_request_error',
                'message': 'Your credit balance is too low to access the Anthropic API.',
            },
        },
    ),
    '402': ModelHTTPError(402, 'scripted', {'error': 'Payment Required'}),
}


async def _failing_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    raise _HTTP_ERRORS[_last_prompt(messages).split()[0]]
    yield ''  # pragma: no cover - makes this an async generator


failing = Agent(FunctionModel(stream_function=_failing_stream, model_name='failing'), name='failing')
"""The model answers with the HTTP error named by the message's first word (429, 401, 400, 503)."""


async def _midway_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    yield 'The first half '
    yield 'of an answer '
    raise ModelHTTPError(503, 'scripted', {'error': 'connection reset by the provider'})


breaks_midway = Agent(
    FunctionModel(stream_function=_midway_stream, model_name='midway'), name='breaks_midway'
)
"""Streams part of an answer, then the model fails (the provider drops the stream)."""


async def _slow_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    yield 'partial answer '
    await asyncio.sleep(30)
    yield 'never'


slow = Agent(FunctionModel(stream_function=_slow_stream, model_name='slow'), name='slow')
"""Streams a few words, then takes 30 s for the rest (for cancellation)."""


@dataclass
class Account:
    """Deps that must come from a factory."""

    user: str


def broken_deps() -> Account:
    raise ValueError('no database')


needs_deps = Agent(
    text_model('unreachable'),
    name='needs_deps',
    deps_type=Account,
    metadata={'synapse.deps_factory': 'chat_agents:broken_deps'},
)
"""Its deps factory raises."""

no_factory = Agent(text_model('unreachable'), name='no_factory', deps_type=Account)
"""Needs deps and has no factory."""

keyed = Agent('openai:gpt-5.6-sol', name='keyed')
"""A real provider model whose key is not set."""
