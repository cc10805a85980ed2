"""The demo model's provider-style failures: trigger phrases, mid-stream errors, ``fail_with``."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai import (
    Agent,
    AgentRunResultEvent,
    ModelHTTPError,
    PartDeltaEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ThinkingPart,
)
from pydantic_ai.exceptions import (
    ModelAPIError,
    ModelAuthenticationError,
    ModelContextWindowExceededError,
    ModelRateLimitError,
    ModelServerError,
    ModelUnavailableError,
)
from pydantic_ai.messages import AgentStreamEvent

from synapse_agents.demo import DEMO_TRIGGERS, DemoModel

pytestmark = pytest.mark.anyio

Event = AgentStreamEvent | AgentRunResultEvent[Any]


@pytest.fixture
def anyio_backend() -> str:
    return 'asyncio'


def fast() -> DemoModel:
    return DemoModel(chunk_delay=0)


async def collect(events: list[Event], agent: Agent[Any, Any], prompt: str) -> None:
    """Append the events of a streamed run to ``events`` (kept when the run raises)."""
    async with agent.run_stream_events(prompt) as run:
        async for event in run:
            events.append(event)


def text_deltas(events: list[Event]) -> list[str]:
    return [
        e.delta.content_delta
        for e in events
        if isinstance(e, PartDeltaEvent) and isinstance(e.delta, TextPartDelta)
    ]


# -- trigger phrases ----------------------------------------------------------------------------------------

ERRORS: list[tuple[str, type[ModelAPIError], int]] = [
    ('we hit a rate limit', ModelRateLimitError, 429),
    ('simulate an auth error', ModelAuthenticationError, 401),
    ('my invalid key', ModelAuthenticationError, 401),
    ('overflow the context window', ModelContextWindowExceededError, 400),
    ('this prompt blows the context window', ModelContextWindowExceededError, 400),
    ('give me a server error', ModelServerError, 500),
    ('the service unavailable case', ModelUnavailableError, 503),
]


@pytest.mark.parametrize(('prompt', 'category', 'status'), ERRORS)
async def test_error_triggers_raise_provider_errors(
    prompt: str, category: type[ModelAPIError], status: int
) -> None:
    agent = Agent(fast())
    events: list[Event] = []
    with pytest.raises(ModelHTTPError) as streamed:
        await collect(events, agent, prompt)
    assert events == []  # rejected before any output
    with pytest.raises(ModelHTTPError) as ran:
        await agent.run(prompt)
    for error in (streamed.value, ran.value):
        assert isinstance(error, category)
        assert error.status_code == status
        assert error.model_name == 'synapse-demo'
        assert 'synapse demo trigger' in str(error.body)
        assert error.in_stream is False


async def test_rate_limit_carries_retry_after() -> None:
    with pytest.raises(ModelRateLimitError) as info:
        await Agent(fast()).run('RATE-LIMIT me')
    assert isinstance(info.value, ModelHTTPError)
    assert info.value.retry_after == 20
    assert info.value.provider_error_code == 'rate_limit_exceeded'


async def test_context_window_error_quotes_the_window() -> None:
    with pytest.raises(ModelContextWindowExceededError) as info:
        await Agent(DemoModel(chunk_delay=0, context_window=1000)).run('exceed the context window')
    assert '1000 tokens' in str(info.value)


async def test_fail_mid_stream_sends_text_then_raises() -> None:
    agent = Agent(fast())
    events: list[Event] = []
    with pytest.raises(ModelServerError) as info:
        await collect(events, agent, 'please fail mid-stream')
    assert isinstance(info.value, ModelHTTPError)
    assert info.value.status_code == 500 and info.value.in_stream is True
    starts = [e.part for e in events if isinstance(e, PartStartEvent)]
    assert any(isinstance(part, ThinkingPart) for part in starts)
    text = ''.join(p.content for p in starts if isinstance(p, TextPart)) + ''.join(text_deltas(events))
    assert len(text) > 20
    with pytest.raises(ModelServerError):
        await agent.run('fail mid stream')


async def test_the_next_message_works_after_an_error() -> None:
    agent = Agent(fast())
    with pytest.raises(ModelRateLimitError):
        await agent.run('rate limit')
    history = (await agent.run('first')).all_messages()
    result = await agent.run('and now?', message_history=history)
    assert 'Demo reply' in result.output


async def test_fail_with_always_fails_with_a_fresh_copy() -> None:
    model = DemoModel.always_failing(chunk_delay=0)
    assert model.model_name == 'synapse-demo-unavailable'
    errors = []
    for _ in range(2):
        with pytest.raises(ModelUnavailableError) as info:
            await Agent(model).run('hi')
        errors.append(info.value)
    assert errors[0] is not errors[1]
    assert all(isinstance(e, ModelHTTPError) and e.status_code == 503 for e in errors)
    custom = DemoModel(chunk_delay=0, fail_with=ValueError('boom'))
    with pytest.raises(ValueError, match='boom'):
        await collect([], Agent(custom), 'hi')


def test_triggers_are_documented() -> None:
    keys = {trigger.key for trigger in DEMO_TRIGGERS}
    assert {'rate_limit', 'auth', 'context_window', 'server_error', 'mid_stream', 'previous_message'} <= keys
    for trigger in DEMO_TRIGGERS:
        assert trigger.phrases and trigger.description
        assert (trigger.status_code is None) == (trigger.kind == 'behaviour')
    import synapse_agents.demo.model as module

    assert module.__doc__ is not None
    for trigger in DEMO_TRIGGERS:
        assert trigger.phrases[0] in module.__doc__.lower().replace('-', ' ')


@pytest.mark.parametrize('trigger', [t for t in DEMO_TRIGGERS if t.kind == 'error'], ids=lambda t: str(t.key))
async def test_every_error_phrase_fires(trigger: Any) -> None:
    for phrase in trigger.phrases:
        with pytest.raises(ModelHTTPError) as info:
            await Agent(fast()).run(f'Could you {phrase.upper()} for me')
        assert info.value.status_code == trigger.status_code
        assert type(info.value).__name__ == trigger.error
