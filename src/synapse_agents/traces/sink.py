"""Which runs are traced, and where their spans go: the trace sink a Synapse turn opens.

The chat engine opens a `TraceSink` around each run it starts (`tracing(sink)`); it lives in a
context variable, so every pydantic-ai run started inside that run (a tool that calls
`other_agent.run(...)`, an engine turn started from a tool) sees it too, in the same task, in child
tasks and in the threads sync tools run in. A sink that stores its runs and exports nothing records
them from capability hooks (`traces.hooks`: no OpenTelemetry span is opened). A sink that exports
has its runs instrumented: the span processor (`traces.processor`) records the spans started while
it is open and sends them where it says (debug logs into its store when `writes` is set,
OpenTelemetry out to `export`).

`RunPlace` is where a run sits in its tree. `hooks.current_place()` is the place of the run the caller is
inside (None outside any traced run): a task queued from a tool keeps it, so the task's run joins
that tree even when another process runs it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..accounting.pricing import Pricer
    from ..store.write_queue import WriteQueue


@dataclass(frozen=True)
class RunPlace:
    """Where an agent run sits in its trace tree."""

    run_id: str
    root_run_id: str
    depth: int
    trace_id: str = ''
    span_id: str = ''
    """The span a child run hangs under: the run's own, or the tool's it was queued from."""
    recorded: bool = True
    """Whether its bodies are stored (debug logs on), not only its tree: a run it starts elsewhere
    (a task) then keeps its bodies too."""

    def as_json(self) -> dict[str, Any]:
        return {
            'run_id': self.run_id,
            'root_run_id': self.root_run_id,
            'depth': self.depth,
            'trace_id': self.trace_id,
            'span_id': self.span_id,
            'recorded': self.recorded,
        }

    @classmethod
    def from_json(cls, value: Any) -> RunPlace | None:
        """The place stored by `as_json`; None for anything else (a row written before traces)."""
        if not isinstance(value, dict):
            return None
        try:
            return cls(
                run_id=str(value['run_id']),
                root_run_id=str(value['root_run_id']),
                depth=int(value['depth']),
                trace_id=str(value.get('trace_id') or ''),
                span_id=str(value.get('span_id') or ''),
                recorded=bool(value.get('recorded', True)),
            )
        except (KeyError, TypeError, ValueError):
            return None


@dataclass
class TraceSink:
    """What one Synapse run records, and about whom (see the module docstring)."""

    run_id: str
    """The pydantic-ai `run_id` of the run Synapse starts (its agent run id)."""
    origin: str
    """The origin of that run (`code`, `config`, `ephemeral`, `workflow`); runs nested in it are `direct`."""
    module: str = 'chat'
    action: str = 'chat_turn'
    agent_key: str | None = None
    conversation_id: str | None = None
    message_id: str | None = None
    workflow_run_id: str | None = None
    parent: RunPlace | None = None
    """The run that started this one in another process (a task queued from a tool)."""
    writes: WriteQueue | None = None
    """Where the trace rows are written; None: not recorded (exported only)."""
    bodies: bool = True
    """Whether the rows keep the bodies: a debug log's request and response payloads, a run's
    output, a tool's arguments and result. False: the tree alone (timings, tokens, cost, errors)."""
    export: str | None = None
    """The OTLP/HTTP endpoint the spans are sent to; None: not exported."""
    pricer: Pricer | None = None
    body_limit: int = 262_144
    """The largest request or response body kept in a debug log, in bytes of JSON."""

    hooks: bool = True
    """Whether its runs may be recorded from capability hooks (`traces.hooks`); False only when
    the installed pydantic-ai lacks what they need."""

    @property
    def active(self) -> bool:
        return self.writes is not None or self.export is not None

    @property
    def from_hooks(self) -> bool:
        """Whether its runs' trees are built from capability hooks (`traces.hooks`), with no
        OpenTelemetry span: when they are stored and not exported."""
        return self.hooks and self.writes is not None and self.export is None


_SINK: ContextVar[TraceSink | None] = ContextVar('synapse_trace_sink', default=None)


def current_sink() -> TraceSink | None:
    """The sink of the traced run the caller is inside, if any."""
    return _SINK.get()


@contextmanager
def tracing(sink: TraceSink | None) -> Iterator[None]:
    """Open `sink` for the runs started inside the block (nothing when it is None or inactive)."""
    if sink is None or not sink.active:
        yield
        return
    token = _SINK.set(sink)
    try:
        yield
    finally:
        # A turn's event stream closed from another task (collected late) cannot reset it there;
        # that context is gone with its task anyway.
        with suppress(ValueError):
            _SINK.reset(token)
