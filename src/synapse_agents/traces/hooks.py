"""The trace tree from capability hooks: runs, model calls and tool calls recorded with no span open.

A sink that stores its runs and exports nothing (`TraceSink.from_hooks`, the default) gives every
run started while it is open a `RunTrace` capability (through `_agent_runs`, for that run only: the
turn's own run and every run nested in it; the agent is never changed). Its hooks note, on the event
loop, only what happened and when: the run's start and end, each model request as it was sent and
its response, each tool call with its result or error. The span each would have been, with the
attributes pydantic-ai's instrumentation gives it (built with pydantic-ai's own helpers), is made in
the writer thread, and the same rows are made from it as from an instrumented run's spans
(`traces.processor.TraceWrite`). pydantic-ai's OpenTelemetry instrumentation then runs only for a
sink that exports (`traces.provider`), where the spans themselves are wanted.

Where a run sits comes from a context variable the hooks set, which every run started inside sees
(in the same task, in child tasks and in the threads sync tools run in): a run started inside a tool
call hangs under that call, one started elsewhere inside a run (a capability's own model call)
under that run, a turn's own run under the run a task was queued from (`TraceSink.parent`), and
any other run is a root.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from contextlib import suppress
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from opentelemetry.metrics import NoOpMeterProvider
from opentelemetry.sdk.trace import Event, ReadableSpan
from opentelemetry.trace import NoOpTracerProvider, SpanContext, Status, StatusCode, get_current_span
from pydantic_ai import RunContext
from pydantic_ai._run_context import get_current_run_context
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.exceptions import ApprovalRequired, CallDeferred
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart, tool_return_ta
from pydantic_ai.models import Model, ModelRequestContext
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.tools import ToolDefinition
from pydantic_core import to_json

from .._agent_runs import extend
from ..discovery._pydantic_ai_internals import instrumentation_helpers
from .processor import MODEL, RUN, TOOL, RunState, TraceWrite, processor
from .sink import RunPlace, TraceSink, current_sink
from .tee import synapse_span


@dataclass(frozen=True)
class _Holder:
    """The run a run started here belongs under, and the span it hangs from (the run's or a tool's)."""

    run: RunState
    span_id: int
    trace_id: int


_HOLDER: ContextVar[_Holder | None] = ContextVar('synapse_trace_holder', default=None)


def available() -> bool:
    """Whether runs can be traced from hooks (pydantic-ai has the span attribute helpers)."""
    return instrumentation_helpers() is not None


def install() -> None:
    """Give every run started inside a sink that records from hooks its `RunTrace` (once per process)."""
    extend(_trace)


def _trace(agent: Any, options: dict[str, Any]) -> None:
    sink = current_sink()
    if sink is None or not sink.from_hooks:
        return
    given = options.get('capabilities') or ()
    if not any(isinstance(capability, RunTrace) for capability in given):
        options['capabilities'] = [*given, RunTrace(sink)]


def current_place() -> RunPlace | None:
    """The place of the agent run the caller is inside, where a run started here hangs (a tool's
    span when a tool is running); None outside any traced run."""
    if current_sink() is None:
        return None
    holder = _HOLDER.get()
    if holder is not None:
        return replace(holder.run.place, span_id=_hex(holder.span_id, 16))
    ctx = get_current_run_context()  # an instrumented run (a sink that exports)
    if ctx is None or ctx.run_id is None:
        return None
    place = processor().place(ctx.run_id)
    if place is None:
        return None
    span = synapse_span(get_current_span()).get_span_context()
    return replace(place, span_id=_hex(span.span_id, 16)) if span.is_valid else place


@dataclass
class _Request:
    started: int
    model: Model
    messages: list[ModelMessage]
    settings: Any
    parameters: Any


@dataclass(eq=False)
class RunTrace(AbstractCapability[Any]):
    """Records one run's trace tree from its hooks (see the module docstring). One instance per run
    (`_trace` makes it as the run starts): it keeps that run's state. It has no `for_run` copy on
    purpose: pydantic-ai wraps an `InstrumentedModel` a second time for a run whose capability
    `for_run` returns another instance, and the app's exporter would get each model call twice."""

    sink: TraceSink
    _holder: _Holder | None = field(default=None, init=False)
    _parent: int = field(default=0, init=False)
    """The span the run hangs from (0: none, a root)."""
    _request: _Request | None = field(default=None, init=False)
    _input_tokens: int = field(default=0, init=False)
    _output_tokens: int = field(default=0, init=False)

    async def wrap_run(self, ctx: RunContext[Any], *, handler: Any) -> Any:
        started = time.time_ns()
        holder = self._open(ctx)
        token = _HOLDER.set(holder)
        result: Any = None
        error: Exception | None = None
        try:
            result = await handler()
            return result
        except Exception as exc:  # as pydantic-ai's run span: a cancelled run is not an error
            error = exc
            raise
        finally:
            with suppress(ValueError):  # a stream closed from another task: that context is gone
                _HOLDER.reset(token)
            if self._request is not None:  # a request that got no answer: its run's error is its own
                self._submit_call(self._request, None, time.time_ns())
            attributes: dict[str, Any] = {
                'gen_ai.operation.name': RUN,
                'gen_ai.agent.name': _agent_name(ctx),
                'agent_name': _agent_name(ctx),
                'gen_ai.agent.call.id': holder.run.place.run_id,
                'model_name': ctx.model.model_name if ctx.model else 'no-model',
                'gen_ai.aggregated_usage.input_tokens': self._input_tokens,
                'gen_ai.aggregated_usage.output_tokens': self._output_tokens,
            }
            output = getattr(result, 'output', None)
            if self.sink.bodies and result is not None:
                attributes['final_result'] = output if isinstance(output, str) else _json(output)
            self._submit_run(holder, attributes, started, error)

    def _open(self, ctx: RunContext[Any]) -> _Holder:
        sink = self.sink
        run_id = ctx.run_id or _hex(random.getrandbits(128), 32)
        span_id = random.getrandbits(64)
        recorded = sink.writes is not None and sink.bodies
        outer = _HOLDER.get()
        declared = sink.parent if run_id == sink.run_id else None
        parent_run_id: str | None = None
        if outer is not None:
            trace_id, self._parent, parent_run_id = outer.trace_id, outer.span_id, outer.run.place.run_id
            root, depth = outer.run.place.root_run_id, outer.run.place.depth + 1
        elif declared is not None:
            trace_id = _int(declared.trace_id) or random.getrandbits(128)
            self._parent, parent_run_id = _int(declared.span_id), declared.run_id
            root, depth = declared.root_run_id, declared.depth + 1
        else:
            trace_id, root, depth = random.getrandbits(128), run_id, 0
        place = RunPlace(run_id, root, depth, _hex(trace_id, 32), _hex(span_id, 16), recorded)
        origin = sink.origin if run_id == sink.run_id else 'direct'
        self._holder = _Holder(RunState(place, sink, parent_run_id, origin), span_id, trace_id)
        return self._holder

    # -- model requests ------------------------------------------------------------------

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        self._request = _as_sent(request_context, time.time_ns())
        return request_context

    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, response: ModelResponse
    ) -> ModelResponse:
        ended = time.time_ns()
        request = self._request or _as_sent(request_context, ended)
        # A later attempt of the same request (a retry) starts when this one ended.
        self._request = None
        self._input_tokens += response.usage.input_tokens
        self._output_tokens += response.usage.output_tokens
        self._submit_call(request, response, ended)
        return response

    def _submit_call(self, request: _Request, response: ModelResponse | None, ended: int) -> None:
        self._request = None
        holder = self._holder
        if holder is None:
            return
        bodies = self.sink.bodies
        trace_id, parent = holder.trace_id, holder.span_id

        def span() -> ReadableSpan:
            attributes = _call_attributes(request, response, bodies)
            return _span(
                f'chat {request.model.model_name}',
                attributes,
                request.started,
                ended,
                None,
                trace_id,
                parent,
            )

        self._write(MODEL, span)

    # -- tool calls ----------------------------------------------------------------------

    async def wrap_tool_execute(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: dict[str, Any],
        handler: Any,
    ) -> Any:
        holder = self._holder
        if holder is None:
            return await handler(args)
        started = time.time_ns()
        span_id = random.getrandbits(64)
        token = _HOLDER.set(_Holder(holder.run, span_id, holder.trace_id))
        result: Any = None
        error: BaseException | None = None
        try:
            result = await handler(args)
            return result
        except (CallDeferred, ApprovalRequired):
            raise  # control flow, not an error: the call waits
        except BaseException as exc:
            error = exc
            raise
        finally:
            with suppress(ValueError):
                _HOLDER.reset(token)
            self._submit_tool(call, started, error, result, span_id)

    async def on_tool_validate_error(
        self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition, args: Any, error: Any
    ) -> Any:
        """A call whose arguments failed validation never runs: its span says why."""
        self._submit_tool(call, time.time_ns(), error, None, random.getrandbits(64))
        raise error

    def _submit_tool(
        self, call: ToolCallPart, started: int, error: BaseException | None, result: Any, span_id: int
    ) -> None:
        holder = self._holder
        if holder is None:
            return
        ended, bodies = time.time_ns(), self.sink.bodies
        trace_id, parent = holder.trace_id, holder.span_id

        def span() -> ReadableSpan:
            attributes: dict[str, Any] = {
                'gen_ai.operation.name': TOOL,
                'gen_ai.tool.name': call.tool_name,
                'gen_ai.tool.call.id': call.tool_call_id,
            }
            if bodies:
                attributes['gen_ai.tool.call.arguments'] = call.args_as_json_str()
                if error is None:
                    attributes['gen_ai.tool.call.result'] = (
                        result if isinstance(result, str) else tool_return_ta.dump_json(result).decode()
                    )
            return _span(
                f'running tool: {call.tool_name}',
                attributes,
                started,
                ended,
                error,
                trace_id,
                parent,
                span_id,
            )

        self._write(TOOL, span)

    # -- writes --------------------------------------------------------------------------

    def _submit_run(
        self, holder: _Holder, attributes: dict[str, Any], started: int, error: BaseException | None
    ) -> None:
        ended, name, parent = time.time_ns(), f'{attributes["agent_name"]} run', self._parent

        def span() -> ReadableSpan:
            return _span(name, attributes, started, ended, error, holder.trace_id, parent, holder.span_id)

        self._write(RUN, span)

    def _write(self, kind: str, span: Callable[[], ReadableSpan]) -> None:
        holder, writes = self._holder, self.sink.writes
        if holder is not None and writes is not None:
            writes.submit(TraceWrite(kind, span, holder.run), after=True)


def _as_sent(request_context: ModelRequestContext, started: int) -> _Request:
    return _Request(
        started,
        request_context.model,
        list(request_context.messages),
        request_context.model_settings,
        request_context.model_request_parameters,
    )


def _agent_name(ctx: RunContext[Any]) -> str:
    return (ctx.agent.name if ctx.agent is not None else None) or 'agent'


@cache
def _settings(bodies: bool) -> InstrumentationSettings:
    """pydantic-ai's instrumentation settings, only to shape messages as its spans do."""
    return InstrumentationSettings(
        tracer_provider=NoOpTracerProvider(),
        meter_provider=NoOpMeterProvider(),
        include_content=bodies,
        include_binary_content=False,
    )


class _Attributes:
    """What `InstrumentationSettings.handle_messages` sets on a span, into a dict."""

    def __init__(self, into: dict[str, Any]) -> None:
        self.into = into

    def set_attributes(self, attributes: dict[str, Any]) -> None:
        self.into.update(attributes)


def _call_attributes(request: _Request, response: ModelResponse | None, bodies: bool) -> dict[str, Any]:
    """A model request span's attributes as pydantic-ai's instrumentation sets them (writer thread)."""
    helpers = instrumentation_helpers()
    attributes: dict[str, Any] = {'gen_ai.operation.name': MODEL}
    if helpers is None:
        return attributes
    # As the span does: the request as the model prepares it (which warned once already, when sent).
    with helpers['suppress_warnings']():
        settings, parameters = request.model.prepare_request(request.settings, request.parameters)
    attributes.update(helpers['model_attributes'](request.model))
    attributes.update(helpers['model_request_parameters_attributes'](parameters, include_content=bodies))
    if definitions := helpers['build_tool_definitions'](parameters):
        attributes['gen_ai.tool.definitions'] = to_json(definitions).decode()
    attributes.update(helpers['model_settings_attributes'](settings))
    if response is None:  # no answer: pydantic-ai's span then describes the empty response it got
        response = ModelResponse(parts=[], model_name=request.model.model_name)
    into: Any = _Attributes(attributes)  # all `handle_messages` does with its span is set attributes
    _settings(bodies).handle_messages(list(request.messages), response, into, parameters)
    model = response.model_name or request.model.model_name
    price = helpers['response_price_calculation'](response)
    attributes.update(helpers['response_attributes'](response, model, price))
    return attributes


def _span(
    name: str,
    attributes: dict[str, Any],
    started: int,
    ended: int,
    error: BaseException | None,
    trace_id: int,
    parent: int,
    span_id: int | None = None,
) -> ReadableSpan:
    """The span pydantic-ai's instrumentation would have ended, its error recorded as it records one
    with contents on: a tree without bodies still says what failed and why (the texts are redacted of
    secrets when the row is written)."""
    events: list[Event] = []
    status = Status(StatusCode.UNSET)
    if error is not None:
        kind = type(error)
        type_name = (
            kind.__qualname__ if kind.__module__ == 'builtins' else f'{kind.__module__}.{kind.__qualname__}'
        )
        details = {'exception.type': type_name, 'exception.message': str(error)}
        events.append(Event('exception', details, ended))
        status = Status(StatusCode.ERROR, f'{kind.__name__}: {error}')
    return ReadableSpan(
        name=name,
        context=SpanContext(
            trace_id, span_id if span_id is not None else random.getrandbits(64), is_remote=False
        ),
        parent=SpanContext(trace_id, parent, is_remote=False) if parent else None,
        attributes=attributes,
        events=events,
        status=status,
        start_time=started,
        end_time=ended,
    )


def _json(value: Any) -> str:
    return to_json(value, fallback=str).decode()


def _hex(value: int, width: int) -> str:
    return format(value, f'0{width}x')


def _int(value: str) -> int:
    try:
        return int(value, 16) if value else 0
    except ValueError:
        return 0
