"""Prices at call time: what one model call cost, in its currency and in the reference currency.

A call is priced by the registry when its model is a registry model with a price in force at the
call's time (`registry/prices.py`): `price_source='registry'`, in the price's currency, and
`price_version='<price id>@<valid_from>'`. Otherwise genai-prices prices it: `'genai-prices'`, USD,
and `price_version` is the package's version (`0.2.3`), with the time of its data snapshot when the
data was updated at run time (`0.2.3@2026-05-01T10:00:00Z`). A call neither knows is unpriced:
cost, currency, reference cost, source and version are all None, never 0.

A request's worst case (`Estimate`, what a spending limit reserves) is priced the same way, for
its input tokens and the most output tokens it may produce (`estimated_input_tokens` when the
model cannot count them; `asked_max_tokens`).

The reference cost is the cost in `reference_currency`, converted with `currency_rates` (what one
unit of a currency is worth in the reference one); a cost in a currency with no rate keeps its cost
and has no reference cost. Conversions are exact `Decimal` products; a conversion out of the
reference currency (into a limit's currency) divides, rounded to the ledger's 10 decimals.
"""

from __future__ import annotations

import json
import math
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from pydantic_ai.messages import (
    BinaryContent,
    FileUrl,
    ModelMessage,
    ModelRequest,
    TextContent,
    ToolCallPart,
    UploadedFile,
)
from pydantic_ai.models import Model, ModelRequestContext
from pydantic_ai.models.fallback import FallbackModel
from pydantic_ai.models.wrapper import WrapperModel
from sqlalchemy import select

from ..registry.prices import REGISTRY_SOURCE, PriceBook, PricedModel, cost_of, price_cache
from ..registry.tables import ModelPrice, RegistryModel
from ..settings import Settings
from ..store.schema import COST_SCALE

if TYPE_CHECKING:
    from ..store import Store

GENAI_SOURCE = 'genai-prices'
GENAI_CURRENCY = 'USD'
"""genai-prices' prices are in US dollars."""
_QUANTUM = Decimal(1).scaleb(-COST_SCALE)


@dataclass(frozen=True)
class PricedCall:
    """One model call's price: None cost means unpriced (and then every other field is None too)."""

    cost: Decimal | None = None
    currency: str | None = None
    cost_reference: Decimal | None = None
    """The cost in `reference_currency` (None when the currency has no rate)."""
    reference_currency: str | None = None
    price_source: str | None = None
    """`registry` or `genai-prices`."""
    price_version: str | None = None

    @property
    def priced(self) -> bool:
        return self.cost is not None

    def columns(self) -> dict[str, Any]:
        """The ledger's price columns."""
        return {
            'cost': self.cost,
            'currency': self.currency,
            'cost_reference': self.cost_reference,
            'reference_currency': self.reference_currency,
            'price_source': self.price_source,
            'price_version': self.price_version,
        }


UNPRICED = PricedCall()


# -- currencies --------------------------------------------------------------------------------


def reference_amount(amount: Decimal, currency: str | None, settings: Settings) -> Decimal | None:
    """`amount` of `currency` in the reference currency (None: the currency has no rate).

    A currency of None is genai-prices' (USD), as on ledger rows written before costs named one."""
    code = currency or GENAI_CURRENCY
    if code == settings.reference_currency:
        return amount
    rate = settings.currency_rates.get(code)
    return None if rate is None else amount * rate


def convert(amount: Decimal, currency: str | None, to: str, settings: Settings) -> Decimal | None:
    """`amount` of `currency` in `to` (through the reference currency; None: a rate is missing)."""
    if (currency or GENAI_CURRENCY) == to:
        return amount
    reference = reference_amount(amount, currency, settings)
    if reference is None:
        return None
    if to == settings.reference_currency:
        return reference
    rate = settings.currency_rates.get(to)
    return None if rate is None else (reference / rate).quantize(_QUANTUM)


def _priced(cost: Decimal, currency: str, source: str, version: str | None, settings: Settings) -> PricedCall:
    reference = reference_amount(cost, currency, settings)
    return PricedCall(
        cost=cost,
        currency=currency,
        cost_reference=reference,
        reference_currency=settings.reference_currency if reference is not None else None,
        price_source=source,
        price_version=version,
    )


# -- genai-prices ------------------------------------------------------------------------------


def genai_version() -> str:
    """genai-prices' package version, with its data snapshot's time when that was updated at run time."""
    import genai_prices
    from genai_prices.data_snapshot import get_snapshot

    snapshot = get_snapshot()
    if not snapshot.from_auto_update:
        return genai_prices.__version__
    moment = snapshot.timestamp
    moment = moment.astimezone(UTC) if moment.tzinfo is not None else moment
    return f'{genai_prices.__version__}@{moment:%Y-%m-%dT%H:%M:%SZ}'


def genai_cost(
    usage: Any, model: str | None, provider: str | None, at: datetime, provider_url: str | None = None
) -> Decimal | None:
    """genai-prices' cost of `usage` on `model` at `at` (None: it does not know the model).

    The provider's API URL is the more precise match (resellers share model names), then its name."""
    if not model:
        return None
    from genai_prices import calc_price

    if provider_url:
        try:
            return Decimal(
                calc_price(
                    usage, model, provider_api_url=provider_url, genai_request_timestamp=at
                ).total_price
            )
        except (LookupError, ValueError):
            pass  # no price for this provider URL: look the model up by name below
    try:
        return Decimal(calc_price(usage, model, provider_id=provider, genai_request_timestamp=at).total_price)
    except (LookupError, ValueError):
        # An unknown model or provider, or usage it cannot price (more cached than input tokens).
        return None


# -- the worst case of a request ---------------------------------------------------------


CHARS_PER_TOKEN = 3
"""Characters per input token when the model cannot count them (tokenizers average about 4 for
English prose; 3 leaves room for code and other languages)."""
MEDIA_TOKENS = 1600
"""Input tokens assumed for one image, audio, video or document part."""


@dataclass(frozen=True)
class Estimate:
    """A request's worst case: its tokens and their price."""

    input_tokens: int
    output_tokens: int
    price: PricedCall

    def amount(self) -> tuple[Decimal, str] | None:
        """What to reserve: the reference cost, else the cost in its own currency (None: unpriced)."""
        if self.price.cost_reference is not None and self.price.reference_currency is not None:
            return self.price.cost_reference, self.price.reference_currency
        if self.price.cost is not None and self.price.currency is not None:
            return self.price.cost, self.price.currency
        return None

    def dearer_than(self, other: Estimate) -> bool:
        """Whether this is the worse case: priced beats unpriced, then the larger amount."""
        mine, theirs = self.amount(), other.amount()
        if mine is None or theirs is None:
            return theirs is None and mine is not None
        return mine[1] == theirs[1] and mine[0] > theirs[0]


def estimated_input_tokens(messages: Sequence[ModelMessage], parameters: Any = None) -> int:
    """The input tokens of a request, estimated from its characters (see `CHARS_PER_TOKEN`)."""
    chars = 0
    media = 0
    for message in messages:
        for part in message.parts:
            if isinstance(part, ToolCallPart):
                chars += len(part.tool_name) + len(part.args_as_json_str())
                continue
            content = getattr(part, 'content', None)
            if isinstance(content, str):
                chars += len(content)
            elif isinstance(content, list | tuple):
                for item in content:
                    if isinstance(item, str):
                        chars += len(item)
                    elif isinstance(item, TextContent):
                        chars += len(item.content)
                    elif isinstance(item, BinaryContent | FileUrl | UploadedFile):
                        media += 1
                    else:
                        chars += len(str(item))
            elif content is not None:
                chars += len(str(content))
    # The instructions sent are the request's (its parts), else the last request's own.
    parts = getattr(parameters, 'instruction_parts', None) or ()
    if parts:
        chars += sum(len(part.content) for part in parts)
    else:
        requests = [m for m in messages if isinstance(m, ModelRequest)]
        chars += len(requests[-1].instructions or '') if requests else 0
    if parameters is not None:
        for tool in [*parameters.function_tools, *parameters.output_tools]:
            chars += (
                len(tool.name) + len(tool.description or '') + len(json.dumps(tool.parameters_json_schema))
            )
    return math.ceil(chars / CHARS_PER_TOKEN) + media * MEDIA_TOKENS


def serving_models(model: Model) -> list[Model]:
    """The models that may serve a request: a fallback model's, a wrapper's wrapped one."""
    if isinstance(model, FallbackModel):
        return [found for candidate in model.models for found in serving_models(candidate)]
    if isinstance(model, WrapperModel):
        return serving_models(model.wrapped)
    return [model]


Requested = tuple[str | None, str | None]
"""A model a request was sent to: its name and its provider (pydantic-ai's `system`)."""


def requested_models(model: Model) -> tuple[Requested, ...]:
    """The models a request sent to `model` may be served by, as (name, provider)."""
    return tuple((found.model_name, found.system) for found in serving_models(model))


def _dearer(one: PricedCall, other: PricedCall) -> bool:
    """Whether `one` costs more than `other` (compared in the reference currency, else as is)."""
    if one.cost_reference is not None and other.cost_reference is not None:
        return one.cost_reference > other.cost_reference
    return one.currency == other.currency and (one.cost or 0) > (other.cost or 0)


def asked_max_tokens(request_context: ModelRequestContext) -> int | None:
    """The request's `max_tokens`: its model settings', then its model's own (None: not set)."""
    for settings in (request_context.model_settings, request_context.model.settings):
        value = (settings or {}).get('max_tokens')
        if isinstance(value, int) and value > 0:
            return value
    return None


# -- the registry's facts beyond its price book ------------------------------------------------


@dataclass(frozen=True)
class RegistryFacts:
    """What the price book leaves out: each price's id, each model's `max_output_tokens`."""

    price_ids: dict[tuple[str, datetime], str] = field(default_factory=dict)
    max_output_tokens: dict[str, int] = field(default_factory=dict)


def load_facts(store: Store) -> RegistryFacts:
    """Read the price ids and output caps (blocking)."""
    with store.read() as session:
        prices = session.execute(select(ModelPrice.id, ModelPrice.model_key, ModelPrice.valid_from)).all()
        caps = session.execute(select(RegistryModel.key, RegistryModel.max_output_tokens)).all()
    return RegistryFacts(
        {(key, _aware(valid_from)): price_id for price_id, key, valid_from in prices},
        {key: int(cap) for key, cap in caps if cap is not None},
    )


# -- a pricer: the prices at hand for a run ----------------------------------------------------


@dataclass(frozen=True)
class Pricer:
    """The registry's prices and genai-prices', with the settings that convert them."""

    settings: Settings
    book: PriceBook = field(default_factory=PriceBook)
    facts: RegistryFacts = field(default_factory=RegistryFacts)

    def registry_model(
        self, model: str | None, provider: str | None = None, hint: str | None = None
    ) -> PricedModel | None:
        return self.book.model_for(model, provider, hint)

    def price(
        self,
        usage: Any,
        *,
        model: str | None,
        provider: str | None,
        at: datetime,
        hint: str | None = None,
        known_cost: Decimal | None = None,
        provider_url: str | None = None,
        ask_genai: bool = True,
        requested: Sequence[Requested] = (),
    ) -> PricedCall:
        """The price of one call: the registry's in force at `at`, else genai-prices' (`known_cost`
        when pydantic-ai already worked it out; with `ask_genai` False, a response pydantic-ai could
        not price is not asked about again), else the price of the model the request was sent to
        (`requested`: a response whose own name matches nothing is priced as that model, the dearest
        of them for a fallback model), else unpriced."""
        found = self._price(usage, model, provider, at, hint, known_cost, provider_url, ask_genai)
        if found.priced:
            return found
        for name, system in requested:
            if name == model and system == provider:
                continue  # already looked up above
            candidate = self._price(usage, name, system, at, hint, None, None, True)
            if candidate.priced and (not found.priced or _dearer(candidate, found)):
                found = candidate
        return found

    def _price(
        self,
        usage: Any,
        model: str | None,
        provider: str | None,
        at: datetime,
        hint: str | None,
        known_cost: Decimal | None,
        provider_url: str | None,
        ask_genai: bool,
    ) -> PricedCall:
        moment = _aware(at)
        registry = self.registry_model(model, provider, hint)
        price = registry.in_force(moment) if registry is not None else None
        if registry is not None and price is not None:
            valid_from = _aware(price.valid_from)
            price_id = self.facts.price_ids.get((registry.key, valid_from), registry.key)
            version = f'{price_id}@{valid_from:%Y-%m-%dT%H:%M:%SZ}'
            return _priced(cost_of(usage, price), price.currency, REGISTRY_SOURCE, version, self.settings)
        cost = known_cost
        if cost is None and ask_genai:
            cost = genai_cost(usage, model, provider, moment, provider_url)
        if cost is None:
            return UNPRICED
        return _priced(cost, GENAI_CURRENCY, GENAI_SOURCE, genai_version(), self.settings)

    def max_output_tokens(
        self, model: str | None, provider: str | None = None, hint: str | None = None
    ) -> int | None:
        """The registry model's `max_output_tokens` (None: not a registry model, or it says none)."""
        found = self.registry_model(model, provider, hint)
        key = found.key if found is not None else hint
        return self.facts.max_output_tokens.get(key) if key else None


_FACTS: weakref.WeakKeyDictionary[Store, tuple[PriceBook, RegistryFacts]] = weakref.WeakKeyDictionary()
_FACTS_LOCK = threading.Lock()


def _facts_of(store: Store, book: PriceBook) -> RegistryFacts | None:
    """The facts kept for `book` (read again whenever the registry's cache reads a new book)."""
    with _FACTS_LOCK:
        kept = _FACTS.get(store)
    return kept[1] if kept is not None and kept[0] is book else None


def _remember(store: Store, book: PriceBook) -> RegistryFacts:
    facts = load_facts(store)
    with _FACTS_LOCK:
        _FACTS[store] = (book, facts)
    return facts


async def pricer(store: Store, settings: Settings) -> Pricer:
    """The prices at hand now; the database is read in a thread, at most every few seconds."""
    book = await price_cache(store).get()
    facts = _facts_of(store, book)
    if facts is None:
        facts = await anyio.to_thread.run_sync(_remember, store, book)
    return Pricer(settings, book, facts)


def blocking_pricer(store: Store, settings: Settings) -> Pricer:
    """`pricer`, from a thread."""
    cache = price_cache(store)
    book = cache.fresh() or cache.reload()
    return Pricer(settings, book, _facts_of(store, book) or _remember(store, book))


def price_call(
    store: Store,
    *,
    provider: str | None,
    model: str | None,
    usage: Any,
    at: datetime,
    settings: Settings | None = None,
    hint: str | None = None,
) -> PricedCall:
    """The price of one call made at `at` (blocking: call from a thread).

    `settings` give the reference currency and the rates (their defaults when left out: USD, none)."""
    if settings is None:
        settings = Settings()
    return blocking_pricer(store, settings).price(usage, model=model, provider=provider, at=at, hint=hint)


def _aware(moment: datetime) -> datetime:
    """A moment in UTC (the store returns SQLite's as naive UTC)."""
    return moment.astimezone(UTC) if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
