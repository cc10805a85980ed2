"""Currencies Synapse cannot convert: which ones lack a rate, and what that means for the ledger.

A call priced in a currency that is not the reference one and has no `currency_rates` entry keeps
its cost in that currency and has no reference cost: the spend report and a turn's cost count it as
unpriced, and a limit in another currency leaves it out, until a rate is set (from then on both
convert it with that rate). Storing such a price answers `rate_warning`; the spend report lists the
currencies (`missing_rates`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from sqlalchemy import select

from ..registry.tables import ModelPrice
from .pricing import GENAI_CURRENCY

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from ..settings import Settings


def missing_rates(currencies: Iterable[str | None], settings: Settings) -> list[str]:
    """The currencies among `currencies` that cannot be converted to the reference one, sorted.

    A currency of None is genai-prices' (USD), as on ledger rows that name none."""
    codes = {code or GENAI_CURRENCY for code in currencies}
    return sorted(
        code for code in codes if code != settings.reference_currency and code not in settings.currency_rates
    )


def rate_warning(currencies: Iterable[str | None], settings: Settings) -> str | None:
    """What storing prices in `currencies` means when some have no rate; None when all convert."""
    missing = missing_rates(currencies, settings)
    if not missing:
        return None
    them = 'it' if len(missing) == 1 else 'them'
    return (
        f'no exchange rate for {", ".join(missing)} to {settings.reference_currency}: calls priced with '
        f'{them} count as unpriced in the spend report and in turn costs, and limits in another currency '
        f'leave them out, until currency_rates gives one'
    )


def price_currencies(session: Session) -> list[str]:
    """Every currency a registry price is in."""
    return list(session.scalars(select(ModelPrice.currency).distinct()))
