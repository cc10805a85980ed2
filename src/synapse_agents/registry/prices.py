"""Registry prices in the ledger: a registry model's price in force overrides genai-prices.

A ledger row (`llm_calls`) of a response whose model is a registry model with a price in force
at the time of the response costs

    (input - cache read - cache write) * input price + cache read * cache read price
    + cache write * cache write price + output * output price   (per million tokens, `Decimal`)

in the price's currency, with `price_source = 'registry'` (pydantic-ai's `input_tokens` include
the cached ones; a cache price left unset charges those tokens at the input price). A response of a
model the registry does not price keeps genai-prices' cost (`price_source = 'genai-prices'`, USD),
and one neither knows is unpriced: cost null, never 0.

Which registry model a response belongs to: the one the turn chose (its key is the turn's hint)
when the response names it, else the registry model whose name (or key) is the response's model
name, preferring the one whose provider is the response's provider; an ambiguous name is left to
genai-prices. The prices are read in a thread and kept for `PriceCache.TTL_S` seconds, so a turn
never reads the database on the event loop and a price stored meanwhile applies within seconds.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import anyio.to_thread
from sqlalchemy import select

from ..store import Store
from .tables import ModelPrice, RegistryModel

MILLION = Decimal(1_000_000)
REGISTRY_SOURCE = 'registry'


@dataclass(frozen=True)
class Price:
    """One stored price of a model, per million tokens."""

    input_per_mtok: Decimal
    output_per_mtok: Decimal
    cache_read_per_mtok: Decimal | None
    cache_write_per_mtok: Decimal | None
    currency: str
    valid_from: datetime


@dataclass(frozen=True)
class PricedModel:
    """A registry model with its prices, oldest first."""

    key: str
    provider_key: str
    name: str
    prices: tuple[Price, ...]

    def in_force(self, at: datetime) -> Price | None:
        """The newest price whose `valid_from` has passed at `at`."""
        found: Price | None = None
        for price in self.prices:
            if _aware(price.valid_from) <= at:
                found = price
        return found


@dataclass(frozen=True)
class Charge:
    """What the registry says a response cost."""

    cost: Decimal
    currency: str
    source: str = REGISTRY_SOURCE


def cost_of(usage: Any, price: Price) -> Decimal:
    """The cost of one response's usage (`RequestUsage`) at `price`."""
    read = int(usage.cache_read_tokens or 0)
    write = int(usage.cache_write_tokens or 0)
    uncached = int(usage.input_tokens or 0)
    total = Decimal(0)
    if price.cache_read_per_mtok is not None:
        uncached -= read
        total += read * price.cache_read_per_mtok
    if price.cache_write_per_mtok is not None:
        uncached -= write
        total += write * price.cache_write_per_mtok
    total += max(uncached, 0) * price.input_per_mtok
    total += int(usage.output_tokens or 0) * price.output_per_mtok
    return total / MILLION


@dataclass(frozen=True)
class PriceBook:
    """Every registry model that has a price, as read at one moment."""

    models: dict[str, PricedModel] = field(default_factory=dict)
    _by_name: dict[str, tuple[PricedModel, ...]] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, models: Sequence[PricedModel]) -> PriceBook:
        by_name: dict[str, list[PricedModel]] = {}
        for model in models:
            by_name.setdefault(model.name, []).append(model)
        return cls({m.key: m for m in models}, {name: tuple(found) for name, found in by_name.items()})

    def model_for(
        self, model_name: str | None, provider_name: str | None = None, hint: str | None = None
    ) -> PricedModel | None:
        """The registry model a response of `model_name` belongs to (see the module docstring)."""
        if not model_name:
            return None
        hinted = self.models.get(hint) if hint else None
        if hinted is not None and model_name in (hinted.name, hinted.key):
            return hinted
        candidates = self._by_name.get(model_name) or ()
        if not candidates and model_name in self.models:
            return self.models[model_name]
        if len(candidates) == 1:
            return candidates[0]
        same_provider = [m for m in candidates if provider_name and m.provider_key == provider_name]
        return same_provider[0] if len(same_provider) == 1 else None

    def charge(
        self,
        usage: Any,
        model_name: str | None,
        provider_name: str | None = None,
        *,
        hint: str | None = None,
        at: datetime | None = None,
    ) -> Charge | None:
        """The registry's cost of a response, or None when the registry does not price it."""
        model = self.model_for(model_name, provider_name, hint)
        if model is None:
            return None
        price = model.in_force(at or datetime.now(UTC))
        if price is None:
            return None
        return Charge(cost_of(usage, price), price.currency)


def load(store: Store) -> PriceBook:
    """Read every registry model that has a price, with its prices (blocking: call from a thread)."""
    with store.read() as session:
        rows = list(session.scalars(select(ModelPrice).order_by(ModelPrice.model_key, ModelPrice.valid_from)))
        if not rows:
            return PriceBook()
        models = {m.key: m for m in session.scalars(select(RegistryModel))}
    prices: dict[str, list[Price]] = {}
    for row in rows:
        prices.setdefault(row.model_key, []).append(
            Price(
                input_per_mtok=Decimal(row.input_per_mtok),
                output_per_mtok=Decimal(row.output_per_mtok),
                cache_read_per_mtok=_decimal(row.cache_read_per_mtok),
                cache_write_per_mtok=_decimal(row.cache_write_per_mtok),
                currency=row.currency or 'USD',
                valid_from=row.valid_from,
            )
        )
    return PriceBook.of(
        [
            PricedModel(key, model.provider_key, model.name, tuple(prices[key]))
            for key, model in models.items()
            if key in prices
        ]
    )


class PriceCache:
    """The price book of one store, read in a thread at most every `TTL_S` seconds."""

    TTL_S = 5.0

    def __init__(self, store: Store) -> None:
        self.store = store
        self._book: PriceBook | None = None
        self._read_at = 0.0
        self._lock = threading.Lock()

    def fresh(self) -> PriceBook | None:
        """The book when it was read less than `TTL_S` seconds ago (no I/O)."""
        if self._book is not None and time.monotonic() - self._read_at < self.TTL_S:
            return self._book
        return None

    async def get(self) -> PriceBook:
        """The current book: the kept one, or read again in a thread."""
        book = self.fresh()
        if book is not None:
            return book
        return await anyio.to_thread.run_sync(self.reload)

    def reload(self) -> PriceBook:
        """Read the book now (blocking)."""
        book = load(self.store)
        with self._lock:
            self._book, self._read_at = book, time.monotonic()
        return book

    def forget(self) -> None:
        """Read the book again on the next turn (after a price was stored in this process)."""
        with self._lock:
            self._book = None


_CACHES: weakref.WeakKeyDictionary[Store, PriceCache] = weakref.WeakKeyDictionary()
_CACHES_LOCK = threading.Lock()


def price_cache(store: Store) -> PriceCache:
    """The price cache of `store` (one per store object; a write of a price calls `forget()`)."""
    with _CACHES_LOCK:
        cache = _CACHES.get(store)
        if cache is None:
            cache = _CACHES[store] = PriceCache(store)
        return cache


def _decimal(value: Any) -> Decimal | None:
    return None if value is None else Decimal(value)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
