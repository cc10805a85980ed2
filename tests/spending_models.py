"""Priced models for the spending tests: `FunctionModel`s whose every call costs a known amount.

The registry prices `acme-1` at 0 per input token and `OUTPUT_PER_MTOK` per million output tokens;
the model streams `OUTPUT_TOKENS` one-token words, and its agent asks for at most that many
(`max_tokens`), so a call's worst case is exactly what it costs: `CALL_COST`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, FunctionModel
from sqlalchemy import select

from synapse_agents.accounting.tables import SpendingLimit
from synapse_agents.registry.prices import price_cache
from synapse_agents.registry.tables import ModelPrice, RegistryModel
from synapse_agents.store import Store

PRICED = 'acme-1'
OUTPUT_TOKENS = 100
OUTPUT_PER_MTOK = Decimal('1000')
CALL_COST = Decimal('0.1')
"""100 output tokens at 1000 per million."""


def add_price(
    store: Store,
    *,
    name: str = PRICED,
    output_per_mtok: Decimal = OUTPUT_PER_MTOK,
    input_per_mtok: Decimal = Decimal(0),
    currency: str = 'USD',
    max_output_tokens: int | None = None,
    valid_from: datetime | None = None,
) -> str:
    """A registry model `acme:<name>` with one price in force; the price's id."""
    price = ModelPrice(
        model_key=f'acme:{name}',
        input_per_mtok=input_per_mtok,
        output_per_mtok=output_per_mtok,
        currency=currency,
        valid_from=valid_from or datetime.now(UTC) - timedelta(days=1),
    )
    with store.write() as session:
        if not session.scalar(select(RegistryModel.id).where(RegistryModel.key == f'acme:{name}')):
            session.add(
                RegistryModel(
                    key=f'acme:{name}', provider_key='acme', name=name, max_output_tokens=max_output_tokens
                )
            )
        session.add(price)
        session.flush()
        price_id = price.id
    price_cache(store).forget()
    return price_id


def add_limit(
    store: Store,
    scope: str,
    scope_id: str,
    amount: str | Decimal,
    *,
    period: str = 'calendar_day',
    currency: str = 'USD',
    timezone: str = 'UTC',
) -> SpendingLimit:
    limit = SpendingLimit(
        scope=scope,
        scope_id=scope_id,
        period=period,
        amount=Decimal(amount),
        currency=currency,
        timezone=timezone,
    )
    with store.write() as session:
        session.add(limit)
    return limit


def priced_model(
    words: int = OUTPUT_TOKENS,
    *,
    name: str = PRICED,
    before: Callable[[], Any] | None = None,
    calls: list[int] | None = None,
) -> FunctionModel:
    """Streams `words` one-token words as `name`; `before()` runs (and is awaited) first, each call is
    counted in `calls`."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        if calls is not None:
            calls.append(1)
        if before is not None:
            result = before()
            if asyncio.iscoroutine(result):
                await result
        for _ in range(words):
            yield 'tok '

    return FunctionModel(stream_function=stream, model_name=name)


def priced_agent(
    model: Any = None, *, max_tokens: int | None = OUTPUT_TOKENS, **kwargs: Any
) -> Agent[None, str]:
    """An agent on `model` (a `priced_model()` by default) that asks for at most `max_tokens`."""
    settings: Any = {'max_tokens': max_tokens} if max_tokens is not None else None
    return Agent(model or priced_model(), name='priced', model_settings=settings, **kwargs)


def rows(store: Store, model: Any, **where: Any) -> list[Any]:
    with store.read() as session:
        query = select(model)
        for key, value in where.items():
            query = query.where(getattr(model, key) == value)
        return list(session.scalars(query.order_by(model.id)))


class Credits:
    """An app's credit system for the tests: a balance per tenant, and what it was told."""

    def __init__(self) -> None:
        self.reset()

    def reset(self, balance: Decimal = Decimal(1)) -> None:
        self.balance = balance
        self.asked: list[Any] = []
        self.recorded: list[Any] = []

    async def has_credits(self, call: Any) -> bool:
        self.asked.append(call)
        return (call.cost_reference or Decimal(0)) <= self.balance

    def record(self, call: Any) -> None:  # a plain method: run in a thread
        self.recorded.append(call)
        self.balance -= call.cost_reference or Decimal(0)


CREDITS = Credits()
"""What `usage_recorder = 'spending_models:CREDITS'` names (reset it first)."""
