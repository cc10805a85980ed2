"""`Spending`: the capability that holds model calls to their spending limits and the app's credits.

Every Synapse turn carries it (beside the `Recorder`), and an app can add it to its own agents:

    agent = Agent(model, capabilities=[Spending(store, settings=settings, tenant='org:acme')])

Before each model request (each attempt, once the serving model is known) it

1. asks the app's `UsageRecorder`, when one is set, whether the call may be made (`OutOfCredits`);
2. when a limit applies to the call's tenant, user, agent or preset, estimates the call's worst
   case and reserves it against every such limit in one transaction (`limits.reserve`), or raises
   `SpendingLimitExceeded` (with an overrun row committed). Whether any limit applies is a read
   (`limits.any_limits`): a Synapse turn starts it as the turn starts (`look_ahead`), so it overlaps
   the run's setup, and its answer serves the run's requests for `LIMITS_FRESH_S` (1 s); a later
   request reads again. A limit saved while a turn runs therefore holds its requests from a second
   later at most; a limit that exists is always decided in the database, at every request.

The worst case is the input tokens plus the most output tokens the request may produce, at the
prices in force now. Input tokens are counted by the model when it can (`Model.count_tokens`),
else estimated from the request's characters (`pricing.estimated_input_tokens`: one token per 3
characters of its messages, instructions and tool definitions, rounded up, and 1600 per image,
audio, video or document part). The output is the request's `max_tokens` (its model settings, then the
model's own), else the registry model's `max_output_tokens`, else `default_max_output_tokens`.
A call no price is known for cannot be estimated: it is let through, with an `unpriced` notice
once per run, and its ledger row is unpriced (it counts toward no limit).

After the response the reservation is settled: deleted in the transaction that inserts the call's
ledger row (inside a Synapse turn the recorder writes that row and takes the reservation from
here; on its own, this capability writes it). A request that fails or is cancelled releases it,
and one whose process died is swept when it expires (`limits.sweep_expired`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field, replace
from datetime import datetime, timedelta
from decimal import Decimal
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelResponse
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.usage import RequestUsage
from sqlalchemy import Connection

from ..errors import OutOfCredits, SpendingLimitExceeded
from ..events import Notice
from ..scope import Scope
from ..settings import Settings
from ..store.engine import writer
from ..store.ids import new_id
from ..store.schema import utcnow
from . import limits
from .pricing import (
    Estimate,
    PricedCall,
    Pricer,
    Requested,
    asked_max_tokens,
    estimated_input_tokens,
    pricer,
    requested_models,
    serving_models,
)
from .usage_recorder import UsageCall, UsageRecorder, has_credits, load_usage_recorder, record

if TYPE_CHECKING:
    from ..store import Store
    from ..store.write_queue import TurnWrites, WriteQueue

logger = logging.getLogger('synapse.accounting')


LIMITS_FRESH_S = 1.0
"""How long the answer to "does any limit apply?" serves the run's next requests: a limit saved
while a turn runs holds its requests that start this much later (reserving against a limit that
exists is always decided in the database, at each request)."""


@dataclass(frozen=True)
class _LimitsAnswer:
    subject: limits.Subject
    at: float
    """When the read started (`time.monotonic()`)."""
    answer: asyncio.Future[bool]


@dataclass(eq=False)
class Spending(AbstractCapability[Any]):
    """Spending limits and the app's credits for each model request (see the module docstring)."""

    store: Store
    _: KW_ONLY
    settings: Settings | None = None
    """Rates, the reference currency, `usage_recorder`, `default_max_output_tokens` (defaults: unset)."""
    tenant: str | None = None
    """`type:id`; unset: the Synapse scope's tenant, when the run has one."""
    user: str | None = None
    """`type:id`; unset: the Synapse scope's actor."""
    agent: str | None = None
    """The agent's key in the ledger and the limits; unset: the agent's name."""
    preset: str | None = None
    conversation_id: str | None = None
    run_id: str | None = None
    """The ledger's run id; unset: pydantic-ai's."""
    module: str = 'app'
    """The ledger module of the rows this capability writes itself."""
    parent_run_id: str | None = None
    """The run that started this one, kept on the rows this capability writes itself."""
    on_row: Callable[[dict[str, Any]], None] | None = None
    """Told of each ledger row this capability writes itself (a turn adds its nested runs' rows)."""
    usage_recorder: UsageRecorder | None = None
    """The app's credit system; unset: the `usage_recorder` setting's."""
    writes: TurnWrites | WriteQueue | None = None
    """Where settles and releases go (unset: a transaction of their own, in a thread)."""
    records_ledger: bool = True
    """Write the ledger rows; False inside a Synapse turn, whose recorder writes them."""
    prices: Pricer | None = None
    """The prices to use (unset: read at each request, from a cache)."""
    price_hint: str | None = None
    count_tokens: bool = True
    """Ask the model to count the input tokens (some providers answer with a request of their own)."""
    notify: Callable[[Notice], None] | None = None
    ttl: timedelta = limits.RESERVATION_TTL
    _held: str | None = field(default=None, init=False, repr=False)
    _settled: list[dict[str, Any]] = field(default_factory=list, init=False, repr=False)
    _noticed: bool = field(default=False, init=False, repr=False)
    _started: float = field(default=0.0, init=False, repr=False)
    _limits_answer: _LimitsAnswer | None = field(default=None, init=False, repr=False)

    def look_ahead(self) -> None:
        """Start reading, in a thread, whether a limit applies to the tenant, user, agent and preset
        set here: the run's first model request takes the answer instead of reading it then (a turn
        calls this as it starts, so the read overlaps the run's setup). Call it on the event loop."""
        self._read_limits(
            limits.Subject(tenant=self.tenant, user=self.user, agent=self.agent, preset=self.preset)
        )

    async def for_run(self, ctx: RunContext[Any]) -> AbstractCapability[Any]:
        # On an app's agent one instance serves every run: each gets its own reservation state.
        return replace(self) if self.records_ledger else self

    # -- the request ---------------------------------------------------------------------------

    async def wrap_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, handler: Any
    ) -> ModelResponse:
        try:
            response: ModelResponse = await handler(request_context)
        finally:
            self._release()  # failed, cancelled, or answered without a ledger row
        await self.flush()
        return response

    async def prepare_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        self._release()  # an earlier attempt's (a hook asked for another attempt)
        self._started = time.perf_counter()
        subject = self._subject(ctx)
        credits = self._usage_recorder()
        limited = await self._limited(subject)
        if not limited and credits is None:
            return request_context
        estimate = await self.estimate(request_context)
        if credits is not None:
            asked = UsageCall.before(
                subject,
                estimate,
                conversation_id=self.conversation_id,
                run_id=self._run_id(ctx),
                provider=request_context.model.system,
                model=request_context.model.model_name,
            )
            if not await has_credits(credits, asked):
                raise OutOfCredits()
        amount = estimate.amount() if limited else None
        if amount is None:
            if limited:
                # Nothing can be reserved for a call of no known price, but a window already full
                # (of priced calls: a response can be priced when its request could not be) still
                # refuses it: an unpriced call never spends past a limit that is used up.
                full = await asyncio.get_running_loop().run_in_executor(
                    None, limits.reached, self.store, subject, self._settings()
                )
                if full:
                    raise _exceeded(full[0])
                self._unpriced(request_context)
            return request_context
        request = limits.Request(
            subject, amount[0], amount[1], self._run_id(ctx), self.conversation_id, self.ttl
        )
        decision = await self._decide(request)
        if decision.refused:
            raise _exceeded(decision.refusals[0])
        self._held = decision.reservation_id
        return request_context

    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, response: ModelResponse
    ) -> ModelResponse:
        if self.records_ledger:
            await self._write_ledger(ctx, response, requested_models(request_context.model))
        return response

    async def _limited(self, subject: limits.Subject) -> bool:
        """Whether a limit applies to `subject`: read from the database, or the answer of a read that
        started at most `LIMITS_FRESH_S` ago for the same subject (`look_ahead`)."""
        seen = self._limits_answer
        if seen is not None and seen.subject == subject and time.monotonic() - seen.at < LIMITS_FRESH_S:
            return await seen.answer
        return await self._read_limits(subject).answer

    def _read_limits(self, subject: limits.Subject) -> _LimitsAnswer:
        """Start the read of whether a limit applies to `subject`, in a thread; kept as the answer."""
        answer = asyncio.get_running_loop().run_in_executor(None, limits.any_limits, self.store, subject)
        answer.add_done_callback(_retrieved)  # a run that ends before its first request never reads it
        self._limits_answer = _LimitsAnswer(subject, time.monotonic(), answer)
        return self._limits_answer

    # -- the estimate --------------------------------------------------------------------------

    async def estimate(self, request_context: ModelRequestContext) -> Estimate:
        """The request's worst case at the prices in force now (for a fallback model, its dearest
        model's that has a price)."""
        prices = self.prices or await pricer(self.store, self._settings())
        input_tokens = await self._input_tokens(request_context)
        asked = asked_max_tokens(request_context)
        found: Estimate | None = None
        for model in serving_models(request_context.model):
            output_tokens = asked or (
                prices.max_output_tokens(model.model_name, model.system, self.price_hint)
                or self._settings().default_max_output_tokens
            )
            usage = RequestUsage(input_tokens=input_tokens, output_tokens=output_tokens)
            price = prices.price(
                usage, model=model.model_name, provider=model.system, at=utcnow(), hint=self.price_hint
            )
            estimate = Estimate(input_tokens, output_tokens, price)
            if found is None or estimate.dearer_than(found):
                found = estimate
        assert found is not None
        return found

    async def _input_tokens(self, request_context: ModelRequestContext) -> int:
        if self.count_tokens:
            try:
                counted = await request_context.model.count_tokens(
                    request_context.messages,
                    request_context.model_settings,
                    request_context.model_request_parameters,
                )
                if counted.input_tokens:
                    return counted.input_tokens
            except NotImplementedError:
                pass  # this model cannot count tokens: the estimate below stands in
            except Exception:
                logger.warning('counting tokens failed; estimating them from characters', exc_info=True)
        return estimated_input_tokens(request_context.messages, request_context.model_request_parameters)

    # -- settling ------------------------------------------------------------------------------

    def settled(self, row: dict[str, Any]) -> str | None:
        """A ledger row is being written for the current request: the reservation to delete with it."""
        self._settled.append(row)
        held, self._held = self._held, None
        return held

    async def flush(self) -> None:
        """Tell the usage recorder about the ledger rows written since the last flush."""
        rows, self._settled = self._settled, []
        credits = self._usage_recorder() if rows else None
        if credits is None:
            return
        for row in rows:
            await record(credits, UsageCall.after(row))

    async def _write_ledger(
        self, ctx: RunContext[Any], response: ModelResponse, requested: tuple[Requested, ...]
    ) -> None:
        usage = response.usage
        prices = self.prices or await pricer(self.store, self._settings())
        price = prices.price(
            usage,
            model=response.model_name,
            provider=response.provider_name,
            at=utcnow(),
            hint=self.price_hint,
            known_cost=Decimal(usage.cost) if usage.cost is not None else None,
            provider_url=response.provider_url,
            ask_genai=False,
            requested=requested,
        )
        row = ledger_row(
            response,
            price,
            run_id=self._run_id(ctx),
            conversation_id=self.conversation_id,
            module=self.module,
            subject=self._subject(ctx),
            duration_ms=round((time.perf_counter() - self._started) * 1000) if self._started else None,
            parent_run_id=self.parent_run_id,
        )
        if self.on_row is not None:
            self.on_row(row)
        settle = partial(limits.settle, ledger_row=row, reservation_id=self.settled(row))
        if self.writes is not None:
            self.writes.submit(settle)
        else:
            await anyio.to_thread.run_sync(_in_transaction, self.store, settle)

    def _release(self) -> None:
        held, self._held = self._held, None
        if held is not None:
            self._submit(partial(limits.release, reservation_id=held))

    def _submit(self, op: Callable[[Connection], None]) -> None:
        """A write nobody waits for: on the queue, else in a thread of its own transaction."""
        if self.writes is not None:
            self.writes.submit(op)
            return
        asyncio.get_running_loop().run_in_executor(None, _in_transaction, self.store, op)

    async def _decide(self, request: limits.Request) -> limits.Decision:
        settings = self._settings()
        decide = partial(limits.reserve, request=request, settings=settings)
        if self.writes is not None and self.store.dialect == 'sqlite':
            # One writer per process on SQLite: the queue's transaction holds the write lock.
            return await self.writes.run(decide)
        if self.writes is not None:
            # The turn's earlier requests (its nested runs' included) may still be queued, their
            # reservations (worst cases) not yet replaced by their (cheaper) ledger rows. Judged
            # against those the call may pass, never overspend; should it be refused, they are
            # committed first and the call judged again, so a refusal is never due to them.
            provisional = partial(limits.reserve, request=request, settings=settings, final=False)
            try:
                return await anyio.to_thread.run_sync(_in_transaction, self.store, provisional)
            except limits.WouldRefuse:
                await self.writes.run(_nothing)
        return await anyio.to_thread.run_sync(_in_transaction, self.store, decide)

    # -- helpers -------------------------------------------------------------------------------

    def _settings(self) -> Settings:
        if self.settings is None:
            self.settings = Settings()
        return self.settings

    def _usage_recorder(self) -> UsageRecorder | None:
        return self.usage_recorder or load_usage_recorder(self._settings().usage_recorder)

    def _subject(self, ctx: RunContext[Any]) -> limits.Subject:
        scope = Scope.of(ctx)
        agent = self.agent or (ctx.agent.name if ctx.agent is not None else None)
        return limits.Subject(
            tenant=self.tenant or scope.label('tenant'),
            user=self.user or scope.label('actor'),
            agent=agent,
            preset=self.preset,
        )

    def _run_id(self, ctx: RunContext[Any]) -> str | None:
        return self.run_id or ctx.run_id

    def _unpriced(self, request_context: ModelRequestContext) -> None:
        if self._noticed or self.notify is None:
            return
        self._noticed = True

        name = request_context.model.model_name
        self.notify(
            Notice(
                kind='unpriced',
                message=f'No price is known for {name}: its calls are not held to spending limits.',
                data={'model': name, 'provider': request_context.model.system},
            )
        )


def ledger_row(
    response: ModelResponse,
    price: PricedCall,
    *,
    run_id: str | None,
    conversation_id: str | None,
    module: str,
    subject: limits.Subject,
    duration_ms: int | None,
    parent_run_id: str | None = None,
    created_at: datetime | None = None,
) -> dict[str, Any]:
    """The `llm_calls` row of one model response."""
    usage = response.usage
    return {
        'id': new_id(),
        'run_id': run_id,
        'parent_run_id': parent_run_id,
        'conversation_id': conversation_id,
        'module': module,
        'agent_key': subject.agent,
        'provider': response.provider_name,
        'model': response.model_name,
        'input_tokens': usage.input_tokens,
        'output_tokens': usage.output_tokens,
        'cache_read_tokens': usage.cache_read_tokens,
        'cache_write_tokens': usage.cache_write_tokens,
        'reasoning_tokens': usage.output_reasoning_tokens,
        **price.columns(),
        'duration_ms': duration_ms,
        'user': subject.user,
        'tenant': subject.tenant,
        'preset': subject.preset,
        'created_at': created_at or utcnow(),
    }


def _exceeded(refusal: limits.Refusal) -> SpendingLimitExceeded:
    limit = refusal.limit
    return SpendingLimitExceeded(
        limit_id=limit.id,
        scope=limit.scope,
        scope_id=limit.scope_id,
        period=limit.period,
        amount=limit.amount,
        currency=limit.currency,
        consumed=refusal.consumed,
        estimated=refusal.estimated,
    )


def _retrieved(answer: asyncio.Future[bool]) -> None:
    if not answer.cancelled():
        answer.exception()


def _nothing(_connection: Connection) -> None:
    """A write that writes nothing: waiting for it waits for everything queued before it."""


def _in_transaction(store: Store, op: Callable[[Connection], Any]) -> Any:
    """Run `op` in a write transaction of its own (`BEGIN IMMEDIATE` on SQLite)."""
    with writer(store.engine).begin() as connection:
        return op(connection)
