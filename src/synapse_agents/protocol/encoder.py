"""Synapse's UI message stream encoder: pydantic-ai's Vercel AI encoder plus what Synapse shows.

`pydantic_ai.ui.vercel_ai.VercelAIEventStream` already turns agent events into the protocol's
text, reasoning, tool input/output (including `tool-output-error` for failed and retried calls),
step and error chunks, closing open parts and pending tool calls when a run fails. It is reused as
is; this subclass only adds:

- `messageMetadata` on `start`, `message-metadata` and `finish`: conversation and message ids, the
  model and provider actually used, usage (cache and reasoning tokens included), cost, duration;
- `data-native-tool` for provider-side (native) tool calls and their results, keyed by the call id
  so the client replaces the part as its status changes;
- `data-structured-output` with the final output of an agent that has an output type;
- `data-notice` (such as a model fallback) for `Notice` items placed in the event stream;
- `data-error` (class, message, traceback, recoverable) just before the protocol's `error` chunk.

It targets SDK version 5, whose chunk set is accepted by `ai` v5, v6 and v7 alike (the test in
tests/node checks every demo agent's stream with each version's own parser).
"""

from __future__ import annotations

import sys
import traceback as traceback_module
from collections.abc import AsyncIterator, Callable
from dataclasses import KW_ONLY, dataclass, field, replace
from typing import Any

from pydantic import TypeAdapter
from pydantic_ai.messages import (
    FunctionToolResultEvent,
    NativeToolCallPart,
    NativeToolReturnPart,
    PartDeltaEvent,
    TextPartDelta,
    ThinkingPartDelta,
)
from pydantic_ai.run import AgentRunResultEvent
from pydantic_ai.ui.vercel_ai import VercelAIEventStream
from pydantic_ai.ui.vercel_ai.response_types import (
    BaseChunk,
    DataChunk,
    DoneChunk,
    ErrorChunk,
    FinishChunk,
    FinishStepChunk,
    MessageMetadataChunk,
    StartChunk,
)

STREAM_HEADERS = {
    'x-vercel-ai-ui-message-stream': 'v1',
    'x-accel-buffering': 'no',
    'cache-control': 'no-cache, no-transform',
}
"""Response headers of a chat stream: the protocol marker, and no proxy buffering."""

SDK_VERSION = 5
_GENERIC_TOOL_ERROR = 'Tool execution was interrupted by an error.'

_any = TypeAdapter(Any)


def encode_chunk(chunk: BaseChunk) -> str:
    """One server-sent event for a chunk."""
    return f'data: {chunk.encode(SDK_VERSION)}\n\n'


def jsonable(value: Any) -> Any:
    """`value` as plain JSON data (pydantic models, dataclasses and dates included)."""
    return _any.dump_python(value, mode='json', fallback=str)


def native_tool_status(part: NativeToolReturnPart) -> str:
    """Synapse's status for a native tool result: `success`, `error` or `interrupted`."""
    if part.outcome in ('failed', 'retried', 'denied'):
        return 'error'
    if part.outcome == 'interrupted':
        return 'interrupted'
    return 'success'


@dataclass
class Notice:
    """Something the user should know that is not an error, such as a model fallback."""

    kind: str
    message: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class TurnFailure:
    """An exception that ended a turn, as shown on the error card."""

    exception_class: str
    message: str
    traceback: str
    recoverable: bool

    @classmethod
    def from_exception(cls, error: BaseException, *, recoverable: bool) -> TurnFailure:
        """Describe `error`; the traceback is the formatted exception with its chain."""
        text = ''.join(traceback_module.format_exception(error))
        return cls(type(error).__name__, str(error) or type(error).__name__, text, recoverable)

    def payload(self) -> dict[str, Any]:
        return {
            'class': self.exception_class,
            'message': self.message,
            'traceback': self.traceback,
            'recoverable': self.recoverable,
        }


@dataclass
class SynapseEventStream(VercelAIEventStream[Any, Any]):
    """The Vercel AI encoder with Synapse's metadata and data parts (see the module docstring)."""

    _: KW_ONLY
    metadata: Callable[[], dict[str, Any]] = dict
    """Builds the current `messageMetadata` (called for `start`, `message-metadata` and `finish`)."""
    on_failure: Callable[[Exception], Any] | None = None
    """Called with the exception that ended the run; returns the `TurnFailure` to show (awaitable)."""

    _native_calls: dict[str, NativeToolCallPart] = field(default_factory=dict)
    _failure: TurnFailure | None = None

    async def before_stream(self) -> AsyncIterator[BaseChunk]:
        yield StartChunk(message_id=self.server_message_id, message_metadata=self.metadata())

    async def after_stream(self) -> AsyncIterator[BaseChunk]:
        if self._step_started:
            yield FinishStepChunk()
        finish_reason = 'error' if self._failure is not None else self._finish_reason
        yield FinishChunk(finish_reason=finish_reason, message_metadata=self.metadata())
        yield DoneChunk()

    async def handle_event(self, event: Any) -> AsyncIterator[BaseChunk]:
        if isinstance(event, PartDeltaEvent):
            # Most events of a stream are text and thinking deltas: go straight to their handler
            # rather than through the base class's two dispatching generators (the same handlers
            # run; this only saves two async-generator layers per delta).
            delta = event.delta
            if isinstance(delta, TextPartDelta):
                handled = self.handle_text_delta(delta)
            elif isinstance(delta, ThinkingPartDelta):
                handled = self.handle_thinking_delta(delta)
            else:
                handled = super().handle_event(event)
        elif isinstance(event, Notice):
            yield DataChunk(
                type='data-notice', data={'kind': event.kind, 'message': event.message, **event.data}
            )
            return
        else:
            handled = super().handle_event(event)
        async for chunk in handled:
            yield chunk

    async def handle_builtin_tool_call_end(self, part: NativeToolCallPart) -> AsyncIterator[BaseChunk]:
        async for chunk in super().handle_builtin_tool_call_end(part):
            yield chunk
        self._native_calls[part.tool_call_id] = part
        yield self._native_chunk(part.tool_call_id, part.tool_name, part.provider_name, 'pending', part, None)

    async def handle_builtin_tool_return(self, part: NativeToolReturnPart) -> AsyncIterator[BaseChunk]:
        async for chunk in super().handle_builtin_tool_return(part):
            yield chunk
        call = self._native_calls.pop(part.tool_call_id, None)
        yield self._native_chunk(
            part.tool_call_id, part.tool_name, part.provider_name, native_tool_status(part), call, part
        )

    def _native_chunk(
        self,
        tool_call_id: str,
        name: str,
        provider: str | None,
        status: str,
        call: NativeToolCallPart | None,
        result: NativeToolReturnPart | None,
    ) -> DataChunk:
        data = {
            'tool_call_id': tool_call_id,
            'name': name,
            'provider': provider,
            'status': status,
            'args': call.args_as_dict() if call is not None else None,
            'result': jsonable(result.content) if result is not None else None,
        }
        return DataChunk(type='data-native-tool', id=tool_call_id, data=data)

    async def handle_function_tool_result(self, event: FunctionToolResultEvent) -> AsyncIterator[BaseChunk]:
        # When a tool raises, the run fails and the base class closes the call with a generic
        # "interrupted by an error" result while handling the exception: show the exception instead.
        part = event.part
        failure = sys.exc_info()[1]
        if part.outcome == 'failed' and part.content == _GENERIC_TOOL_ERROR and failure is not None:
            event = replace(event, part=replace(part, content=f'{type(failure).__name__}: {failure}'))
        async for chunk in super().handle_function_tool_result(event):
            yield chunk

    async def handle_run_result(self, event: AgentRunResultEvent[Any]) -> AsyncIterator[BaseChunk]:
        pydantic_reason = event.result.response.finish_reason
        if pydantic_reason:
            from pydantic_ai.ui.vercel_ai._event_stream import _FINISH_REASON_MAP

            self._finish_reason = _FINISH_REASON_MAP.get(pydantic_reason, 'other')
        output = event.result.output
        if not isinstance(output, str):
            yield DataChunk(type='data-structured-output', data={'output': jsonable(output)})
        yield MessageMetadataChunk(message_metadata=self.metadata())

    async def on_error(self, error: Exception) -> AsyncIterator[BaseChunk]:
        failure: TurnFailure | None = None
        if self.on_failure is not None:
            described = self.on_failure(error)
            if hasattr(described, '__await__'):
                described = await described
            failure = described
        if failure is None:
            failure = TurnFailure.from_exception(error, recoverable=False)
        self._failure = failure
        async for chunk in super().on_error(error):
            if isinstance(chunk, ErrorChunk):
                yield DataChunk(type='data-error', data=failure.payload())
                yield ErrorChunk(error_text=f'{failure.exception_class}: {failure.message}')
            else:
                yield chunk
