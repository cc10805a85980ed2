"""``DemoModel``: an offline pydantic-ai model that behaves like a real one, for the workbench and tests.

It needs no key and no network. For every request it decides a scripted response from what the
request holds (see ``_script``): a thinking part, then either calls to the agent's own function
tools (arguments built from the tools' JSON schemas and the prompt), a native web search with
canned offline results, structured output, or a Markdown answer that restates tool results,
quotes the previous user message, or explains what the demo can do. Text, thinking and tool
arguments stream in several deltas with ``chunk_delay`` seconds between them.

Trigger phrases in the user's latest prompt (case-insensitive; listed in ``DEMO_TRIGGERS``):

- ``rate limit`` / ``too many requests`` → ``ModelHTTPError`` 429 (``ModelRateLimitError``, Retry-After 20)
- ``quota exceeded`` / ``out of credits`` → 402 (``ModelQuotaExceededError``)
- ``auth error`` / ``invalid key`` / ``invalid api key`` → 401 (``ModelAuthenticationError``)
- ``context window`` / ``context length`` → 400 (``ModelContextWindowExceededError``)
- ``model not found`` → 404 (``ModelNotFoundError``)
- ``service unavailable`` / ``error 503`` → 503 (``ModelUnavailableError``)
- ``server error`` / ``error 500`` → 500 (``ModelServerError``)
- ``fail mid-stream`` / ``break the stream`` → streams part of the answer, then 500 with ``in_stream=True``
- ``what did I say`` / ``previous message`` / ``first message`` → quotes the earlier user message
- ``search the web`` / ``web search`` (agent with a native ``WebSearchTool``) → native search, offline results
- ``use all tools`` → calls every function tool at once

Why a ``FunctionModel`` subclass: ``FunctionModel`` is pydantic-ai's local, network-free model, and
inheriting it keeps what a test double needs (all native tools accepted, JSON-schema output in its
profile, no framing announcements, in-memory batch API). The non-streamed path uses its ``function``
hook unchanged. The streamed path is overridden, because ``FunctionStreamedResponse`` reports no
provider name and a fixed, word-based usage; ``DemoStreamedResponse`` reports ``provider_name='synapse'``
and the demo's ~4-characters-per-token usage, counted as the deltas go out.

Naming: ``model_name`` is ``'synapse-demo'``, ``system`` (provider) ``'synapse'``, ``model_id``
``'synapse:synapse-demo'``; responses carry the same ``model_name`` and ``provider_name``. genai-prices
knows neither, so pydantic-ai leaves ``usage.cost`` unset (``None``), never ``0``.
"""

from __future__ import annotations

import copy
import math
import re
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import anyio
from pydantic_ai import RunContext
from pydantic_ai.exceptions import ModelAPIError
from pydantic_ai.messages import (
    InstructionPart,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ModelResponseStreamEvent,
    NativeToolCallPart,
    NativeToolReturnPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from pydantic_ai.models import ModelRequestParameters, StreamedResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.native_tools import SUPPORTED_NATIVE_TOOLS, AbstractNativeTool
from pydantic_ai.profiles import ModelProfile
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RequestUsage

from ._conversation import CHARS_PER_TOKEN, estimate_input_tokens, estimate_output_tokens, response_part_chars
from ._script import PROVIDER_NAME, Plan, plan_response
from ._triggers import unavailable_error

DEMO_MODEL_NAME = 'synapse-demo'
"""The ``model_name`` of the demo model."""

DEFAULT_CONTEXT_WINDOW = 128_000
"""The context window the demo model claims (and quotes in its context-window error)."""


class DemoModel(FunctionModel):
    """An offline, keyless model that streams, thinks, calls tools and fails on request, like a real one."""

    def __init__(
        self,
        *,
        chunk_delay: float = 0.03,
        words_per_chunk: int = 3,
        thinking: bool = True,
        fail_with: Exception | None = None,
        model_name: str = DEMO_MODEL_NAME,
        context_window: int = DEFAULT_CONTEXT_WINDOW,
        settings: ModelSettings | None = None,
    ) -> None:
        """Create a demo model.

        Args:
            chunk_delay: Seconds to wait before each streamed delta (0 for fast tests).
            words_per_chunk: Words of text or thinking per streamed delta (tool arguments stream in
                pieces of ``8 * words_per_chunk`` characters).
            thinking: Whether responses start with a thinking part.
            fail_with: An exception every request raises (a copy of it), before any output, e.g. a
                ``ModelHTTPError`` 503 to play the failing primary of a ``FallbackModel``.
            model_name: The model name to report.
            context_window: The context window to claim in the profile.
            settings: Default model settings.
        """
        if chunk_delay < 0 or words_per_chunk < 1:
            raise ValueError('chunk_delay must be >= 0 and words_per_chunk >= 1')
        self.chunk_delay = chunk_delay
        self.words_per_chunk = words_per_chunk
        self.thinking = thinking
        self.fail_with = fail_with
        profile = ModelProfile(
            supports_json_schema_output=True,
            supports_json_object_output=True,
            supports_thinking=True,
            context_window=context_window,
        )
        super().__init__(self._respond, model_name=model_name, profile=profile, settings=settings)
        self._system = PROVIDER_NAME

    @classmethod
    def always_failing(
        cls,
        status_code: int = 503,
        *,
        model_name: str = f'{DEMO_MODEL_NAME}-unavailable',
        chunk_delay: float = 0.03,
    ) -> DemoModel:
        """A demo model whose every request fails with ``ModelHTTPError(status_code)`` (503: unavailable)."""
        error = unavailable_error(model_name, status_code)
        return cls(fail_with=error, model_name=model_name, chunk_delay=chunk_delay)

    @classmethod
    def supported_native_tools(cls) -> frozenset[type[AbstractNativeTool]]:
        """Every native tool but provider-side tool search, which a script can't emulate.

        Leaving it out makes pydantic-ai's ``ToolSearch`` fall back to its local ``search_tools``
        function tool, as with ``TestModel``. The others get a canned, clearly labelled result.
        """
        return frozenset(tool for tool in SUPPORTED_NATIVE_TOOLS if tool.kind != 'tool_search')

    def __repr__(self) -> str:
        shown = f'model_name={self.model_name!r}, system={self.system!r}, chunk_delay={self.chunk_delay!r}'
        if self.fail_with is not None:
            shown += f', fail_with={self.fail_with!r}'
        return f'{type(self).__name__}({shown})'

    __str__ = __repr__

    async def _respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        """The non-streamed path: the ``function`` that ``FunctionModel.request`` calls."""
        params = info.model_request_parameters
        plan, input_tokens = self._plan(messages, params, info.instructions)
        if plan.interrupt is not None:
            error = copy.copy(plan.interrupt)
            if isinstance(error, ModelAPIError):
                error.in_stream = False  # nothing was streamed: the whole request failed
            raise error
        return ModelResponse(
            parts=plan.parts,
            usage=RequestUsage(input_tokens=input_tokens, output_tokens=estimate_output_tokens(plan.parts)),
            model_name=self.model_name,
            provider_name=PROVIDER_NAME,
            provider_response_id=_response_id(),
            finish_reason=plan.finish_reason,
        )

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncGenerator[StreamedResponse]:
        """Stream the scripted response; errors before output are raised here, as a provider's would be."""
        _, params = self.prepare_request(model_settings, model_request_parameters)
        plan, input_tokens = self._plan(messages, params, _instructions(messages, params))
        if self.chunk_delay:
            await anyio.sleep(self.chunk_delay)  # time to first byte
        yield DemoStreamedResponse(
            model_request_parameters=params,
            _model_name=self.model_name,
            _plan=plan,
            _input_tokens=input_tokens,
            _chunk_delay=self.chunk_delay,
            _words_per_chunk=self.words_per_chunk,
        )

    def _plan(
        self, messages: Sequence[ModelMessage], params: ModelRequestParameters, instructions: str | None
    ) -> tuple[Plan, int]:
        """Decide the response; raise ``fail_with`` or a triggered error before any output."""
        if self.fail_with is not None:
            raise copy.copy(self.fail_with)
        tools = [*params.function_tools, *params.output_tools]
        native = params.output_mode == 'native' and params.output_object is not None
        schema = params.output_object.json_schema if native and params.output_object else None
        input_tokens = estimate_input_tokens(messages, instructions, tools, output_schema=schema)
        plan = plan_response(
            messages,
            params,
            instructions=instructions,
            model_name=self.model_name,
            thinking=self.thinking,
            input_tokens=input_tokens,
            context_window=self.context_window or DEFAULT_CONTEXT_WINDOW,
        )
        if plan.error is not None:
            raise plan.error
        return plan, input_tokens


class DemoStreamCancelled(Exception):
    """Raised inside a demo stream after ``cancel()``, as a closed connection would be."""


@dataclass
class DemoStreamedResponse(StreamedResponse):
    """Streams a :class:`Plan` delta by delta, counting output tokens as it goes."""

    _model_name: str
    _plan: Plan
    _input_tokens: int
    _chunk_delay: float = 0.0
    _words_per_chunk: int = 3
    _timestamp: datetime = field(default_factory=lambda: datetime.now(UTC))
    _output_chars: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self._usage = RequestUsage(input_tokens=self._input_tokens)
        self.provider_response_id = _response_id()

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        for index, part in enumerate(self._plan.parts):
            if isinstance(part, ThinkingPart):
                for chunk in _word_chunks(part.content, self._words_per_chunk):
                    await self._tick(len(chunk))
                    for event in self._parts_manager.handle_thinking_delta(
                        vendor_part_id=index, content=chunk
                    ):
                        yield event
            elif isinstance(part, TextPart):
                chunks = _word_chunks(part.content, self._words_per_chunk)
                for number, chunk in enumerate(chunks):
                    self._maybe_interrupt(number, len(chunks))
                    await self._tick(len(chunk))
                    for event in self._parts_manager.handle_text_delta(vendor_part_id=index, content=chunk):
                        yield event
            elif isinstance(part, ToolCallPart):
                await self._tick(len(part.tool_name))
                for event in self._parts_manager.handle_tool_call_delta_events(
                    vendor_part_id=index, tool_name=part.tool_name, args='', tool_call_id=part.tool_call_id
                ):
                    yield event
                pieces = _char_chunks(part.args_as_json_str(), 8 * self._words_per_chunk)
                for number, piece in enumerate(pieces):
                    self._maybe_interrupt(number, len(pieces))
                    await self._tick(len(piece))
                    for event in self._parts_manager.handle_tool_call_delta_events(
                        vendor_part_id=index, args=piece
                    ):
                        yield event
            elif isinstance(part, NativeToolCallPart | NativeToolReturnPart):
                await self._tick(response_part_chars(part))
                yield self._parts_manager.handle_part(vendor_part_id=index, part=part)
        self._maybe_interrupt(1, 1)  # a plan too short to be cut part-way still fails at the end
        self.finish_reason = self._plan.finish_reason

    async def _tick(self, chars: int) -> None:
        """Wait the chunk delay, then count ``chars`` more characters of output."""
        if self._chunk_delay:
            await anyio.sleep(self._chunk_delay)
        if self._cancelled:
            # What a real stream raises when `cancel()` closes its connection; pydantic-ai expects it.
            raise DemoStreamCancelled()
        self._output_chars += chars
        output_tokens = max(1, math.ceil(self._output_chars / CHARS_PER_TOKEN))
        self._usage = RequestUsage(input_tokens=self._input_tokens, output_tokens=output_tokens)

    def _maybe_interrupt(self, number: int, total: int) -> None:
        """Raise the plan's mid-stream error once half of the first text or tool call has been sent."""
        if self._plan.interrupt is not None and number >= max(1, total // 2):
            self.finish_reason = 'error'
            raise copy.copy(self._plan.interrupt)

    async def close_stream(self) -> None:
        """Nothing to close: there is no connection (the next delta sees the cancellation)."""

    def get_stream_cancel_errors(self) -> tuple[type[BaseException], ...]:
        """The error the stream raises once cancelled."""
        return (DemoStreamCancelled,)

    @property
    def model_name(self) -> str:
        """The demo model's name."""
        return self._model_name

    @property
    def provider_name(self) -> str:
        """``'synapse'``."""
        return PROVIDER_NAME

    @property
    def provider_url(self) -> None:
        """The demo model has no URL."""
        return None

    @property
    def timestamp(self) -> datetime:
        """When the response started."""
        return self._timestamp


def _instructions(messages: Sequence[ModelMessage], params: ModelRequestParameters) -> str | None:
    """The instructions in force for a request, as ``FunctionModel`` computes them for its ``AgentInfo``."""
    if params.instruction_parts is not None:
        return InstructionPart.join(params.instruction_parts)
    for message in reversed(messages):
        if isinstance(message, ModelRequest) and message.instructions is not None:
            return message.instructions
    return None


def _word_chunks(text: str, words: int) -> list[str]:
    tokens = re.findall(r'\s*\S+\s*', text) or [text]
    return [''.join(tokens[i : i + words]) for i in range(0, len(tokens), words)]


def _char_chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or ['']


def _response_id() -> str:
    return f'demo-{uuid.uuid4().hex[:24]}'
