"""The UI message stream of a whole turn, as the chat route encodes the engine's events: a snapshot
(ids and timings replaced by placeholders)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import get_args

import pytest
from pydantic_ai.models import KnownModelName

from chat_helpers import anonymise, decode, turn_target
from synapse_agents.chat.engine import ChatEngine
from synapse_agents.chat.request import TurnRequest
from synapse_agents.store import Store
from synapse_agents.store.write_queue import WriteQueue
from synapse_agents.targets.model_choice import PROVIDER_ENV, PROVIDER_MODELS, provider_of, selectable_models
from synapse_agents.web.vercel import encode_turn

pytestmark = pytest.mark.any_database(
    reason="the stream's wire format is the encoder's; the store is not read back"
)


@pytest.fixture
def engine(store: Store) -> Iterator[ChatEngine]:
    writes = WriteQueue(store)
    yield ChatEngine(store, writes)
    writes.close()


@pytest.mark.anyio
async def test_tool_turn_snapshot(engine: ChatEngine) -> None:
    prepared = await engine.prepare(TurnRequest(turn_target('chat_agents.shop'), 'Where is A-1?'))
    chunks = anonymise(decode(''.join([c async for c in encode_turn(engine.stream(prepared))])))
    usage = {
        'input_tokens': 100, 'output_tokens': 7, 'cache_read_tokens': 0, 'cache_write_tokens': 0,
        'reasoning_tokens': 0, 'requests': 2, 'tool_calls': 1,
    }  # fmt: skip
    meta = {
        'conversation_id': '<uuid>', 'message_id': '<uuid>', 'user_message_id': '<uuid>', 'model': 'scripted',
        'provider': 'function', 'cost': None, 'currency': 'USD', 'stateless': False,
    }  # fmt: skip
    first = {
        **meta,
        'usage': {**usage, 'input_tokens': 0, 'output_tokens': 0, 'requests': 0, 'tool_calls': 0},
    }
    assert chunks == [
        {'type': 'start', 'messageId': '<id>', 'messageMetadata': {**first, 'duration_ms': None}},
        {'type': 'start-step'},
        {'type': 'tool-input-start', 'toolCallId': '<id>', 'toolName': 'lookup'},
        {'type': 'tool-input-delta', 'toolCallId': '<id>', 'inputTextDelta': '{"order_id": "A-1"}'},
        {
            'type': 'tool-input-available',
            'toolCallId': '<id>',
            'toolName': 'lookup',
            'input': {'order_id': 'A-1'},
        },
        {
            'type': 'tool-output-available',
            'toolCallId': '<id>',
            'output': {'order_id': 'A-1', 'status': 'shipped'},
        },
        {
            'type': 'data-tool-timing',
            'data': {'tool_call_id': '<id>', 'duration_ms': '<ms>'},
            'transient': True,
        },
        {'type': 'finish-step'},
        {'type': 'start-step'},
        {'type': 'text-start', 'id': '<id>'},
        {'type': 'text-delta', 'id': '<id>', 'delta': 'It '},
        {'type': 'text-delta', 'id': '<id>', 'delta': 'shipped. '},
        {'type': 'text-end', 'id': '<id>'},
        {
            'type': 'message-metadata',
            'messageMetadata': {**meta, 'usage': usage, 'duration_ms': '<ms>', 'saved': True},
        },
        {'type': 'finish-step'},
        {
            'type': 'finish',
            'finishReason': 'stop',  # FunctionModel reports none: the run reached its result
            'messageMetadata': {**meta, 'usage': usage, 'duration_ms': '<ms>', 'saved': True},
        },
        {'type': '[DONE]'},
    ]


def test_provider_model_table_names_known_models() -> None:
    known = set(get_args(getattr(KnownModelName, '__value__', KnownModelName)))
    for provider, models in PROVIDER_MODELS.items():
        assert provider in PROVIDER_ENV
        for model_id in models:
            assert model_id in known, model_id
            assert provider_of(model_id) == provider


def test_selector_order_and_keys() -> None:
    options = selectable_models(None, ['openai:gpt-5.6-sol', 'demo'], environ={'XAI_API_KEY': 'k'})
    assert [(o.id, o.source, o.available) for o in options][:4] == [
        ('demo', 'demo', True),
        ('demo-fast', 'demo', True),
        ('openai:gpt-5.6-sol', 'setting', False),
        ('xai:grok-4.3', 'provider', True),
    ]
    own = selectable_models('anthropic:claude-haiku-5-5', [], environ={'ANTHROPIC_API_KEY': 'k'})
    assert own[0].source == 'agent' and own[0].available
    assert [o.id for o in own].count('anthropic:claude-haiku-5-5') == 1
