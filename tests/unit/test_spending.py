"""Spending limits and the app's credits, enforced on real turns through the engine (and on an app's
own agent), on every selected database. The model boundary is a priced `FunctionModel`
(tests/spending_models.py): each call costs exactly `CALL_COST`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from decimal import Decimal
from typing import Any, Unpack

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestContext, ModelRequestParameters
from pydantic_ai.models.fallback import FallbackModel
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RequestUsage

from chat_helpers import collect, failure, finished
from spending_models import (
    CALL_COST,
    CREDITS,
    PRICED,
    add_limit,
    add_price,
    priced_agent,
    priced_model,
    rows,
)
from synapse_agents.accounting import capability
from synapse_agents.accounting.capability import Spending
from synapse_agents.accounting.pricing import CHARS_PER_TOKEN, estimated_input_tokens
from synapse_agents.accounting.tables import LlmCall, SpendingOverrun, SpendingReservation
from synapse_agents.chat.engine import ChatEngine
from synapse_agents.chat.request import TurnRequest
from synapse_agents.conversations.tables import Message
from synapse_agents.errors import SpendingLimitExceeded
from synapse_agents.events import Notice, TurnFailed
from synapse_agents.runtime.maintenance import sweep
from synapse_agents.scope import Scope
from synapse_agents.settings import Settings
from synapse_agents.store import Store
from synapse_agents.store.write_queue import WriteQueue
from synapse_agents.targets.target import TurnTarget

pytestmark = pytest.mark.anyio

ACME = Scope(tenant=('org', 'acme'), actor=('user', '1'))
RATES = {'EUR': Decimal('1.08')}


@pytest.fixture
def engine(store: Store) -> Iterator[ChatEngine]:
    writes = WriteQueue(store)
    yield ChatEngine(store, writes, Settings(currency_rates=RATES))
    writes.close()


async def turn(
    engine: ChatEngine, agent: Agent[Any, Any], *, preset: str | None = None, scope: Scope = ACME
) -> list[Any]:
    """One turn of `agent` (slug `priced`) for `scope`; its events, once everything is written."""
    target = TurnTarget.for_agent(agent, slug='priced', preset=preset)
    prepared = await engine.prepare(TurnRequest(target, 'Hi', scope=scope, origin='app'))
    events = await collect(engine.stream(prepared))
    await engine.writes.drain()
    return events


def card(events: list[Any]) -> TurnFailed:
    found = failure(events)
    assert found is not None, 'the turn did not fail'
    return found


# -- the ledger row ---------------------------------------------------------------------------


async def test_each_call_is_priced_at_call_time_and_names_who_and_what(
    engine: ChatEngine, store: Store
) -> None:
    price_id = add_price(store, currency='EUR')
    events = await turn(engine, priced_agent(), preset='fast')
    assert failure(events) is None
    (row,) = rows(store, LlmCall)
    assert (row.tenant, row.user, row.agent_key, row.preset) == ('org:acme', 'user:1', 'priced', 'fast')
    assert (row.cost, row.currency, row.price_source) == (CALL_COST, 'EUR', 'registry')
    assert (row.cost_reference, row.reference_currency) == (CALL_COST * Decimal('1.08'), 'USD')
    assert row.price_version is not None and row.price_version.startswith(f'{price_id}@')
    assert row.duration_ms is not None and row.output_tokens == 100
    assert finished(events).cost == CALL_COST * Decimal('1.08')  # the turn's cost, in the reference currency


async def test_an_unknown_price_is_null_everywhere_and_passes_the_limit_with_a_notice(
    engine: ChatEngine, store: Store
) -> None:
    add_limit(store, 'agent', 'priced', '0.01')
    events = await turn(engine, priced_agent(priced_model(name='mystery-1')))
    assert failure(events) is None
    (notice,) = [e for e in events if isinstance(e, Notice)]
    assert notice.kind == 'unpriced' and 'mystery-1' in notice.message
    (row,) = rows(store, LlmCall)
    assert (row.cost, row.currency, row.cost_reference, row.price_source, row.price_version) == (None,) * 5
    assert rows(store, SpendingReservation) == [] and rows(store, SpendingOverrun) == []
    (stored,) = [m for m in rows(store, Message) if m.role == 'notice']
    assert stored.content == notice.message


async def test_an_unpriced_call_never_spends_past_a_limit_that_is_used_up(
    engine: ChatEngine, store: Store
) -> None:
    # A FunctionModel named `gpt-4o`: its requests cannot be priced (genai-prices knows no provider
    # `function`), its responses can (by the model's name alone). Nothing is reserved for the first
    # call; once its ledger row has filled the window, the next call is refused before it is made.
    add_limit(store, 'agent', 'priced', '0.000001')
    calls: list[int] = []
    model = priced_model(calls=calls, name='gpt-4o')
    first = await turn(engine, priced_agent(model))
    assert failure(first) is None
    assert [e.kind for e in first if isinstance(e, Notice)] == ['unpriced']
    (row,) = rows(store, LlmCall)
    assert row.cost is not None and row.cost > Decimal('0.000001')
    refused = card(await turn(engine, priced_agent(model)))
    assert refused.exception_class == 'SpendingLimitExceeded'
    assert calls == [1], 'the second call was never made'
    assert len(rows(store, LlmCall)) == 1


# -- refusals ---------------------------------------------------------------------------------


async def test_a_call_over_the_limit_is_refused_once_logged_and_never_retried(
    engine: ChatEngine, store: Store
) -> None:
    add_price(store)
    limit = add_limit(store, 'tenant', 'org:acme', '0.15')
    calls: list[int] = []
    agent = priced_agent(priced_model(calls=calls), retries=3)
    assert failure(await turn(engine, agent)) is None
    refused = card(await turn(engine, agent))
    assert refused.exception_class == 'SpendingLimitExceeded' and refused.recoverable is False
    assert isinstance(refused.error, SpendingLimitExceeded)
    assert "tenant 'org:acme' may spend 0.15 USD per calendar day" in refused.message
    assert '0.10 USD is spent or reserved' in refused.message and 'up to 0.10 USD' in refused.message
    assert calls == [1]  # the refused request never reached the model, and was not tried again
    (overrun,) = rows(store, SpendingOverrun)
    assert (overrun.limit_id, overrun.user, overrun.tenant, overrun.agent_key) == (
        limit.id,
        'user:1',
        'org:acme',
        'priced',
    )
    assert (overrun.consumed, overrun.estimated, overrun.overrun) == (CALL_COST, CALL_COST, Decimal('0.05'))
    assert overrun.conversation_id is not None and overrun.run_id is not None
    assert rows(store, SpendingReservation) == [] and len(rows(store, LlmCall)) == 1
    (error,) = [m for m in rows(store, Message) if m.role == 'error']
    assert "tenant 'org:acme'" in error.content

    fallback_calls: list[int] = []
    fallback = FallbackModel(priced_model(calls=fallback_calls), priced_model(calls=fallback_calls))
    assert card(await turn(engine, priced_agent(fallback))).exception_class == 'SpendingLimitExceeded'
    assert fallback_calls == []  # no fallback model was tried either


class ServedAs(FunctionModel):
    """A model asked for as `acme-1` whose responses name it otherwise, as an OpenAI-compatible server
    (vLLM, a proxy) often does."""

    @property
    def model_name(self) -> str:
        return PRICED


async def test_a_response_named_otherwise_is_priced_as_the_model_asked_for_and_fills_the_limit(
    engine: ChatEngine, store: Store
) -> None:
    add_price(store)
    add_limit(store, 'tenant', 'org:acme', '0.15')
    calls: list[int] = []
    served = priced_model(calls=calls, name='acme-1-awq-2026-05')
    assert served.stream_function is not None
    model = ServedAs(stream_function=served.stream_function, model_name='acme-1-awq-2026-05')
    assert failure(await turn(engine, priced_agent(model))) is None
    (row,) = rows(store, LlmCall)
    assert (row.model, row.cost, row.price_source) == ('acme-1-awq-2026-05', CALL_COST, 'registry')
    assert card(await turn(engine, priced_agent(model))).exception_class == 'SpendingLimitExceeded'
    assert calls == [1]

    # An app's own agent, which writes its own rows, prices them the same way.
    app_agent = priced_agent(model, capabilities=[Spending(store, settings=Settings(), tenant='org:beta')])
    async with app_agent.run_stream('Hi') as streamed:
        await streamed.get_output()
    await engine.writes.drain()
    (app_row,) = rows(store, LlmCall, tenant='org:beta')
    assert (app_row.cost, app_row.price_source) == (CALL_COST, 'registry')


async def test_the_limits_of_a_preset_and_a_user_apply_too(engine: ChatEngine, store: Store) -> None:
    add_price(store)
    add_limit(store, 'tenant', 'org:acme', '100')
    add_limit(store, 'preset', 'fast', '0.05')
    assert failure(await turn(engine, priced_agent())) is None  # no preset: its limit does not apply
    assert 'preset' in card(await turn(engine, priced_agent(), preset='fast')).message
    add_limit(store, 'user', 'user:1', '0.15')
    assert "user 'user:1'" in card(await turn(engine, priced_agent())).message
    assert [o.scope for o in rows(store, SpendingOverrun)] == ['preset', 'user']


async def test_a_provider_429_stays_a_retryable_error_and_releases_the_reservation(
    engine: ChatEngine, store: Store
) -> None:
    add_price(store)
    add_limit(store, 'tenant', 'org:acme', '0.1')
    held: list[int] = []

    def rate_limited() -> None:
        held.append(len(rows(store, SpendingReservation)))
        raise ModelHTTPError(429, PRICED, {'error': 'slow down'})

    failed = card(await turn(engine, priced_agent(priced_model(before=rate_limited))))
    assert failed.exception_class == 'ModelHTTPError' and failed.recoverable is True
    assert held == [1]  # reserved while the request was made
    assert rows(store, SpendingReservation) == [] and rows(store, SpendingOverrun) == []
    assert failure(await turn(engine, priced_agent())) is None  # the whole limit is still there


async def test_a_failure_halfway_releases_the_reservation_and_keeps_what_was_billed(
    engine: ChatEngine, store: Store
) -> None:
    add_price(store)
    day = add_limit(store, 'tenant', 'org:acme', '1')

    async def halfway(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for _ in range(40):
            yield 'tok '
        raise RuntimeError('connection reset')

    assert (
        'connection reset'
        in card(
            await turn(engine, priced_agent(FunctionModel(stream_function=halfway, model_name=PRICED)))
        ).message
    )
    assert rows(store, SpendingReservation) == []
    (row,) = rows(store, LlmCall)
    assert row.output_tokens == 40 and row.cost == Decimal('0.04')
    from synapse_agents.accounting.limits import consumption

    assert consumption(store, day, row.created_at) == Decimal('0.04')


async def test_a_cancelled_turn_releases_its_reservation(engine: ChatEngine, store: Store) -> None:
    add_price(store)
    add_limit(store, 'tenant', 'org:acme', '1')
    started = asyncio.Event()

    async def forever() -> None:
        started.set()
        await asyncio.sleep(60)

    task = asyncio.create_task(turn(engine, priced_agent(priced_model(before=forever))))
    await asyncio.wait_for(started.wait(), 10)
    assert len(rows(store, SpendingReservation)) == 1
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await engine.writes.drain()
    assert rows(store, SpendingReservation) == []


async def test_the_maintenance_sweep_removes_expired_reservations(store: Store) -> None:
    from datetime import UTC, datetime, timedelta

    now = datetime.now(UTC)
    with store.write() as session:
        for ident, expires in (('dead', now - timedelta(seconds=1)), ('live', now + timedelta(minutes=5))):
            session.add(
                SpendingReservation(
                    id=ident,
                    agent_key='priced',
                    amount=Decimal(1),
                    currency='USD',
                    created_at=now,
                    expires_at=expires,
                )
            )
    sweep(store)
    assert [r.id for r in rows(store, SpendingReservation)] == ['live']


# -- estimates --------------------------------------------------------------------------------


async def test_the_output_estimate_falls_back_to_the_registry_model_then_the_setting(
    store: Store, engine: ChatEngine
) -> None:
    add_price(store, max_output_tokens=100)
    add_limit(store, 'agent', 'priced', '0.1')
    uncapped = priced_agent(max_tokens=None)
    assert failure(await turn(engine, uncapped)) is None  # 100 tokens at most: 0.1 fits
    assert card(await turn(engine, uncapped)).exception_class == 'SpendingLimitExceeded'

    add_price(store, name='acme-2')
    add_limit(store, 'agent', 'other', '1')
    other = TurnTarget.for_agent(priced_agent(priced_model(name='acme-2'), max_tokens=None), slug='other')
    for setting, refused in ((4096, True), (100, False)):
        engine.settings = Settings(default_max_output_tokens=setting)
        prepared = await engine.prepare(TurnRequest(other, 'Hi'))
        events = await collect(engine.stream(prepared))
        assert (failure(events) is not None) is refused
    assert rows(store, SpendingOverrun)[-1].estimated == Decimal('4.096')


def context(
    model: Any, messages: list[ModelMessage], **settings: Unpack[ModelSettings]
) -> ModelRequestContext:
    return ModelRequestContext(
        model=model,
        messages=messages,
        model_settings=settings or None,
        model_request_parameters=ModelRequestParameters(),
    )


async def test_input_tokens_are_counted_by_the_model_else_estimated_from_characters(store: Store) -> None:
    add_price(store, input_per_mtok=Decimal(1_000_000), output_per_mtok=Decimal(0))  # one per input token
    text = 'x' * 299
    messages: list[ModelMessage] = [ModelRequest(parts=[SystemPromptPart('s' * 30), UserPromptPart(text)])]
    assert estimated_input_tokens(messages) == 110 == -(-(299 + 30) // CHARS_PER_TOKEN)

    class Counting(FunctionModel):
        async def count_tokens(self, *args: Any) -> RequestUsage:
            return RequestUsage(input_tokens=7)

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart('ok')])

    spending = Spending(store)
    estimate = await spending.estimate(
        context(FunctionModel(answer, model_name=PRICED), messages, max_tokens=5)
    )
    assert (estimate.input_tokens, estimate.output_tokens, estimate.price.cost) == (110, 5, Decimal(110))
    counted = await spending.estimate(context(Counting(answer, model_name=PRICED), messages))
    assert (counted.input_tokens, counted.output_tokens, counted.price.cost) == (7, 4096, Decimal(7))


# -- the app's credits ------------------------------------------------------------------------


async def test_the_usage_recorder_is_asked_before_and_told_after(engine: ChatEngine, store: Store) -> None:
    add_price(store)
    CREDITS.reset(balance=Decimal('0.15'))
    engine.settings = Settings(usage_recorder='spending_models:CREDITS')
    calls: list[int] = []
    assert failure(await turn(engine, priced_agent(priced_model(calls=calls)))) is None
    (asked,) = CREDITS.asked
    assert (asked.phase, asked.tenant, asked.user, asked.agent, asked.cost_reference) == (
        'before',
        'org:acme',
        'user:1',
        'priced',
        CALL_COST,
    )
    (told,) = CREDITS.recorded
    (row,) = rows(store, LlmCall)
    assert (told.phase, told.ledger_id, told.cost, told.output_tokens) == ('after', row.id, CALL_COST, 100)
    refused = card(await turn(engine, priced_agent(priced_model(calls=calls))))
    assert refused.exception_class == 'OutOfCredits' and refused.recoverable is False
    assert calls == [1] and len(rows(store, LlmCall)) == 1 and rows(store, SpendingOverrun) == []

    engine.settings = Settings(usage_recorder='spending_models:NOTHING')
    assert 'spending_models:NOTHING' in card(await turn(engine, priced_agent())).message


# -- an app's own agent -----------------------------------------------------------------------


async def test_an_app_agent_with_the_capability_writes_its_own_ledger_and_is_held_to_limits(
    store: Store,
) -> None:
    add_price(store)
    add_limit(store, 'tenant', 'org:app', '0.25')

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart('ok')], usage=RequestUsage(input_tokens=3, output_tokens=100))

    agent = Agent(
        FunctionModel(answer, model_name=PRICED),
        name='app-bot',
        model_settings={'max_tokens': 100},
        capabilities=[Spending(store, tenant='org:app', user='user:9')],
    )
    results = await asyncio.gather(*(agent.run('Hi') for _ in range(3)), return_exceptions=True)
    assert sorted(type(r).__name__ for r in results) == [
        'AgentRunResult',
        'AgentRunResult',
        'SpendingLimitExceeded',
    ]
    ledger = rows(store, LlmCall)
    assert len(ledger) == 2 and {(r.module, r.tenant, r.user, r.agent_key) for r in ledger} == {
        ('app', 'org:app', 'user:9', 'app-bot')
    }
    assert all(r.cost == CALL_COST and r.conversation_id is None and r.run_id for r in ledger)
    assert rows(store, SpendingReservation) == [] and len(rows(store, SpendingOverrun)) == 1


async def test_a_request_is_not_refused_for_the_worst_case_of_one_whose_ledger_row_is_still_queued(
    store: Store,
) -> None:
    """The first request reserves 0.1 (its worst case) and costs 0.001; its ledger row waits on the
    queue (a long linger). Judged against that reservation the second request (0.1 more) would pass the
    0.15 limit; it is judged again once the row is committed, and passes, with no overrun logged."""
    add_price(store)
    add_limit(store, 'tenant', 'org:app', '0.15')
    writes = WriteQueue(store, linger=60)

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(
                parts=[ToolCallPart('noop', {}, 'call-1')], usage=RequestUsage(output_tokens=1)
            )
        return ModelResponse(parts=[TextPart('ok')], usage=RequestUsage(output_tokens=1))

    agent = priced_agent(FunctionModel(answer, model_name=PRICED))

    @agent.tool_plain
    def noop() -> str:
        return 'done'

    spending = Spending(store, writes=writes, tenant='org:app', user='user:9')
    try:
        result = await agent.run('Hi', capabilities=[spending])
        await writes.drain()
    finally:
        writes.close()
    assert result.output == 'ok'
    assert [r.cost for r in rows(store, LlmCall)] == [Decimal('0.001')] * 2
    assert rows(store, SpendingOverrun) == [] and rows(store, SpendingReservation) == []


# -- a limit saved while a turn runs ------------------------------------------------------------


def limit_saving_agent(store: Store) -> Agent[None, str]:
    """Its first request calls `save_limit` (a 0.01 USD limit on the tenant), its second answers."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        if not any(getattr(part, 'part_kind', '') == 'tool-return' for m in messages for part in m.parts):
            yield {0: DeltaToolCall(name='save_limit', json_args='{}', tool_call_id='limit-1')}
            return
        for _ in range(10):
            yield 'tok '

    agent = priced_agent(FunctionModel(stream_function=stream, model_name=PRICED))

    @agent.tool_plain
    def save_limit() -> str:
        add_limit(store, 'tenant', 'org:acme', '0.01')
        return 'saved'

    return agent


async def test_a_limit_saved_while_a_turn_runs_holds_its_requests_once_the_answer_is_stale(
    engine: ChatEngine, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_price(store)
    monkeypatch.setattr(capability, 'LIMITS_FRESH_S', 0.0)  # every request reads again
    refused = card(await turn(engine, limit_saving_agent(store)))
    assert refused.exception_class == 'SpendingLimitExceeded'
    assert len(rows(store, LlmCall)) == 1 and len(rows(store, SpendingOverrun)) == 1


async def test_the_answer_read_as_the_turn_starts_serves_its_requests_for_a_second(
    engine: ChatEngine, store: Store
) -> None:
    """The documented window (`LIMITS_FRESH_S`): the limit saved by the tool holds from the next
    request that starts a second after the turn's read; this turn's second request comes sooner."""
    add_price(store)
    assert failure(await turn(engine, limit_saving_agent(store))) is None
    assert len(rows(store, LlmCall)) == 2
    refused = card(await turn(engine, priced_agent()))  # the next turn reads it
    assert refused.exception_class == 'SpendingLimitExceeded'
