"""Whether a turn is traced, and its sink: the debug settings, the agent's own say, the run around it.

Every turn Synapse runs records its trace tree (runs, model calls, tool calls, timings, tokens,
cost, errors), whatever its origin, unless the agent says never (`metadata={'synapse.debug': False}`).
The bodies (a debug log's request and response payloads, a run's output, a tool's arguments and
result) are kept when the agent says so (`metadata={'synapse.debug': True}`), else when it is listed
in `debug_agents`, `debug` is on, or it is a playground turn and `debug_playground` is on. A turn
started inside a run that keeps bodies (a tool that opens a conversation) keeps them too, and so
does a task queued from such a run (`trace_parent`), so a tree is never missing a branch. Every
traced turn is exported when `otel_endpoint` is set. A turn that is stored and not exported is
traced from capability hooks (`traces.hooks`): no OpenTelemetry span is opened for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from pydantic_ai import Agent

from ..discovery import _pydantic_ai_internals as internals
from ..settings import Settings
from ..traces import hooks
from ..traces.provider import export_to, install
from ..traces.sink import RunPlace, TraceSink, current_sink, tracing

if TYPE_CHECKING:
    from ..store.write_queue import WriteQueue
    from .prepared import PreparedTurn

DEBUG_KEY = 'synapse.debug'
ACTIONS = {'chat': 'chat_turn', 'task': 'task_run', 'workflow': 'workflow_step'}


def agent_debug(agent: Any) -> bool | None:
    """The agent's own `synapse.debug` metadata (None when it says nothing)."""
    if not isinstance(agent, Agent):
        return None
    metadata = internals.metadata(agent)
    if isinstance(metadata, dict):
        value = metadata.get(DEBUG_KEY)
        if isinstance(value, bool):
            return value
    return None


def wants_debug(settings: Settings, origin: str, slug: str, agent: Any) -> bool:
    """Whether a turn of agent `slug` from `origin` keeps its bodies (see the module docstring)."""
    own = agent_debug(agent)
    if own is not None:
        return own
    if slug in settings.debug_agents or settings.debug:
        return True
    return origin == 'playground' and settings.debug_playground


def turn_sink(turn: PreparedTurn, writes: WriteQueue) -> TraceSink | None:
    """The sink of `turn`'s run, or None when nothing about it is recorded or exported."""
    settings = turn.settings or Settings()
    outer = current_sink()
    record = agent_debug(turn.target.agent) is not False
    bodies = wants_debug(settings, turn.origin, turn.target.slug, turn.target.agent)
    headers = settings.otel_headers.get_secret_value() if settings.otel_headers else None
    export = export_to(settings.otel_endpoint, headers)
    if outer is not None:
        bodies = bodies or (outer.writes is not None and outer.bodies)
        record = record or outer.writes is not None
        export = export or outer.export
    if turn.trace_parent is not None:
        bodies = bodies or turn.trace_parent.recorded
    if not record and export is None:
        return None
    # Instrumented when exported; else (or when pydantic-ai cannot be instrumented) from hooks; from
    # spans again when pydantic-ai lacks what the hooks need.
    instrumented = export is not None and install()
    from_hooks = not instrumented and record and hooks.available()
    if from_hooks:
        export = None
        hooks.install()
    elif not instrumented and (export is not None or not install()):
        return None
    origin = 'workflow' if turn.module == 'workflow' else turn.target.kind
    return TraceSink(
        run_id=turn.run_id,
        origin=origin,
        module=turn.module,
        action=ACTIONS.get(turn.module, f'{turn.module}_turn'),
        agent_key=turn.target.slug,
        conversation_id=turn.conversation_id,
        message_id=turn.assistant_message_id,
        workflow_run_id=turn.workflow_run_id,
        parent=turn.trace_parent,
        writes=writes if record else None,
        bodies=bodies,
        export=export,
        pricer=turn.pricer,
        body_limit=settings.debug_body_bytes,
        hooks=from_hooks,
    )


@contextmanager
def traced_turn(turn: PreparedTurn, writes: WriteQueue) -> Iterator[None]:
    """Open the turn's sink around its run; a run started from another process (`trace_parent`)
    continues that run's OpenTelemetry trace, under the span it was queued from."""
    sink = turn_sink(turn, writes)
    with tracing(sink), _remote_parent(sink.parent if sink is not None else None):
        yield


@contextmanager
def _remote_parent(place: RunPlace | None) -> Iterator[None]:
    if place is None or not (place.trace_id and place.span_id):
        yield
        return
    from opentelemetry import context, trace

    try:
        parent = trace.SpanContext(
            trace_id=int(place.trace_id, 16),
            span_id=int(place.span_id, 16),
            is_remote=True,
            trace_flags=trace.TraceFlags(trace.TraceFlags.SAMPLED),
        )
    except ValueError:
        yield
        return
    token = context.attach(trace.set_span_in_context(trace.NonRecordingSpan(parent)))
    try:
        yield
    finally:
        context.detach(token)
