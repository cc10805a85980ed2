"""Trace rows from finished spans (`traces.rows`) and which turns are traced (`traces.turns`).

The spans are the OpenTelemetry SDK's own `ReadableSpan`s, built with the attributes pydantic-ai's
instrumentation gives an `invoke_agent`, `chat` or `execute_tool` span.
"""

from __future__ import annotations

import json
import zlib
from decimal import Decimal
from typing import Any

import pytest
from opentelemetry.sdk.trace import Event, ReadableSpan
from opentelemetry.trace import SpanContext, Status, StatusCode
from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel

from synapse_agents.chat.tracing import DEBUG_KEY, agent_debug, wants_debug
from synapse_agents.settings import Settings, load_settings
from synapse_agents.traces.rows import (
    NO_RESPONSE,
    capped,
    debug_log_row,
    pack,
    run_row,
    span_error,
    tool_row,
    unpack,
)
from synapse_agents.traces.sink import RunPlace, TraceSink

TRACE = 0x0123456789ABCDEF0123456789ABCDEF
ROOT = RunPlace('run-a', 'run-a', 0, f'{TRACE:032x}', '00000000000000aa')
NESTED = RunPlace('run-b', 'run-a', 1, f'{TRACE:032x}', '00000000000000bb')
START = 1_700_000_000_000_000_000  # nanoseconds


def span(
    name: str,
    attributes: dict[str, Any] | None = None,
    *,
    status: Status | None = None,
    events: tuple[Event, ...] = (),
    span_id: int = 0xCC,
    parent: int | None = 0xAA,
    duration_ns: int = 1_500_000,
) -> ReadableSpan:
    """A finished span of the test trace."""
    return ReadableSpan(
        name=name,
        context=SpanContext(TRACE, span_id, is_remote=False),
        parent=SpanContext(TRACE, parent, is_remote=False) if parent is not None else None,
        attributes=attributes or {},
        events=events,
        status=status or Status(StatusCode.UNSET),
        start_time=START,
        end_time=START + duration_ns,
    )


def sink(**values: Any) -> TraceSink:
    defaults: dict[str, Any] = {
        'run_id': 'run-a',
        'origin': 'code',
        'agent_key': 'agents.a',
        'conversation_id': 'conv-1',
        'message_id': 'msg-1',
        'body_limit': 1024,
    }
    return TraceSink(**{**defaults, **values})


def exception(kind: str | None, message: str | None) -> Event:
    attributes = {
        key: value
        for key, value in (('exception.type', kind), ('exception.message', message))
        if value is not None
    }
    return Event('exception', attributes)


# -- capping ------------------------------------------------------------------------------


def test_a_body_within_the_limit_is_kept_as_it_is() -> None:
    body = {'role': 'user', 'parts': [{'type': 'text', 'content': 'hello'}]}
    assert capped(body, 1024) == (body, False)
    exact = 'x' * 10
    assert capped(exact, len(json.dumps(exact))) == (exact, False)


def test_a_larger_body_becomes_a_preview_with_its_size_in_bytes() -> None:
    body = [{'content': 'é' * 3000}]  # two bytes each in UTF-8: the size counts bytes, not characters
    text = json.dumps(body, ensure_ascii=False)
    kept, cut = capped(body, 2048)
    assert cut is True
    assert kept == {'truncated': True, 'bytes': len(text.encode()), 'preview': text[:512]}
    assert kept['bytes'] > len(text)
    one_over, cut = capped('x' * 10, len(json.dumps('x' * 10)) - 1)
    assert cut is True and one_over['bytes'] == 12


def test_values_json_cannot_encode_are_measured_by_their_text() -> None:
    kept, cut = capped({'when': Decimal('1.5')}, 1024)
    assert (kept, cut) == ({'when': Decimal('1.5')}, False)


# -- pack / unpack ------------------------------------------------------------------------


def test_pack_and_unpack_round_trip() -> None:
    data: dict[str, Any] = {
        'request': {'model': 'm', 'settings': {'temperature': 0.5}},
        'history': [{'role': 'user', 'parts': [{'type': 'text', 'content': 'Grüße'}]}],
        'turns': [{'role': 'assistant', 'parts': [{'type': 'text', 'content': 'hi'}]}],
        'usage': {'input_tokens': 3, 'output_tokens': 1},
        'instructions': None,
    }
    expected = json.loads(json.dumps(data))
    blob, size, truncated = pack(data, 4096)
    assert truncated is False
    assert unpack(blob) == expected
    assert size == len(zlib.decompress(blob))
    assert json.loads(zlib.decompress(blob).decode()) == expected


def test_pack_caps_each_body_on_its_own_and_never_the_request() -> None:
    big = 'word ' * 2000
    data: dict[str, Any] = {
        'request': {'model': 'm', 'settings': {'stop': [big]}},
        'history': [{'role': 'user', 'parts': [{'type': 'text', 'content': big}]}],
        'turns': [{'role': 'assistant', 'parts': [{'type': 'text', 'content': 'short'}]}],
        'tool_definitions': [{'name': 'lookup', 'description': big}],
    }
    blob, size, truncated = pack(data, 2048)
    assert truncated is True
    stored = unpack(blob)
    assert stored['history']['truncated'] is True and stored['history']['bytes'] > 10_000
    assert stored['history']['preview'].startswith('[{"role": "user"')
    assert len(stored['history']['preview']) == 512
    assert stored['tool_definitions']['truncated'] is True
    assert stored['turns'] == [{'role': 'assistant', 'parts': [{'type': 'text', 'content': 'short'}]}]
    assert stored['request']['settings']['stop'] == [big]  # not a body: kept whole
    assert size == len(zlib.decompress(blob)) and len(blob) < size  # compressed


# -- span_error ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ('events', 'description', 'expected'),
    [
        ((exception('RuntimeError', 'boom'),), None, 'RuntimeError: boom'),
        ((exception('RuntimeError', None),), None, 'RuntimeError'),
        ((exception(None, 'only a message'),), None, 'only a message'),
        ((Event('retry', {}), exception('KeyError', "'x'")), 'desc', "KeyError: 'x'"),
        ((), 'the status says why', 'the status says why'),
        ((exception(None, None),), 'fallback', 'fallback'),
        ((), None, 'error'),
    ],
)
def test_span_error_of_a_failed_span(
    events: tuple[Event, ...], description: str | None, expected: str
) -> None:
    failed = span('chat m', status=Status(StatusCode.ERROR, description), events=events)
    assert span_error(failed) == expected


@pytest.mark.parametrize('code', [StatusCode.OK, StatusCode.UNSET])
def test_a_span_that_did_not_fail_has_no_error(code: StatusCode) -> None:
    # An exception recorded and handled inside the span does not make it failed.
    assert span_error(span('chat m', status=Status(code), events=(exception('ValueError', 'x'),))) is None


# -- rows ---------------------------------------------------------------------------------


def chat_attributes(**extra: Any) -> dict[str, Any]:
    return {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'req-model',
        'gen_ai.request.temperature': 0.2,
        'gen_ai.response.model': 'resp-model',
        'gen_ai.response.id': 'resp-1',
        'gen_ai.provider.name': 'function',
        'gen_ai.usage.input_tokens': 12,
        'gen_ai.usage.output_tokens': 5,
        'gen_ai.response.finish_reasons': ('stop', 'length'),
        'gen_ai.input.messages': json.dumps([{'role': 'user', 'parts': [{'type': 'text', 'content': 'q'}]}]),
        'gen_ai.output.messages': json.dumps(
            [{'role': 'assistant', 'parts': [{'type': 'text', 'content': 'a'}]}]
        ),
        'gen_ai.system_instructions': 'not json',
        **extra,
    }


def test_a_model_call_of_the_turns_own_run() -> None:
    row = debug_log_row(span('chat resp-model', chat_attributes()), ROOT, None, 'code', sink())
    assert (row['agent_run_id'], row['root_run_id'], row['depth'], row['parent_run_id']) == (
        'run-a',
        'run-a',
        0,
        None,
    )
    assert (row['action'], row['origin'], row['conversation_id']) == ('chat_turn', 'code', 'conv-1')
    assert (row['model'], row['provider'], row['finish_reason']) == ('resp-model', 'function', 'stop')
    assert (row['input_tokens'], row['output_tokens'], row['total_tokens']) == (12, 5, 17)
    assert row['cost'] is None and row['error'] is None and row['truncated'] is False
    assert (row['span_id'], row['parent_span_id']) == ('00000000000000cc', '00000000000000aa')
    assert row['duration_ms'] == 2 and row['started_at'].timestamp() == START / 1e9
    data = unpack(row['data'])
    assert data['request'] == {'model': 'req-model', 'settings': {'temperature': 0.2}}
    assert data['usage'] == {'input_tokens': 12, 'output_tokens': 5}
    assert data['response'] == {'id': 'resp-1', 'model': 'resp-model', 'finish_reasons': ['stop', 'length']}
    assert data['history'] == [{'role': 'user', 'parts': [{'type': 'text', 'content': 'q'}]}]
    assert data['turns'][0]['parts'][0]['content'] == 'a'
    assert data['instructions'] == 'not json'  # kept as the text it was
    assert row['data_bytes'] == len(zlib.decompress(row['data']))


def test_a_model_call_of_a_nested_run_is_an_agent_call_with_its_known_cost() -> None:
    attributes = chat_attributes(
        **{'operation.cost': 0.25, 'gen_ai.input.messages': json.dumps(['x' * 5000])}
    )
    row = debug_log_row(span('chat', attributes), NESTED, 'run-a', 'direct', sink())
    assert (row['action'], row['depth'], row['parent_run_id'], row['origin']) == (
        'agent_call',
        1,
        'run-a',
        'direct',
    )
    assert row['cost'] == Decimal('0.25') and row['truncated'] is True
    assert unpack(row['data'])['history']['bytes'] == 5004
    broken = debug_log_row(
        span('chat', chat_attributes(**{'operation.cost': 'n/a'})), ROOT, None, 'code', sink()
    )
    assert broken['cost'] is None


def test_a_failed_model_call_keeps_its_error() -> None:
    failed = span(
        'chat',
        {'gen_ai.request.model': 'm'},
        status=Status(StatusCode.ERROR),
        events=(exception('ModelHTTPError', 'status_code: 500'),),
    )
    row = debug_log_row(failed, ROOT, None, 'code', sink())
    assert row['error'] == 'ModelHTTPError: status_code: 500'
    assert (row['model'], row['finish_reason'], row['input_tokens']) == ('m', None, 0)


def test_a_model_call_that_got_no_answer_is_an_error_even_when_its_span_says_nothing() -> None:
    # pydantic-ai ends the span of a streamed request that raised with no error status.
    attributes = chat_attributes()
    del attributes['gen_ai.output.messages']
    row = debug_log_row(span('chat', attributes), ROOT, None, 'code', sink())
    assert row['error'] == NO_RESPONSE


def test_a_tool_call_row() -> None:
    attributes = {
        'gen_ai.tool.name': 'lookup',
        'gen_ai.tool.call.id': 'call_1',
        'gen_ai.tool.call.arguments': '{"q": "A-1"}',
        'gen_ai.tool.call.result': '{"found": true}',
    }
    row = tool_row(span('execute_tool lookup', attributes), NESTED, sink())
    assert (row['agent_run_id'], row['root_run_id'], row['conversation_id']) == ('run-b', 'run-a', 'conv-1')
    assert (row['name'], row['tool_call_id'], row['status'], row['error']) == (
        'lookup',
        'call_1',
        'success',
        None,
    )
    assert row['arguments'] == {'q': 'A-1'} and row['result'] == {'found': True}
    failed = tool_row(
        span(
            'execute_tool lookup',
            {**attributes, 'gen_ai.tool.call.result': '"partial"'},
            status=Status(StatusCode.ERROR),
            events=(exception('RuntimeError', 'down'),),
        ),
        NESTED,
        sink(),
    )
    assert (failed['status'], failed['error'], failed['result']) == ('error', 'RuntimeError: down', None)
    large = tool_row(
        span('execute_tool', {'gen_ai.tool.call.arguments': json.dumps({'t': 'y' * 4000})}), ROOT, sink()
    )
    assert large['name'] == 'execute_tool' and large['arguments']['truncated'] is True


def test_run_rows_of_the_turns_run_and_of_a_nested_run() -> None:
    attributes = {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'a',
        'model_name': 'a-model',
        'gen_ai.aggregated_usage.input_tokens': 40,
        'gen_ai.aggregated_usage.output_tokens': 9,
        'final_result': '{"answer": 42}',
    }
    own = run_row(span('invoke_agent a', attributes, span_id=0xAA, parent=None), ROOT, None, 'code', sink())
    assert (own['agent_run_id'], own['parent_run_id'], own['is_root'], own['depth']) == (
        'run-a',
        None,
        True,
        0,
    )
    assert (own['agent_key'], own['message_id'], own['conversation_id']) == ('agents.a', 'msg-1', 'conv-1')
    assert (own['agent_name'], own['model'], own['status'], own['error']) == ('a', 'a-model', 'ok', None)
    assert (own['input_tokens'], own['output_tokens'], own['output']) == (40, 9, {'answer': 42})
    assert own['trace_id'] == f'{TRACE:032x}' and own['parent_span_id'] is None
    nested = run_row(
        span('invoke_agent b', {'agent_name': 'b'}, span_id=0xBB, status=Status(StatusCode.ERROR, 'failed')),
        NESTED,
        'run-a',
        'direct',
        sink(),
    )
    assert (nested['parent_run_id'], nested['is_root'], nested['depth'], nested['origin']) == (
        'run-a',
        False,
        1,
        'direct',
    )
    assert (nested['agent_key'], nested['message_id']) == (None, None)  # only the turn's own run has them
    assert (nested['agent_name'], nested['status'], nested['error'], nested['output']) == (
        'b',
        'error',
        'failed',
        None,
    )
    step = run_row(span('invoke_agent s', {}), NESTED, 'run-a', 'workflow', sink(run_id='run-b'))
    assert step['is_root'] is True and step['agent_key'] == 'agents.a'  # a workflow step at depth 1


# -- which turns are traced ---------------------------------------------------------------


def agent(metadata: Any = None) -> Agent[None, str]:
    return Agent(TestModel(), name='a', metadata=metadata)


@pytest.mark.parametrize(
    'settings',
    [
        Settings(),
        Settings(debug_playground=False),
        Settings(debug=True),
        Settings(debug_agents=['agents.a']),
    ],
)
@pytest.mark.parametrize('origin', ['playground', 'app', 'task'])
def test_the_agents_own_say_wins(settings: Settings, origin: str) -> None:
    assert wants_debug(settings, origin, 'agents.a', agent({DEBUG_KEY: True})) is True
    assert wants_debug(settings, origin, 'agents.a', agent({DEBUG_KEY: False})) is False


def test_debug_agents_names_slugs_traced_wherever_they_run() -> None:
    settings = Settings(debug_agents=['agents.a', 'config:triage'], debug_playground=False)
    for origin in ('app', 'task', 'playground'):
        assert wants_debug(settings, origin, 'agents.a', agent()) is True
        assert wants_debug(settings, origin, 'config:triage', None) is True
        assert wants_debug(settings, origin, 'agents.b', agent()) is False


def test_debug_traces_every_run() -> None:
    for origin in ('app', 'task', 'workflow', 'playground'):
        assert wants_debug(Settings(debug=True, debug_playground=False), origin, 'x', agent()) is True
        assert wants_debug(Settings(), origin, 'x', agent()) is (origin == 'playground')


def test_the_playground_is_traced_unless_debug_playground_is_off() -> None:
    assert Settings().debug_playground is True
    assert wants_debug(Settings(), 'playground', 'x', agent()) is True
    assert wants_debug(Settings(debug_playground=False), 'playground', 'x', agent()) is False
    assert wants_debug(Settings(debug_playground=True), 'app', 'x', agent()) is False


@pytest.mark.parametrize(
    'metadata', [None, {}, {DEBUG_KEY: 'yes'}, {DEBUG_KEY: 1}, {'other': True}, lambda ctx: {}]
)
def test_metadata_that_is_not_a_boolean_says_nothing(metadata: Any) -> None:
    assert agent_debug(agent(metadata)) is None
    assert wants_debug(Settings(), 'app', 'x', agent(metadata)) is False
    assert wants_debug(Settings(), 'playground', 'x', agent(metadata)) is True


def test_something_that_is_not_an_agent_says_nothing() -> None:
    assert agent_debug(None) is None
    assert agent_debug({DEBUG_KEY: True}) is None
    assert wants_debug(Settings(debug_playground=False), 'playground', 'x', {DEBUG_KEY: True}) is False


def test_debug_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('SYNAPSE_DEBUG_AGENTS', 'agents.a, config:triage')
    monkeypatch.setenv('SYNAPSE_DEBUG_PLAYGROUND', 'false')
    monkeypatch.setenv('SYNAPSE_DEBUG_BODY_BYTES', '2048')
    settings = load_settings().settings
    assert settings.debug_agents == ['agents.a', 'config:triage']
    assert (settings.debug, settings.debug_playground, settings.debug_body_bytes) == (False, False, 2048)
    assert wants_debug(settings, 'app', 'config:triage', None) is True
    assert wants_debug(settings, 'playground', 'agents.b', agent()) is False
