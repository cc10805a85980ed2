"""Switch on pydantic-ai's instrumentation once per process, on a tracer provider of Synapse's own,
for the runs of a sink that exports (a sink that only stores its runs records them from hooks,
`traces.hooks`, and its runs are left as the app instruments them).

`install()` wraps the agent's choice of a run's `InstrumentationSettings` (pydantic-ai's private
`Agent._resolve_instrumentation_settings`) once per process. While a `TraceSink` is open
(`traces.sink`) a run gets Synapse's settings, on a private `TracerProvider` (the app's global
OpenTelemetry provider is never touched); outside one it gets what the app chose, so runs Synapse
does not trace, or traces from hooks, are not instrumented by Synapse at all, and the class-level switch
(`Agent.instrument_all`) stays the app's. Recorded spans go to the trace processor (debug logs) and,
when the sink names an OTLP endpoint, to that endpoint's batch exporter (`export_to`).

An app that instruments pydantic-ai itself (`logfire.instrument_pydantic_ai()`,
`Agent.instrument_all(...)` before or after Synapse started, `agent.instrument = ...`, an
`InstrumentedModel`) keeps its instrumentation: inside a Synapse turn its settings run with a
`TeeTracer` (`traces.tee`), so each span goes to the app's provider unchanged and to Synapse's.
"""

from __future__ import annotations

import copy
import logging
import os
import threading
from collections.abc import Sequence
from typing import Any

from opentelemetry.context import Context
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult
from opentelemetry.trace import Link, SpanKind
from opentelemetry.util.types import Attributes

from ..redaction import remember_headers
from .processor import processor
from .rows import no_answer, span_error, with_error, without_secrets
from .sink import current_sink
from .tee import TeeTracer

logger = logging.getLogger('synapse.traces')

_lock = threading.RLock()
_installed: bool | None = None
_RESOLVE = '_resolve_instrumentation_settings'
"""`Agent`'s private method that picks a run's `InstrumentationSettings` (its own, else the class's)."""
UNAVAILABLE = (
    f'this pydantic-ai has no Agent.{_RESOLVE}, through which Synapse gives the runs it exports their '
    'instrumentation: nothing is exported to OpenTelemetry (otel_endpoint); trace trees and debug logs '
    'are still recorded'
)
_SETTINGS_FIELD = 'instrumentation_settings'
_BESIDE: dict[int, tuple[Any, Any]] = {}
"""The app's settings (kept alive, so their id is not reused) and their copy with a `TeeTracer`."""


class _SinkSampler(Sampler):
    """Records a span only while a trace sink is open."""

    def should_sample(
        self,
        parent_context: Context | None,
        trace_id: int,
        name: str,
        kind: SpanKind | None = None,
        attributes: Attributes = None,
        links: Sequence[Link] | None = None,
        trace_state: Any = None,
    ) -> SamplingResult:
        if current_sink() is None:
            return SamplingResult(Decision.DROP)
        return SamplingResult(Decision.RECORD_AND_SAMPLE, attributes)

    def get_description(self) -> str:
        return 'SynapseTraceSink'


class _Exports(SpanProcessor):
    """Sends each span to the OTLP endpoint its sink named (one batch exporter per endpoint)."""

    def __init__(self) -> None:
        self._targets: dict[int, str] = {}
        self._unanswered: dict[str, list[tuple[str, ReadableSpan]]] = {}
        """`chat` spans that got no answer, by run: sent when their run ends, with its error."""
        self._exporters: dict[str, BatchSpanProcessor] = {}
        self._headers: dict[str, dict[str, str]] = {}

    def configure(self, endpoint: str, headers: dict[str, str]) -> None:
        self._headers[endpoint] = headers

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        sink = current_sink()
        if sink is not None and sink.export is not None:
            self._targets[span.context.span_id] = sink.export

    def on_end(self, span: ReadableSpan) -> None:
        if span.context is None:
            return
        endpoint = self._targets.pop(span.context.span_id, None)
        if endpoint is None:
            return
        attributes = span.attributes or {}
        operation = attributes.get('gen_ai.operation.name')
        run_id = str(attributes.get('synapse.agent_run_id') or '')
        if operation == 'chat' and run_id and no_answer(span):
            self._unanswered.setdefault(run_id, []).append((endpoint, span))
            return
        if operation == 'invoke_agent' and run_id:
            error = span_error(span)
            for target, call in self._unanswered.pop(run_id, []):
                self._exporter(target).on_end(without_secrets(with_error(call, error) if error else call))
        self._exporter(endpoint).on_end(without_secrets(span))

    def _exporter(self, endpoint: str) -> BatchSpanProcessor:
        with _lock:
            exporter = self._exporters.get(endpoint)
            if exporter is None:
                from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

                exporter = BatchSpanProcessor(
                    OTLPSpanExporter(endpoint=endpoint, headers=self._headers.get(endpoint) or None),
                    schedule_delay_millis=1000,
                )
                self._exporters[endpoint] = exporter
            return exporter

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return all(exporter.force_flush(timeout_millis) for exporter in list(self._exporters.values()))

    def shutdown(self) -> None:
        for exporter in list(self._exporters.values()):
            exporter.shutdown()  # type: ignore[no-untyped-call]


_EXPORTS = _Exports()


def traces_endpoint(url: str) -> str:
    """The OTLP/HTTP traces URL for `otel_endpoint`: `/v1/traces` is added to a bare collector URL."""
    trimmed = url.rstrip('/')
    return trimmed if trimmed.endswith('/v1/traces') else f'{trimmed}/v1/traces'


def parse_headers(value: str | None) -> dict[str, str]:
    """`key=value,key2=value2` (the OTEL_EXPORTER_OTLP_HEADERS form) as a dict."""
    headers: dict[str, str] = {}
    for item in (value or '').split(','):
        key, sep, val = item.partition('=')
        if sep and key.strip():
            headers[key.strip()] = val.strip()
    return headers


def export_to(url: str | None, headers: str | None = None) -> str | None:
    """The endpoint key a sink exports to (None when `url` is None); registers its headers."""
    if not url:
        return None
    endpoint = traces_endpoint(url)
    remember_headers(headers)  # their values are secrets: redacted wherever they would appear
    _EXPORTS.configure(endpoint, parse_headers(headers))
    return endpoint


def install() -> bool:
    """Trace every pydantic-ai run Synapse runs, beside the app's own instrumentation (once per
    process); False only when the installed pydantic-ai lacks the hook (see `degraded`)."""
    global _installed
    with _lock:
        if _installed is not None:
            return _installed
        from pydantic_ai import Agent
        from pydantic_ai.models.instrumented import InstrumentationSettings

        original = getattr(Agent, _RESOLVE, None)
        if original is None:
            logger.warning('%s', UNAVAILABLE)
            _installed = False
            return False
        resource = Resource.create({'service.name': os.environ.get('OTEL_SERVICE_NAME', 'synapse')})
        provider = TracerProvider(sampler=_SinkSampler(), resource=resource)
        provider.add_span_processor(processor())
        provider.add_span_processor(_EXPORTS)
        own = InstrumentationSettings(tracer_provider=provider, include_binary_content=False)
        # A run whose bodies are neither kept nor exported: pydantic-ai leaves the messages' and
        # tools' contents out of its spans instead of serialising what nobody keeps.
        lean = InstrumentationSettings(tracer_provider=provider, include_content=False)

        def resolve(self: Any) -> Any:
            settings = original(self)
            sink = current_sink()
            if sink is None or sink.from_hooks:
                return settings
            if settings:
                return _beside(settings, own)
            return own if sink.bodies or sink.export is not None else lean

        resolve.__wrapped__ = original  # type: ignore[attr-defined]
        setattr(Agent, _RESOLVE, resolve)
        _tee_instrumented_models(own)
        _installed = True
        return True


def _tee_instrumented_models(own: Any) -> None:
    """An agent whose model is an `InstrumentedModel` (`logfire.instrument_pydantic_ai(model)`) runs
    with that model's settings, read from its `instrumentation_settings`: inside a Synapse turn that
    attribute reads as the same settings beside Synapse's. The model object itself is not changed."""
    from pydantic_ai.models.instrumented import InstrumentedModel

    if _SETTINGS_FIELD in vars(InstrumentedModel):
        return  # a pydantic-ai that defines it on the class: its runs are traced by the app only

    def read(model: Any) -> Any:
        settings = vars(model)[_SETTINGS_FIELD]
        sink = current_sink()
        return settings if sink is None or sink.from_hooks else _beside(settings, own)

    def write(model: Any, settings: Any) -> None:
        vars(model)[_SETTINGS_FIELD] = settings

    setattr(InstrumentedModel, _SETTINGS_FIELD, property(read, write))


def degraded() -> list[dict[str, str]]:
    """`/api/health`'s `degraded` entry for traces: empty unless Synapse cannot trace at all."""
    from pydantic_ai import Agent, __version__

    if hasattr(Agent, _RESOLVE):
        return []
    return [
        {
            'feature': 'traces',
            'lost': UNAVAILABLE,
            'missing': f'pydantic_ai.Agent.{_RESOLVE}',
            'pydantic_ai_version': __version__,
        }
    ]


def _beside(settings: Any, own: Any) -> Any:
    """A copy of the app's `settings` whose tracer also opens every span in Synapse's provider."""
    with _lock:
        found = _BESIDE.get(id(settings))
        if found is not None and found[0] is settings:
            return found[1]
        tee = copy.copy(settings)
        tee.tracer = TeeTracer(settings.tracer, own.tracer)
        if len(_BESIDE) >= 64:
            _BESIDE.clear()
        _BESIDE[id(settings)] = (settings, tee)
        return tee


def flush(timeout_millis: int = 10_000) -> bool:
    """Send the spans waiting in the exporters now (at shutdown, and in tests)."""
    return _EXPORTS.force_flush(timeout_millis)
