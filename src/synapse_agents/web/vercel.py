"""The chat route's wire format: a turn's events as the Vercel AI SDK UI message stream.

`encode_turn` reads the engine's domain events (`events.py`) and yields server-sent events.
`pydantic_ai.ui.vercel_ai.VercelAIEventStream` already turns agent events into the protocol's
text, reasoning, tool input/output (including `tool-output-error` for failed and retried calls),
step and error chunks, closing open parts and pending tool calls when a run fails. It is reused as
is; `SynapseEventStream` only adds:

- `messageMetadata` on `start`, `message-metadata` and `finish`: conversation and message ids, the
  model and provider actually used, usage (cache and reasoning tokens included), cost, duration,
  and on `finish` whether the turn was saved (from `TurnStarted` and `TurnFinished`);
- `data-native-tool` for provider-side (native) tool calls and their results, keyed by the call id
  so the client replaces the part as its status changes;
- `data-structured-output` with the final output of an agent that has an output type;
- `data-notice` (such as a model fallback) for each `Notice`;
- `data-tool-status` (transient) for each tool call a failure cancelled, before `data-error`: it
  is stored as interrupted, where the protocol's own closing chunk says error;
- `data-tool-timing` (transient) right after a tool call's result: its duration as stored, so the
  live card shows what a reload shows;
- `data-tool-approval` for each tool call the run paused on (`conversations/deferred.py`): its id, name,
  arguments and what it waits for (`approval` or `external`), after the run's result; with
  `sdk_version` 6 or 7, also the SDK's own `tool-approval-request` for each call that needs
  approval. `messageMetadata` then lists the waiting ids as `awaiting`. A turn that resumes a
  paused run sends no chunks for the calls it denied or answered: they belong to the earlier
  message, which the client already shows;
- `data-error` (class, message, traceback, recoverable) just before the protocol's `error` chunk,
  for a `TurnFailed`: its exception is raised inside the encoder's source, so the base class's
  error path closes open parts and pending tools exactly as for a run that raised.

It targets SDK version 5 unless the request asks for 6 or 7: version 5's chunk set is accepted by
`ai` v5, v6 and v7 alike (the test in tests/node checks every demo agent's stream with each
version's own parser); 6 and 7 add the approval and denial chunks those versions understand.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from dataclasses import KW_ONLY, dataclass, field, replace
from typing import Any, Literal

from pydantic_ai.messages import (
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    NativeToolCallPart,
    NativeToolReturnPart,
    PartDeltaEvent,
    TextPartDelta,
    ThinkingPartDelta,
    ToolCallPart,
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
    ToolApprovalRequestChunk,
)

from .._json import jsonable
from ..chat.outcome import native_tool_status, usage_summary
from ..conversations.deferred import paused_calls
from ..events import Notice, ToolTimed, TurnEvent, TurnFailed, TurnFinished, TurnStarted

STREAM_HEADERS = {
    'x-vercel-ai-ui-message-stream': 'v1',
    'x-accel-buffering': 'no',
    'cache-control': 'no-cache, no-transform',
}
"""Response headers of a chat stream: the protocol marker, and no proxy buffering."""

SdkVersion = Literal[5, 6, 7]
SDK_VERSION: SdkVersion = 5
"""The SDK version a stream targets unless the request names another (`SDK_VERSIONS`)."""
SDK_VERSIONS = (5, 6, 7)
_GENERIC_TOOL_ERROR = 'Tool execution was interrupted by an error.'


def encode_chunk(chunk: BaseChunk, sdk_version: int = SDK_VERSION) -> str:
    """One server-sent event for a chunk."""
    return f'data: {chunk.encode(sdk_version)}\n\n'


async def encode_turn(
    events: AsyncGenerator[TurnEvent, None], sdk_version: SdkVersion = SDK_VERSION
) -> AsyncIterator[str]:
    """A turn's events as the UI message stream; closing this stream closes (ends) the turn."""
    async with aclosing(events):
        started = await anext(events)
        if not isinstance(started, TurnStarted):
            raise TypeError(f'a turn starts with TurnStarted, not {type(started).__name__}')
        stream = SynapseEventStream(
            server_message_id=started.message_id, started=started, sdk_version=sdk_version
        )
        async for chunk in stream.transform_stream(stream.source(events)):
            yield encode_chunk(chunk, sdk_version)


class _TurnError(Exception):
    """A `TurnFailed` that carries no exception, raised so the base class's error path runs."""


@dataclass
class SynapseEventStream(VercelAIEventStream[Any, Any]):
    """The Vercel AI encoder with Synapse's metadata and data parts (see the module docstring)."""

    _: KW_ONLY
    started: TurnStarted

    _finished: TurnFinished | None = None
    _failed: TurnFailed | None = None
    _native_calls: dict[str, NativeToolCallPart] = field(default_factory=dict)
    _failure: TurnFailed | None = None
    """The card shown (set on the error path)."""
    _announced: set[str] = field(default_factory=set)
    """The function tool calls this stream announced (a resumed run's earlier calls are not)."""

    async def source(self, events: AsyncIterator[TurnEvent]) -> AsyncIterator[Any]:
        """The events for `transform_stream`; a `TurnFailed` is raised, after reading the rest."""
        async for event in events:
            if isinstance(event, TurnFailed):
                self._failed = event
                async for rest in events:  # the TurnFinished that follows, for `finish`
                    if isinstance(rest, TurnFinished):
                        self._finished = rest
                error = event.error
                raise error if isinstance(error, Exception) else _TurnError(event.message)
            yield event

    def metadata(self) -> dict[str, Any]:
        """`messageMetadata`: the ids the turn started with, or, once finished, what it stored."""
        started, finished = self.started, self._finished
        if finished is None:
            return {
                'conversation_id': started.conversation_id,
                'message_id': started.message_id,
                'user_message_id': started.user_message_id,
                'model': started.model,
                'provider': started.provider,
                'usage': usage_summary(None),
                'cost': None,
                'currency': started.currency,
                'duration_ms': None,
                'stateless': started.stateless,
            }
        metadata: dict[str, Any] = {
            'conversation_id': finished.conversation_id,
            'message_id': finished.message_id,
            'user_message_id': finished.user_message_id,
            'model': finished.model,
            'provider': finished.provider,
            'usage': usage_summary(finished.usage),
            'cost': float(finished.cost) if finished.cost is not None else None,
            'currency': finished.currency,
            'duration_ms': finished.duration_ms,
            'stateless': finished.stateless,
        }
        if finished.saved is not None:
            metadata['saved'] = finished.saved
        if finished.awaiting:
            metadata['awaiting'] = finished.awaiting
        return metadata

    async def before_stream(self) -> AsyncIterator[BaseChunk]:
        yield StartChunk(message_id=self.server_message_id, message_metadata=self.metadata())

    async def after_stream(self) -> AsyncIterator[BaseChunk]:
        if self._step_started:
            yield FinishStepChunk()
        finish_reason = 'error' if self._failure is not None else self._finish_reason or 'other'
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
        elif isinstance(event, TurnFinished):
            self._finished = event
            yield MessageMetadataChunk(message_metadata=self.metadata())
            return
        elif isinstance(event, ToolTimed):
            yield DataChunk(
                type='data-tool-timing',
                data={'tool_call_id': event.tool_call_id, 'duration_ms': event.duration_ms},
                transient=True,
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

    def handle_tool_call_start(self, part: ToolCallPart | NativeToolCallPart) -> AsyncIterator[BaseChunk]:
        self._announced.add(part.tool_call_id)
        return super().handle_tool_call_start(part)

    async def handle_function_tool_call(self, event: FunctionToolCallEvent) -> AsyncIterator[BaseChunk]:
        if event.args_valid is not None:
            self._announced.add(event.part.tool_call_id)
        async for chunk in super().handle_function_tool_call(event):
            yield chunk

    async def handle_function_tool_result(self, event: FunctionToolResultEvent) -> AsyncIterator[BaseChunk]:
        if event.part.tool_call_id not in self._announced:
            return  # a denied or answered call of the paused run: the earlier message shows it
        # When a tool raises, the run fails and the base class closes the call with a generic
        # "interrupted by an error" result while handling the exception: show the exception instead.
        part = event.part
        failure = self._failed.error if self._failed is not None else sys.exc_info()[1]
        if part.outcome == 'failed' and part.content == _GENERIC_TOOL_ERROR and failure is not None:
            event = replace(event, part=replace(part, content=f'{type(failure).__name__}: {failure}'))
        async for chunk in super().handle_function_tool_result(event):
            yield chunk

    async def handle_run_result(self, event: AgentRunResultEvent[Any]) -> AsyncIterator[BaseChunk]:
        # The engine sends the result once the answer is stored; the metadata follows on TurnFinished.
        pydantic_reason = event.result.response.finish_reason
        if pydantic_reason:
            from pydantic_ai.ui.vercel_ai._event_stream import _FINISH_REASON_MAP

            self._finish_reason = _FINISH_REASON_MAP.get(pydantic_reason, 'other')
        else:  # the run reached its result and the model named no reason: it stopped normally
            self._finish_reason = 'stop'
        output = event.result.output
        paused = paused_calls(output)
        if paused:
            for call in paused:
                yield DataChunk(type='data-tool-approval', id=call.tool_call_id, data=call.as_json())
                if self.sdk_version >= 6 and call.kind == 'approval':
                    yield ToolApprovalRequestChunk(
                        approval_id=call.tool_call_id, tool_call_id=call.tool_call_id
                    )
        elif not isinstance(output, str):
            yield DataChunk(type='data-structured-output', data={'output': jsonable(output)})

    async def on_error(self, error: Exception) -> AsyncIterator[BaseChunk]:
        failure = self._failed or TurnFailed.from_exception(error, recoverable=False)
        self._failure = failure
        async for chunk in super().on_error(error):
            if isinstance(chunk, ErrorChunk):
                for call_id in failure.interrupted_tools:
                    yield DataChunk(
                        type='data-tool-status',
                        data={'tool_call_id': call_id, 'status': 'interrupted'},
                        transient=True,
                    )
                yield DataChunk(type='data-error', data=failure.payload())
                yield ErrorChunk(error_text=f'{failure.exception_class}: {failure.message}')
            else:
                yield chunk
