"""The worst case one call may reserve under a limit: what the dashboard shows beside each limit.

Before a model request, `Spending` reserves the request's worst case: its input tokens plus the
most output tokens it may produce (`max_tokens` of its settings, else the registry model's
`max_output_tokens`, else the `default_max_output_tokens` setting), at the prices in force now.
The input tokens depend on the conversation, so the figure shown here is the part known before any
call: the most output tokens at the output price, for the models the limit's calls run on.

- An agent limit: the agent's own model (a discovered agent's, a configured agent's preset's; for
  a fallback model, its dearest model that has a price).
- A preset limit: the preset's model and `max_tokens`.
- A tenant or user limit: any agent may be called, so the largest among every discovered and
  configured agent (the one named in `agent`).

Priced beats unpriced (a call with no known price reserves nothing); the amount is in the limit's
currency (None when no rate converts it). Blocking: call from a thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from pydantic_ai.models import Model
from pydantic_ai.usage import RequestUsage
from sqlalchemy import select

from ..registry.tables import AgentConfig, Preset, RegistryModel
from ..store.schema import utcnow
from .pricing import Pricer, blocking_pricer, convert, serving_models
from .tables import SpendingLimit

if TYPE_CHECKING:
    from ..discovery import Catalog
    from ..settings import Settings
    from ..store import Store

CONFIG_PREFIX = 'config:'
"""The ledger's key of a configured agent: `config:<key>` (`registry.agents_runtime`)."""


@dataclass(frozen=True)
class Served:
    """One model a call may run on, with the output tokens its settings allow (None: not set)."""

    model: str
    """The model's name (pydantic-ai's `model_name`), or a registry model's key."""
    provider: str | None = None
    hint: str | None = None
    """A registry model's key (the price hint a configured agent's turn uses)."""
    max_tokens: int | None = None


@dataclass(frozen=True)
class WorstCall:
    """The most one call's output may cost under a limit, and the agent and model behind it."""

    amount: Decimal | None
    """In the limit's currency; None when unpriced (or no rate converts the price)."""
    currency: str
    output_tokens: int
    model: str
    agent: str | None = None


@dataclass(frozen=True)
class Candidates:
    """The models each agent and preset runs on, read once for a listing of limits."""

    agents: dict[str, list[Served]]
    presets: dict[str, list[Served]]

    def of(self, limit: SpendingLimit) -> list[tuple[str | None, Served]]:
        """The (agent, model) pairs whose calls `limit` applies to."""
        if limit.scope == 'agent':
            return [(limit.scope_id, served) for served in self.agents.get(limit.scope_id, [])]
        if limit.scope == 'preset':
            return [(None, served) for served in self.presets.get(limit.scope_id, [])]
        return [(agent, served) for agent, models in self.agents.items() for served in models]


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _max_tokens(*settings: Any) -> int | None:
    for found in settings:
        if isinstance(found, dict) and (value := _int(found.get('max_tokens'))) is not None:
            return value
    return None


def _split(model_id: str) -> tuple[str, str | None]:
    """`openai:gpt-5` → (`gpt-5`, `openai`); an id with no provider → (id, None)."""
    provider, colon, name = model_id.partition(':')
    return (name, provider) if colon and name else (model_id, None)


def discovered_models(agent: Any, model_ref: Any) -> list[Served]:
    """The models a discovered agent runs on: its `Model` (a fallback's every one), else its id."""
    own = getattr(agent, 'model', None)
    settings = getattr(agent, 'model_settings', None)
    if isinstance(own, Model):
        return [
            Served(found.model_name, found.system, max_tokens=_max_tokens(settings, found.settings))
            for found in serving_models(own)
        ]
    if model_ref is None:
        return []
    ids = [model_ref.id, *model_ref.fallbacks]
    return [Served(*_split(model_id), max_tokens=_max_tokens(settings)) for model_id in ids]


def _preset_model(preset: Preset, models: dict[str, RegistryModel], extra: Any = None) -> Served:
    registry = models.get(preset.model)
    max_tokens = _int(preset.max_tokens) or _max_tokens(extra)
    if registry is not None:
        return Served(registry.name, registry.provider_key, hint=registry.key, max_tokens=max_tokens)
    name, provider = _split(preset.model)
    return Served(name, provider, max_tokens=max_tokens)


def candidates(store: Store, catalog: Catalog | None) -> Candidates:
    """The discovered agents' models, the configured agents' (their presets') and the presets'."""
    agents: dict[str, list[Served]] = {}
    if catalog is not None:
        for found in catalog.scan().agents:
            agents[found.slug] = discovered_models(found.agent, found.info.model)
    with store.read() as session:
        presets = {row.key: row for row in session.scalars(select(Preset))}
        keys = {preset.model for preset in presets.values()}
        models = {
            row.key: row for row in session.scalars(select(RegistryModel).where(RegistryModel.key.in_(keys)))
        }
        configs = list(session.scalars(select(AgentConfig).where(AgentConfig.is_sandbox.is_(False))))
        session.expunge_all()
    for config in configs:
        preset = presets.get(config.preset_key or '')
        extra = (config.spec or {}).get('model_settings')
        agents[CONFIG_PREFIX + config.key] = [] if preset is None else [_preset_model(preset, models, extra)]
    by_preset = {key: [_preset_model(preset, models)] for key, preset in presets.items()}
    return Candidates(agents, by_preset)


def _one(prices: Pricer, settings: Settings, served: Served, currency: str) -> tuple[Decimal | None, int]:
    """What `served`'s most output tokens cost, in `currency` (None: unpriced), and how many."""
    tokens = (
        served.max_tokens
        or prices.max_output_tokens(served.model, served.provider, served.hint)
        or settings.default_max_output_tokens
    )
    usage = RequestUsage(input_tokens=0, output_tokens=tokens)
    price = prices.price(usage, model=served.model, provider=served.provider, at=utcnow(), hint=served.hint)
    if price.cost is None or price.currency is None:
        return None, tokens
    return convert(price.cost, price.currency, currency, settings), tokens


def worst_call(
    prices: Pricer, settings: Settings, found: Candidates, limit: SpendingLimit
) -> WorstCall | None:
    """The largest output reservation among the models `limit` covers (None: it covers none known)."""
    best: WorstCall | None = None
    for agent, served in found.of(limit):
        amount, tokens = _one(prices, settings, served, limit.currency)
        shown = served.hint or (f'{served.provider}:{served.model}' if served.provider else served.model)
        here = WorstCall(amount, limit.currency, tokens, shown, agent)
        if best is None or _larger(here, best):
            best = here
    return best


def _larger(one: WorstCall, other: WorstCall) -> bool:
    if one.amount is None or other.amount is None:
        return other.amount is None and (one.amount is not None or one.output_tokens > other.output_tokens)
    return one.amount > other.amount


def worst_calls(
    store: Store, settings: Settings, catalog: Catalog | None, limits: Sequence[SpendingLimit]
) -> list[WorstCall | None]:
    """`worst_call` of each limit, the agents, presets and prices read once."""
    if not limits:
        return []
    found = candidates(store, catalog)
    prices = blocking_pricer(store, settings)
    return [worst_call(prices, settings, found, limit) for limit in limits]
