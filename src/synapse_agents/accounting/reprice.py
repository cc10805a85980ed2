"""Pricing past ledger rows again with the prices known now (`synapse spend reprice`).

Each row in the time range is priced by `pricing.price_call` as of its own `created_at`: the price
that was in force then, as the registry and genai-prices know it today (the registry model named
`provider:model` when several share the model's name), converted with today's rates. Only rows
whose cost changes are written, with the new currency, reference cost, price source and version;
a row for which no price is known now keeps what it has (a known cost is never replaced by none).
The rows are read and written in batches, so a long range holds no long transaction. Blocking.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from pydantic_ai.usage import RequestUsage
from sqlalchemy import select, update

from ..store.schema import COST_SCALE
from .pricing import price_call
from .tables import LlmCall

if TYPE_CHECKING:
    from ..settings import Settings
    from ..store import Store

BATCH = 500
"""Rows read, priced and written per transaction."""
_QUANTUM = Decimal(1).scaleb(-COST_SCALE)


@dataclass(frozen=True)
class PriceChange:
    """One ledger row whose cost changed: before and after."""

    id: str
    model: str | None
    old_cost: Decimal | None
    old_currency: str | None
    new_cost: Decimal
    new_currency: str
    source: str | None
    version: str | None


@dataclass
class RepriceResult:
    """What a reprice looked at and changed (or would, on a dry run)."""

    examined: int = 0
    unpriced: int = 0
    """Rows no price is known for now (left as they were)."""
    changes: list[PriceChange] = field(default_factory=list)


def reprice(
    store: Store,
    settings: Settings,
    date_from: datetime | None,
    date_to: datetime | None,
    *,
    dry_run: bool = False,
) -> RepriceResult:
    """Price the rows created in `[date_from, date_to)` again; write the changed ones unless `dry_run`."""
    result = RepriceResult()
    for rows in _batches(store, date_from, date_to):
        changed: list[tuple[PriceChange, dict[str, Any]]] = []
        for row in rows:
            result.examined += 1
            priced = price_call(
                store,
                provider=row.provider,
                model=row.model,
                usage=_usage(row),
                at=row.created_at,
                settings=settings,
                hint=f'{row.provider}:{row.model}' if row.provider and row.model else None,
            )
            if priced.cost is None:
                result.unpriced += 1
                continue
            cost = priced.cost.quantize(_QUANTUM)
            values = {**priced.columns(), 'cost': cost, 'cost_reference': _stored(priced.cost_reference)}
            if _same_price(row, values):
                continue
            change = PriceChange(
                id=row.id,
                model=row.model,
                old_cost=row.cost,
                old_currency=row.currency,
                new_cost=cost,
                new_currency=priced.currency or '',
                source=priced.price_source,
                version=priced.price_version,
            )
            changed.append((change, values))
        result.changes.extend(change for change, _values in changed)
        if changed and not dry_run:
            with store.write() as session:
                for change, values in changed:
                    session.execute(update(LlmCall).where(LlmCall.id == change.id).values(**values))
    return result


def _batches(store: Store, date_from: datetime | None, date_to: datetime | None) -> Iterator[Sequence[Any]]:
    """The range's rows in id order (the order they were written), `BATCH` at a time."""
    conditions = []
    if date_from is not None:
        conditions.append(LlmCall.created_at >= date_from)
    if date_to is not None:
        conditions.append(LlmCall.created_at < date_to)
    after: str | None = None
    while True:
        query = select(LlmCall).where(*conditions)
        if after is not None:
            query = query.where(LlmCall.id > after)
        with store.read() as session:
            rows = list(session.scalars(query.order_by(LlmCall.id).limit(BATCH)))
            session.expunge_all()
        if not rows:
            return
        yield rows
        after = rows[-1].id


def _usage(row: LlmCall) -> RequestUsage:
    return RequestUsage(
        input_tokens=row.input_tokens,
        output_tokens=row.output_tokens,
        cache_read_tokens=row.cache_read_tokens,
        cache_write_tokens=row.cache_write_tokens,
        output_reasoning_tokens=row.reasoning_tokens,
    )


def _same_price(row: LlmCall, values: dict[str, Any]) -> bool:
    """Whether the row already holds this price (cost and currency, reference cost and currency)."""
    return (row.cost, row.currency, row.cost_reference, row.reference_currency) == (
        values['cost'],
        values['currency'],
        values['cost_reference'],
        values['reference_currency'],
    )


def _stored(amount: Decimal | None) -> Decimal | None:
    """The amount as the ledger keeps it (10 decimal places), so an unchanged price compares equal."""
    return None if amount is None else amount.quantize(_QUANTUM)
