"""Rows from finished spans: a run, a model call (its debug log) or a tool call.

A debug log's `data` keeps what the span carries, in pydantic-ai's GenAI semantic-convention form:
the request (model, settings, the request parameters with the tool definitions, the
instructions), the history sent, the turns that came back, usage, finish reasons and the response
id. A body larger than the sink's `body_limit` (bytes of JSON) is cut to a preview with its size,
and the whole `data` is stored zlib-compressed.
"""

from __future__ import annotations

import json
import zlib
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from opentelemetry.sdk.trace import Event, ReadableSpan
from opentelemetry.trace import Status, StatusCode

from ..corrupt import CorruptRow
from ..redaction import redact, scrub, scrub_value
from ..store.ids import new_id
from ..store.schema import utcnow
from .sink import RunPlace, TraceSink
from .tables import is_root

NO_RESPONSE = 'No response: the request failed or was cut short (the run says why).'
"""The error of a model call that got no answer. pydantic-ai's span of a streamed request that
raised ends without an error status, so a call without output messages is the only sign."""

_BODIES = ('history', 'turns', 'parameters', 'instructions', 'output', 'tool_definitions')
"""The `data` keys that can be large: each is capped on its own."""
_JSON_ATTRIBUTES = {
    'gen_ai.input.messages': 'history',
    'gen_ai.output.messages': 'turns',
    'model_request_parameters': 'parameters',
    'gen_ai.system_instructions': 'instructions',
    'gen_ai.tool.definitions': 'tool_definitions',
}


def _attributes(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


PARAMETERS = 'model_request_parameters'


def redact_parameters(value: Any) -> Any:
    """pydantic-ai's request parameters with the credentials of native tools (an MCP server's
    token, headers, a URL's query) hidden: JSON text in, JSON text out."""
    parsed = _parsed(value)
    if not isinstance(parsed, dict) or not parsed.get('native_tools'):
        return value
    tools = parsed['native_tools']
    parsed['native_tools'] = [redact(tool) if isinstance(tool, dict) else tool for tool in tools]
    return json.dumps(parsed, default=str) if isinstance(value, str) else parsed


def without_secrets(span: ReadableSpan) -> ReadableSpan:
    """`span` for export, or a copy of it when it holds a secret: native tools' credentials hidden
    from its request parameters, and every secret Synapse holds redacted from its name, attributes,
    events (an exception's message and stack trace) and status."""
    original = dict(span.attributes or {})
    attributes = dict(original)
    if attributes.get(PARAMETERS) is not None:
        attributes[PARAMETERS] = redact_parameters(attributes[PARAMETERS])
    attributes = scrub_value(attributes)
    events = [
        Event(event.name, scrub_value(dict(event.attributes or {})), event.timestamp) for event in span.events
    ]
    status = span.status
    if status.description:
        status = Status(status.status_code, scrub(status.description))
    name = scrub(span.name)
    unchanged = (
        attributes == original
        and name == span.name
        and status.description == span.status.description
        and all(
            new.attributes == dict(old.attributes or {}) for new, old in zip(events, span.events, strict=True)
        )
    )
    if unchanged:
        return span
    return ReadableSpan(
        name=name,
        context=span.context,
        parent=span.parent,
        resource=span.resource,
        attributes=attributes,
        events=events,
        links=span.links,
        kind=span.kind,
        status=status,
        start_time=span.start_time,
        end_time=span.end_time,
        instrumentation_scope=span.instrumentation_scope,
    )


def _moment(nanos: int | None) -> datetime:
    if nanos is None:
        return utcnow()
    return datetime.fromtimestamp(nanos / 1e9, tz=UTC)


def _duration_ms(span: ReadableSpan) -> int:
    if span.start_time is None or span.end_time is None:
        return 0
    return max(0, round((span.end_time - span.start_time) / 1e6))


def _parent_span(span: ReadableSpan) -> str | None:
    return format(span.parent.span_id, '016x') if span.parent is not None else None


def _span_id(span: ReadableSpan) -> str:
    return format(span.context.span_id, '016x') if span.context is not None else ''


def _int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def _parsed(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in '[{':
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def span_error(span: ReadableSpan) -> str | None:
    """The span's error: its recorded exception (`Type: message`), else its status description."""
    if span.status.status_code != StatusCode.ERROR:
        return None
    for event in span.events:
        if event.name == 'exception':
            attrs = event.attributes or {}
            kind = attrs.get('exception.type')
            message = attrs.get('exception.message')
            if kind or message:
                return f'{kind}: {message}' if kind and message else str(kind or message)
    return span.status.description or 'error'


def no_answer(span: ReadableSpan) -> bool:
    """Whether a `chat` span ended without an answer and without an error of its own: a request
    that raised (a 429, a 500, a connection error) while pydantic-ai streamed it. Its run's error says
    why, once that run ends."""
    attributes = span.attributes or {}
    if span.status.status_code == StatusCode.ERROR or attributes.get('gen_ai.usage.input_tokens'):
        return False
    if attributes.get('gen_ai.response.finish_reasons') or attributes.get('gen_ai.response.id'):
        return False
    turns = _parsed(attributes.get('gen_ai.output.messages'))
    return not isinstance(turns, list) or not any(
        isinstance(turn, dict) and turn.get('parts') for turn in turns
    )


def with_error(span: ReadableSpan, error: str) -> ReadableSpan:
    """A copy of `span` whose status is ERROR, described by `error`."""
    return ReadableSpan(
        name=span.name,
        context=span.context,
        parent=span.parent,
        resource=span.resource,
        attributes=span.attributes,
        events=span.events,
        links=span.links,
        kind=span.kind,
        status=Status(StatusCode.ERROR, error),
        start_time=span.start_time,
        end_time=span.end_time,
        instrumentation_scope=span.instrumentation_scope,
    )


def capped(value: Any, limit: int) -> tuple[Any, bool]:
    """`value`, or a preview of its JSON with its size when the JSON is longer than `limit` bytes."""
    text = json.dumps(value, default=str, ensure_ascii=False)
    size = len(text.encode())
    if size <= limit:
        return value, False
    return {'truncated': True, 'bytes': size, 'preview': text[: max(0, limit // 4)]}, True


def pack(data: dict[str, Any], limit: int) -> tuple[bytes, int, bool]:
    """`data` capped body by body, as compressed JSON; with its uncompressed size and whether it was cut."""
    truncated = False
    for key in _BODIES:
        if data.get(key) is not None:
            data[key], cut = capped(data[key], limit)
            truncated = truncated or cut
    raw = json.dumps(data, default=str, ensure_ascii=False).encode()
    return zlib.compress(raw, 6), len(raw), truncated


def unpack(blob: bytes, debug_id: str = '?') -> Any:
    """The `data` of a debug log; `CorruptRow` naming the row when it is not zlib-compressed JSON."""
    try:
        raw = zlib.decompress(blob)
    except (zlib.error, TypeError) as exc:
        raise CorruptRow('debug_logs', debug_id, f'data is not zlib-compressed ({exc})') from None
    try:
        return json.loads(raw)
    except ValueError as exc:  # UnicodeDecodeError included
        raise CorruptRow('debug_logs', debug_id, f'data is not JSON ({str(exc)[:120]})') from None


def _cost(attributes: dict[str, Any], sink: TraceSink) -> Decimal | None:
    """The call's cost in the reference currency: the registry's price or genai-prices'."""
    from pydantic_ai.usage import RequestUsage

    known = attributes.get('operation.cost')
    try:
        known_cost = Decimal(str(known)) if known is not None else None
    except InvalidOperation:
        known_cost = None
    pricer = sink.pricer
    if pricer is None:
        return known_cost
    usage = RequestUsage(
        input_tokens=_int(attributes.get('gen_ai.usage.input_tokens')),
        output_tokens=_int(attributes.get('gen_ai.usage.output_tokens')),
        cache_read_tokens=_int(attributes.get('gen_ai.usage.cache_read.input_tokens')),
        cache_write_tokens=_int(attributes.get('gen_ai.usage.cache_creation.input_tokens')),
    )
    model = attributes.get('gen_ai.response.model') or attributes.get('gen_ai.request.model')
    provider = attributes.get('gen_ai.provider.name') or attributes.get('gen_ai.system')
    price = pricer.price(
        usage,
        model=str(model) if model else None,
        provider=str(provider) if provider else None,
        at=utcnow(),
        known_cost=known_cost,
        ask_genai=known_cost is None,
    )
    return price.cost_reference


def debug_log_row(
    span: ReadableSpan, place: RunPlace, parent_run_id: str | None, origin: str, sink: TraceSink
) -> dict[str, Any]:
    """The `debug_logs` row of a finished `chat` span."""
    attributes = _attributes(span)
    data: dict[str, Any] = {
        'request': {
            'model': attributes.get('gen_ai.request.model'),
            'settings': {
                key.removeprefix('gen_ai.request.'): value
                for key, value in attributes.items()
                if key.startswith('gen_ai.request.') and key != 'gen_ai.request.model'
            },
        },
        'usage': {
            key.removeprefix('gen_ai.usage.'): value
            for key, value in attributes.items()
            if key.startswith('gen_ai.usage.')
        },
        'response': {
            'id': attributes.get('gen_ai.response.id'),
            'model': attributes.get('gen_ai.response.model'),
            'finish_reasons': list(attributes.get('gen_ai.response.finish_reasons') or []),
        },
    }
    for attribute, key in _JSON_ATTRIBUTES.items():
        if attribute in attributes and sink.bodies:
            data[key] = _parsed(attributes[attribute])
    if isinstance(data.get('parameters'), dict):
        data['parameters'] = redact_parameters(data['parameters'])
    blob, size, truncated = pack(scrub_value(data), sink.body_limit)
    input_tokens = _int(attributes.get('gen_ai.usage.input_tokens'))
    output_tokens = _int(attributes.get('gen_ai.usage.output_tokens'))
    reasons = attributes.get('gen_ai.response.finish_reasons') or ()
    model = attributes.get('gen_ai.response.model') or attributes.get('gen_ai.request.model')
    own = place.run_id == sink.run_id
    return {
        'id': new_id(),
        'agent_run_id': place.run_id,
        'parent_run_id': parent_run_id,
        'root_run_id': place.root_run_id,
        'depth': place.depth,
        'origin': origin,
        'workflow_run_id': sink.workflow_run_id,
        'conversation_id': sink.conversation_id,
        'module': sink.module,
        'action': sink.action if own else 'agent_call',
        'model': _text(model, 255),
        'provider': _text(attributes.get('gen_ai.provider.name') or attributes.get('gen_ai.system'), 100),
        'input_tokens': input_tokens,
        'output_tokens': output_tokens,
        'total_tokens': input_tokens + output_tokens,
        'cost': _cost(attributes, sink),
        'finish_reason': _text(reasons[0], 64) if reasons else None,
        'error': span_error(span) or (None if 'gen_ai.output.messages' in attributes else NO_RESPONSE),
        'span_id': _span_id(span),
        'parent_span_id': _parent_span(span),
        'data': blob,
        'data_bytes': size,
        'truncated': truncated,
        'started_at': _moment(span.start_time),
        'duration_ms': _duration_ms(span),
        'created_at': utcnow(),
    }


def tool_row(span: ReadableSpan, place: RunPlace, sink: TraceSink) -> dict[str, Any]:
    """The `trace_tools` row of a finished `execute_tool` span."""
    attributes = _attributes(span)
    error = span_error(span)
    arguments, _ = _body(attributes.get('gen_ai.tool.call.arguments'), sink)
    result, _ = _body(attributes.get('gen_ai.tool.call.result'), sink)
    return {
        'id': new_id(),
        'agent_run_id': place.run_id,
        'root_run_id': place.root_run_id,
        'conversation_id': sink.conversation_id,
        'tool_call_id': _text(attributes.get('gen_ai.tool.call.id'), 255),
        'name': _text(attributes.get('gen_ai.tool.name'), 255) or span.name,
        'arguments': arguments,
        'result': None if error else result,
        'status': 'error' if error else 'success',
        'error': error,
        'span_id': _span_id(span),
        'parent_span_id': _parent_span(span),
        'started_at': _moment(span.start_time),
        'duration_ms': _duration_ms(span),
    }


def run_row(
    span: ReadableSpan, place: RunPlace, parent_run_id: str | None, origin: str, sink: TraceSink
) -> dict[str, Any]:
    """The `trace_runs` row of a finished `invoke_agent` span (the caller adds counts and cost)."""
    attributes = _attributes(span)
    own = place.run_id == sink.run_id
    error = span_error(span)
    output, _ = _body(attributes.get('final_result'), sink)
    return {
        'agent_run_id': place.run_id,
        'parent_run_id': parent_run_id,
        'root_run_id': place.root_run_id,
        'depth': place.depth,
        'is_root': is_root(parent_run_id, origin, place.depth),
        'origin': origin,
        'module': sink.module,
        'agent_name': _text(attributes.get('gen_ai.agent.name') or attributes.get('agent_name'), 255),
        'agent_key': sink.agent_key if own else None,
        'workflow_run_id': sink.workflow_run_id,
        'conversation_id': sink.conversation_id,
        'message_id': sink.message_id if own else None,
        'trace_id': place.trace_id,
        'span_id': place.span_id,
        'parent_span_id': _parent_span(span),
        'model': _text(attributes.get('model_name'), 255),
        'status': 'error' if error else 'ok',
        'error': error,
        'input_tokens': _int(attributes.get('gen_ai.aggregated_usage.input_tokens')),
        'output_tokens': _int(attributes.get('gen_ai.aggregated_usage.output_tokens')),
        'output': None if error else output,
        'started_at': _moment(span.start_time),
        'finished_at': _moment(span.end_time),
        'duration_ms': _duration_ms(span),
    }


def _body(value: Any, sink: TraceSink) -> tuple[Any, bool]:
    """A payload as kept: capped to the sink's `body_limit`, or None when the sink keeps no bodies."""
    if not sink.bodies:
        return None, False
    return capped(_parsed(value), sink.body_limit)


def _text(value: Any, limit: int) -> str | None:
    return str(value)[:limit] if value is not None else None
