"""The span processor that turns pydantic-ai's spans into trace rows, and finds each run's parent.

It serves the turns that are exported (a turn only stored is recorded from hooks, `traces.hooks`,
which hands its writes to the same `TraceWrite`). pydantic-ai's instrumentation (installed by
`traces.provider`) opens an `invoke_agent` span per
agent run, a `chat` span per model call and an `execute_tool` span per tool call, each inside the
span that was current when it started. A run started inside a tool therefore starts inside that
tool's span: `on_start` looks up the run that span belongs to and gives the new run its parent, its
depth and its root. Nobody passes an id. Only spans started while a `TraceSink` is open are recorded
(the sampler drops the rest before they cost anything). When a span ends, its write goes on the
sink's write queue; the queue's thread builds the row (`traces.rows`) and inserts it, so neither
building nor writing it costs the event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from typing import Any

from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor
from sqlalchemy import Connection

from ..redaction import scrub_value
from ..store.prepared import execute
from .rows import debug_log_row, no_answer, run_row, span_error, tool_row
from .sink import RunPlace, TraceSink, current_sink
from .tables import DebugLog, TraceRun, TraceTool

RUN, MODEL, TOOL = 'invoke_agent', 'chat', 'execute_tool'
_OPERATION = 'gen_ai.operation.name'
_RUN_ID = 'gen_ai.agent.call.id'


@dataclass
class RunState:
    """An agent run whose span is open: its place, and what its own calls added up to."""

    place: RunPlace
    sink: TraceSink
    parent_run_id: str | None
    origin: str
    model_calls: int = 0
    tool_calls: int = 0
    costs: list[Decimal | None] = field(default_factory=list)
    unanswered: list[dict[str, Any]] = field(default_factory=list)
    """Debug logs of calls that got no answer, written when the run ends: its error is theirs."""


@dataclass
class _Open:
    sink: TraceSink
    kind: str
    run_id: str | None


class TraceProcessor(SpanProcessor):
    """See the module docstring."""

    def __init__(self) -> None:
        self._open: dict[int, _Open] = {}
        self._runs: dict[str, RunState] = {}

    def place(self, run_id: str) -> RunPlace | None:
        """The place of the open run `run_id` (None once it ended, or when it is not traced)."""
        run = self._runs.get(run_id)
        return run.place if run is not None else None

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        sink = current_sink()
        if sink is None:
            return
        attributes = span.attributes or {}
        kind = str(attributes.get(_OPERATION) or '')
        run_id = attributes.get(_RUN_ID)
        run_id = str(run_id) if run_id is not None else None
        parent_span = span.parent.span_id if span.parent is not None else None
        if kind == RUN and run_id is not None:
            self._start_run(span, sink, run_id, parent_span)
        elif run_id is None and parent_span is not None:
            parent = self._open.get(parent_span)
            run_id = parent.run_id if parent is not None else None
        self._open[span.context.span_id] = _Open(sink, kind, run_id)
        if run_id is not None:
            span.set_attribute('synapse.agent_run_id', run_id)
        for key, value in (
            ('synapse.conversation_id', sink.conversation_id),
            ('synapse.message_id', sink.message_id),
            ('synapse.workflow_run_id', sink.workflow_run_id),
        ):
            if value is not None:
                span.set_attribute(key, value)

    def _start_run(self, span: Span, sink: TraceSink, run_id: str, parent_span: int | None) -> None:
        parent_open = self._open.get(parent_span) if parent_span is not None else None
        parent = self._runs.get(parent_open.run_id) if parent_open and parent_open.run_id else None
        trace_id = format(span.context.trace_id, '032x')
        span_id = format(span.context.span_id, '016x')
        recorded = sink.writes is not None and sink.bodies
        declared = sink.parent if run_id == sink.run_id else None
        if parent is not None:
            place = RunPlace(
                run_id, parent.place.root_run_id, parent.place.depth + 1, trace_id, span_id, recorded
            )
            parent_run_id: str | None = parent.place.run_id
        elif declared is not None:
            place = RunPlace(run_id, declared.root_run_id, declared.depth + 1, trace_id, span_id, recorded)
            parent_run_id = declared.run_id
        else:
            place = RunPlace(run_id, run_id, 0, trace_id, span_id, recorded)
            parent_run_id = None
        origin = sink.origin if run_id == sink.run_id else 'direct'
        span.set_attribute('synapse.origin', origin)
        span.set_attribute('synapse.depth', place.depth)
        if parent_run_id is not None:
            span.set_attribute('synapse.parent_run_id', parent_run_id)
        self._runs[run_id] = RunState(place, sink, parent_run_id, origin)

    def on_end(self, span: ReadableSpan) -> None:
        context = span.context
        if context is None:
            return
        opened = self._open.pop(context.span_id, None)
        if opened is None or opened.run_id is None:
            return
        run = self._runs.pop(opened.run_id, None) if opened.kind == RUN else self._runs.get(opened.run_id)
        if run is None or opened.sink.writes is None or opened.kind not in (MODEL, TOOL, RUN):
            return
        # The row is built by the writer thread, just before it is inserted, on the lane that never
        # delays a turn's final write: nothing of it costs the event loop (a span is read-only once
        # it ended).
        opened.sink.writes.submit(TraceWrite(opened.kind, span, run), after=True)

    def shutdown(self) -> None:
        self._open.clear()
        self._runs.clear()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


class TraceWrite:
    """The write of one ended span's row, built in the writer thread (`WriteQueue`).

    A run's writes run in the order their spans ended, so its model calls and tool calls are counted
    (and their costs added up) before its own row is written. A batch that fails is retried one
    write at a time: the row is built and counted once. `span` is the ended span, or what builds it
    there (`traces.hooks` records a run's facts on the event loop and builds its spans here).
    """

    def __init__(self, kind: str, span: ReadableSpan | Callable[[], ReadableSpan], run: RunState) -> None:
        self.kind = kind
        self._span = span
        self.run = run
        self._rows: list[tuple[Any, dict[str, Any]]] | None = None

    @property
    def span(self) -> ReadableSpan:
        if not isinstance(self._span, ReadableSpan):
            self._span = self._span()
        return self._span

    def __call__(self, connection: Connection) -> None:
        if self._rows is None:
            self._rows = self._build()
        for table, row in self._rows:
            # Every secret Synapse holds is redacted from the texts (an error that quotes a key, a
            # tool's arguments or result); a debug log's `data` was redacted before packing.
            execute(connection, _statement(table), scrub_value(row))

    def _build(self) -> list[tuple[Any, dict[str, Any]]]:
        span, run = self.span, self.run
        if self.kind == MODEL:
            row = debug_log_row(span, run.place, run.parent_run_id, run.origin, run.sink)
            run.model_calls += 1
            run.costs.append(row['cost'])
            if no_answer(span):
                run.unanswered.append(row)  # written with its run, whose error is the call's
                return []
            return [(DebugLog, row)]
        if self.kind == TOOL:
            run.tool_calls += 1
            return [(TraceTool, tool_row(span, run.place, run.sink))]
        error = span_error(span)
        rows: list[tuple[Any, dict[str, Any]]] = [
            (DebugLog, {**call, 'error': error or call['error']}) for call in run.unanswered
        ]
        row = run_row(span, run.place, run.parent_run_id, run.origin, run.sink)
        row.update(model_calls=run.model_calls, tool_calls=run.tool_calls, cost=_total(run.costs))
        rows.append((TraceRun, row))
        return rows


def _total(costs: list[Decimal | None]) -> Decimal | None:
    if any(cost is None for cost in costs):
        return None
    return sum((cost for cost in costs if cost is not None), Decimal(0))


@lru_cache(maxsize=8)
def _statement(table: Any) -> Any:
    from sqlalchemy import insert

    return insert(table)


_PROCESSOR = TraceProcessor()


def processor() -> TraceProcessor:
    """The process's one trace processor."""
    return _PROCESSOR
