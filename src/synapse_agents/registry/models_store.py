"""Models and their prices: create, change, delete, add a price; listings with the price in force.

A model is served by a registry provider (its key) or by a pydantic-ai provider (`openai`,
`anthropic`, ...). Its key is `provider:name` style and defaults to exactly that. Prices are kept
by `valid_from`: the newest that has started is in force. Blocking: call from a thread.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from pydantic import TypeAdapter, ValidationError
from sqlalchemy import delete as sql_delete
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..store import Store
from ..store.schema import utcnow
from .entries import assign, current, exists, found, in_use, insert, not_found, parse, same_key
from .errors import Duplicate, invalid_field
from .fields import ModelKey
from .prices import price_cache
from .responses import RegistryModel as ModelAnswer
from .schemas import ModelInput, ModelPatch, PriceInput
from .tables import ModelPrice, Preset, Provider, RegistryModel

FIELDS = ('provider_key', 'name', 'label', 'context_window', 'max_output_tokens', 'meta', 'enabled')
"""What a PATCH may change."""

_MODEL_KEY: TypeAdapter[str] = TypeAdapter(ModelKey)


def known_provider(name: str) -> bool:
    """Whether pydantic-ai knows a provider by this name (`openai`, `ollama`, `openrouter`, ...)."""
    from pydantic_ai.providers import infer_provider_class

    try:
        infer_provider_class(name)
    except ValueError:
        return False
    except ImportError:  # known, its extra is not installed
        return True
    return True


def _check_provider(session: Session, provider_key: str) -> None:
    if not exists(session, Provider, provider_key) and not known_provider(provider_key):
        raise invalid_field(
            'body.provider_key',
            f'no registry provider and no pydantic-ai provider is called {provider_key!r}',
        )


def _model_key(entry: ModelInput) -> str:
    if entry.key is not None:
        return entry.key
    key = f'{entry.provider_key}:{entry.name}'
    try:
        _MODEL_KEY.validate_python(key)
    except ValidationError:
        raise invalid_field(
            'body.key',
            f'{key!r} cannot be a model key: give one (letters, digits and ._:@+- after the colon)',
        ) from None
    return key


def _price(model_key: str, price: PriceInput) -> ModelPrice:
    return ModelPrice(
        model_key=model_key,
        input_per_mtok=price.input_per_mtok,
        output_per_mtok=price.output_per_mtok,
        cache_read_per_mtok=price.cache_read_per_mtok,
        cache_write_per_mtok=price.cache_write_per_mtok,
        currency=price.currency,
        valid_from=price.valid_from or utcnow(),
        created_at=utcnow(),
    )


def create(store: Store, data: ModelInput | Mapping[str, Any]) -> RegistryModel:
    """Add a model with the prices given; `Duplicate` when its key is taken."""
    entry = parse(ModelInput, data)
    key = _model_key(entry)
    prices = [_price(key, price) for price in entry.prices]
    if len({price.valid_from for price in prices}) != len(prices):
        raise invalid_field('body.prices', 'two prices start at the same valid_from')
    with store.read() as session:
        _check_provider(session, entry.provider_key)
    row = RegistryModel(
        key=key,
        **{name: getattr(entry, name) for name in FIELDS},
        created_at=utcnow(),
        updated_at=utcnow(),
    )
    created = insert(store, row, *prices)
    _prices_changed(store)
    return created


def update(store: Store, key: str, data: ModelPatch | Mapping[str, Any]) -> RegistryModel:
    """Change a model's fields (not its key, not its prices)."""
    patch = parse(ModelPatch, data)
    same_key(key, patch.key)
    changes = patch.changes()
    with store.write() as session:
        row = found(session, RegistryModel, key)
        merged = parse(ModelInput, {'key': key, **current(row, FIELDS), **changes})
        if 'provider_key' in changes:
            _check_provider(session, merged.provider_key)
        if assign(row, {name: getattr(merged, name) for name in FIELDS}):
            row.updated_at = utcnow()
    _prices_changed(store)
    return row


def delete(store: Store, key: str) -> None:
    """Remove a model and its prices; refused (409) while presets name it."""
    with store.write() as session:
        row = found(session, RegistryModel, key)
        users = list(session.scalars(select(Preset.key).where(Preset.model == key)))
        if users:
            raise in_use(RegistryModel, key, users, 'the presets')
        session.execute(sql_delete(ModelPrice).where(ModelPrice.model_key == key))
        session.delete(row)
    _prices_changed(store)


def add_price(store: Store, key: str, data: PriceInput | Mapping[str, Any]) -> ModelPrice:
    """Add a price to a model; `Duplicate` when one starts at the same `valid_from`."""
    price = _price(key, parse(PriceInput, data))
    duplicate = Duplicate(f'The model {key!r} has a price from {price.valid_from.isoformat()} already.')
    try:
        with store.write() as session:
            found(session, RegistryModel, key)
            taken = session.scalars(
                select(ModelPrice.id).where(
                    ModelPrice.model_key == key, ModelPrice.valid_from == price.valid_from
                )
            ).first()
            if taken is not None:
                raise duplicate
            session.add(price)
    except IntegrityError as exc:
        raise duplicate from exc
    _prices_changed(store)
    return price


def _prices_changed(store: Store) -> None:
    """This process prices its next model call with the registry as it now is (other processes
    within the price cache's few seconds)."""
    price_cache(store).forget()


def answers(store: Store, rows: Sequence[RegistryModel], now: datetime | None = None) -> list[ModelAnswer]:
    """The API's view of these models: each with its prices (one query for all)."""
    keys = [row.key for row in rows]
    by_model: dict[str, list[ModelPrice]] = defaultdict(list)
    if keys:
        query = select(ModelPrice).where(ModelPrice.model_key.in_(keys)).order_by(ModelPrice.valid_from)
        with store.read() as session:
            for price in session.scalars(query):
                by_model[price.model_key].append(price)
    moment = now or utcnow()
    return [ModelAnswer.of(row, by_model[row.key], moment) for row in rows]


def answer(store: Store, key: str) -> ModelAnswer:
    """One model as the API shows it; `NotFound` for an unknown key."""
    with store.read() as session:
        row = session.scalars(select(RegistryModel).where(RegistryModel.key == key)).one_or_none()
        if row is None:
            raise not_found(RegistryModel, key)
        session.expunge(row)
    return answers(store, [row])[0]
