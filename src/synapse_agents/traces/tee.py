"""One span in two tracer providers: the app's own and Synapse's.

An app that instruments pydantic-ai itself (`logfire.instrument_pydantic_ai()`,
`Agent.instrument_all(...)`, `agent.instrument = ...`) gives a run its own `InstrumentationSettings`,
whose tracer sends spans to the app's provider. While Synapse traces a turn, `traces.provider` runs
it with a copy of those settings whose tracer is a `TeeTracer`: each span pydantic-ai opens is
opened in the app's provider and in Synapse's, each inside its own parent, and every attribute,
event, status and end goes to both. What the app's exporter receives is what it received without
Synapse (the same spans, attributes and parents; Synapse's own attributes go to its span only);
code that reads the current span (the app's other instrumentation, a propagator) sees the app's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace import Link, SpanContext, SpanKind, Status, StatusCode
from opentelemetry.util import types


class TeeSpan(trace.Span):
    """The app's span (`primary`, whose context is the one propagated) and Synapse's (`synapse`)."""

    def __init__(self, primary: trace.Span, synapse: trace.Span) -> None:
        self.primary = primary
        self.synapse = synapse

    def get_span_context(self) -> SpanContext:
        return self.primary.get_span_context()

    def is_recording(self) -> bool:
        return self.primary.is_recording() or self.synapse.is_recording()

    def end(self, end_time: int | None = None) -> None:
        self.synapse.end(end_time)
        self.primary.end(end_time)

    def set_attributes(self, attributes: Mapping[str, types.AnyValue]) -> None:
        self.primary.set_attributes(attributes)
        self.synapse.set_attributes(attributes)

    def set_attribute(self, key: str, value: types.AttributeValue) -> None:
        self.primary.set_attribute(key, value)
        self.synapse.set_attribute(key, value)

    def add_event(self, name: str, attributes: types.Attributes = None, timestamp: int | None = None) -> None:
        self.primary.add_event(name, attributes, timestamp)
        self.synapse.add_event(name, attributes, timestamp)

    def add_link(self, context: SpanContext, attributes: types.Attributes = None) -> None:
        self.primary.add_link(context, attributes)
        self.synapse.add_link(context, attributes)

    def update_name(self, name: str) -> None:
        self.primary.update_name(name)
        self.synapse.update_name(name)

    def set_status(self, status: Status | StatusCode, description: str | None = None) -> None:
        self.primary.set_status(status, description)
        self.synapse.set_status(status, description)

    def record_exception(
        self,
        exception: BaseException,
        attributes: types.Attributes = None,
        timestamp: int | None = None,
        escaped: bool = False,
    ) -> None:
        self.primary.record_exception(exception, attributes, timestamp, escaped)
        self.synapse.record_exception(exception, attributes, timestamp, escaped)


class TeeTracer(trace.Tracer):
    """Opens each span with the app's tracer and with Synapse's (see the module docstring)."""

    def __init__(self, primary: trace.Tracer, synapse: trace.Tracer) -> None:
        self.primary = primary
        self.synapse = synapse

    def start_span(
        self,
        name: str,
        context: Context | None = None,
        kind: SpanKind = SpanKind.INTERNAL,
        attributes: types.Attributes = None,
        links: Sequence[Link] | None = None,
        start_time: int | None = None,
        record_exception: bool = True,
        set_status_on_exception: bool = True,
    ) -> trace.Span:
        parent = trace.get_current_span(context)
        primary_context, synapse_context = context, context
        if isinstance(parent, TeeSpan):
            primary_context = trace.set_span_in_context(parent.primary, context)
            synapse_context = trace.set_span_in_context(parent.synapse, context)
        options: dict[str, Any] = dict(
            kind=kind,
            attributes=attributes,
            links=links,
            start_time=start_time,
            record_exception=record_exception,
            set_status_on_exception=set_status_on_exception,
        )
        primary = self.primary.start_span(name, primary_context, **options)
        synapse = self.synapse.start_span(name, synapse_context, **options)
        return TeeSpan(primary, synapse)

    @contextmanager
    def start_as_current_span(  # type: ignore[override]  # OTel's own decorator for it is private
        self,
        name: str,
        context: Context | None = None,
        kind: SpanKind = SpanKind.INTERNAL,
        attributes: types.Attributes = None,
        links: Sequence[Link] | None = None,
        start_time: int | None = None,
        record_exception: bool = True,
        set_status_on_exception: bool = True,
        end_on_exit: bool = True,
    ) -> Iterator[trace.Span]:
        span = self.start_span(
            name, context, kind, attributes, links, start_time, record_exception, set_status_on_exception
        )
        with trace.use_span(
            span,
            end_on_exit=end_on_exit,
            record_exception=record_exception,
            set_status_on_exception=set_status_on_exception,
        ) as current:
            yield current


def synapse_span(span: trace.Span) -> trace.Span:
    """Synapse's own span of `span` (itself unless it is a `TeeSpan`)."""
    return span.synapse if isinstance(span, TeeSpan) else span
