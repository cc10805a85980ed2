"""The spans a run's hooks describe (`traces.hooks`), built in the writer thread.

Each is the span pydantic-ai's instrumentation would have ended for that run, model call or tool
call: the same name, times, parent and attributes (a model call's built with pydantic-ai's own
helpers, `_pydantic_ai_internals.instrumentation_helpers`), and its error recorded as pydantic-ai
records one with contents on. The rows are then made from it as from an instrumented run's spans
(`traces.rows`).
"""

from __future__ import annotations

import random
from contextlib import suppress
from dataclasses import dataclass
from functools import cache
from typing import Any

from opentelemetry.metrics import NoOpMeterProvider
from opentelemetry.sdk.trace import Event, ReadableSpan
from opentelemetry.trace import NoOpTracerProvider, SpanContext, Status, StatusCode
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model, ModelRequestContext
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_core import to_json

from ..discovery._pydantic_ai_internals import instrumentation_helpers
from .processor import MODEL


@dataclass
class Request:
    """A model request as it was sent, and when."""

    started: int
    model: Model
    messages: list[ModelMessage]
    settings: Any
    parameters: Any


def as_sent(request_context: ModelRequestContext, started: int) -> Request:
    """`request_context` as it is now (its messages copied: the run goes on adding to them)."""
    return Request(
        started,
        request_context.model,
        list(request_context.messages),
        request_context.model_settings,
        request_context.model_request_parameters,
    )


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


def call_attributes(
    request: Request, response: ModelResponse | None, bodies: bool, messages_json: dict[int, Any]
) -> dict[str, Any]:
    """A model request span's attributes as pydantic-ai's instrumentation sets them (writer thread).

    `messages_json` is the run's cache of its messages' JSON (pydantic-ai's own, one per run): each
    request then serialises only the messages the one before it did not send."""
    helpers = instrumentation_helpers()
    attributes: dict[str, Any] = {'gen_ai.operation.name': MODEL}
    if helpers is None:
        return attributes
    # As the span does: the request as the model prepares it (which warned once already, when sent).
    # It prepared the same to send it; should it refuse now, the request as the hooks saw it is kept.
    settings, parameters = request.settings, request.parameters
    with suppress(Exception), helpers['suppress_warnings']():
        settings, parameters = request.model.prepare_request(request.settings, request.parameters)
    attributes.update(helpers['model_attributes'](request.model))
    attributes.update(helpers['model_request_parameters_attributes'](parameters, include_content=bodies))
    if definitions := helpers['build_tool_definitions'](parameters):
        attributes['gen_ai.tool.definitions'] = to_json(definitions).decode()
    attributes.update(helpers['model_settings_attributes'](settings))
    if response is None:  # no answer: pydantic-ai's span then describes the empty response it got
        response = ModelResponse(parts=[], model_name=request.model.model_name)
    into: Any = _Attributes(attributes)  # all `handle_messages` does with its span is set attributes
    _settings(bodies).handle_messages(
        list(request.messages), response, into, parameters, message_json_cache=messages_json
    )
    model = response.model_name or request.model.model_name
    price = helpers['response_price_calculation'](response)
    attributes.update(helpers['response_attributes'](response, model, price))
    return attributes


def ended_span(
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


def as_json(value: Any) -> str:
    """`value` as JSON text (what cannot be serialised, as its `str`)."""
    return to_json(value, fallback=str).decode()
