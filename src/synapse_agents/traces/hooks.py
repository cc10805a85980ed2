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
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import get_current_span
from pydantic_ai import RunContext
from pydantic_ai._run_context import get_current_run_context
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.exceptions import ApprovalRequired, CallDeferred
from pydantic_ai.messages import ModelResponse, ToolCallPart, tool_return_ta
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.tools import ToolDefinition

from .._agent_runs import extend
from ..discovery._pydantic_ai_internals import instrumentation_helpers
from .processor import MODEL, RUN, TOOL, RunState, TraceWrite, processor
from .sink import RunPlace, TraceSink, current_sink
from .spans import Request, as_json, as_sent, call_attributes, ended_span
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
    _request: Request | None = field(default=None, init=False)
    _input_tokens: int = field(default=0, init=False)
    _output_tokens: int = field(default=0, init=False)
    _messages_json: dict[int, Any] = field(default_factory=dict, init=False)
    """Its model calls' message JSON, reused from one call to the next (only the writer thread,
    which builds a run's spans one after another, touches it)."""

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
            name = _agent_name(ctx)
            attributes: dict[str, Any] = {
                'gen_ai.operation.name': RUN,
                'gen_ai.agent.name': name,
                'agent_name': name,
                'gen_ai.agent.call.id': holder.run.place.run_id,
                'model_name': ctx.model.model_name if ctx.model else 'no-model',
                'gen_ai.aggregated_usage.input_tokens': self._input_tokens,
                'gen_ai.aggregated_usage.output_tokens': self._output_tokens,
            }
            output = getattr(result, 'output', None)
            if self.sink.bodies and result is not None:
                attributes['final_result'] = output if isinstance(output, str) else as_json(output)
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
        self._request = as_sent(request_context, time.time_ns())
        return request_context

    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, response: ModelResponse
    ) -> ModelResponse:
        ended = time.time_ns()
        request = self._request or as_sent(request_context, ended)
        self._input_tokens += response.usage.input_tokens
        self._output_tokens += response.usage.output_tokens
        self._submit_call(request, response, ended)
        return response

    def _submit_call(self, request: Request, response: ModelResponse | None, ended: int) -> None:
        self._request = None  # a later attempt of the same request (a retry) starts when this one ended
        holder = self._holder
        if holder is None:
            return
        bodies, messages_json = self.sink.bodies, self._messages_json
        trace_id, parent = holder.trace_id, holder.span_id

        def span() -> ReadableSpan:
            attributes = call_attributes(request, response, bodies, messages_json)
            return ended_span(
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
            return ended_span(
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
            return ended_span(
                name, attributes, started, ended, error, holder.trace_id, parent, holder.span_id
            )

        self._write(RUN, span)

    def _write(self, kind: str, span: Callable[[], ReadableSpan]) -> None:
        holder, writes = self._holder, self.sink.writes
        if holder is not None and writes is not None:
            writes.submit(TraceWrite(kind, span, holder.run), after=True)


def _agent_name(ctx: RunContext[Any]) -> str:
    return (ctx.agent.name if ctx.agent is not None else None) or 'agent'


def _hex(value: int, width: int) -> str:
    return format(value, f'0{width}x')


def _int(value: str) -> int:
    try:
        return int(value, 16) if value else 0
    except ValueError:
        return 0
