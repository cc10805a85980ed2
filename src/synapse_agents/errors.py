"""The errors spending control raises: a limit refused a model call, or the app's credits ran out.

Both are final: pydantic-ai never retries them (they are not `ModelHTTPError`s, and no retrying
transport or fallback model sees them), so the turn ends with an error card naming the cause. A
provider's 429 stays what it is, a retryable `ModelHTTPError`.
"""

from __future__ import annotations

import difflib
from decimal import Decimal


class UnknownAgent(LookupError):
    """No agent with that slug was discovered; the message names the closest known ones."""

    @classmethod
    def for_slug(cls, slug: str, known: list[str]) -> UnknownAgent:
        """The error for `slug`, naming up to three close `known` slugs (or the first ten)."""
        close = difflib.get_close_matches(slug, known, n=3, cutoff=0.4)
        if not close:
            # A slug is `module.name`: match on the last part too (`support` → `...support-agent`).
            tails = {k.rsplit('.', 1)[-1]: k for k in known}
            close = [tails[t] for t in difflib.get_close_matches(slug.rsplit('.', 1)[-1], list(tails), n=3)]
        if close:
            return cls(f'No agent with slug {slug!r}. Did you mean: {", ".join(repr(c) for c in close)}?')
        if known:
            return cls(
                f'No agent with slug {slug!r}. Known agents: {", ".join(repr(k) for k in known[:10])}.'
            )
        return cls(f'No agent with slug {slug!r}: discovery found no agents.')


class SpendingError(Exception):
    """A model call refused before it was made, for money reasons."""


class SpendingLimitExceeded(SpendingError):
    """A spending limit refused a model call: what was spent in its window plus the call's worst case
    would pass it. The message names the limit (scope, scope id, period, amount, currency), what was
    consumed and what the call was estimated at."""

    def __init__(
        self,
        *,
        limit_id: str | None,
        scope: str,
        scope_id: str,
        period: str,
        amount: Decimal,
        currency: str,
        consumed: Decimal,
        estimated: Decimal,
    ) -> None:
        self.limit_id = limit_id
        self.scope = scope
        self.scope_id = scope_id
        self.period = period
        self.amount = amount
        self.currency = currency
        self.consumed = consumed
        self.estimated = estimated
        super().__init__(
            f'Spending limit reached: {scope} {scope_id!r} may spend {_money(amount)} {currency} per '
            f'{period.replace("_", " ")}; {_money(consumed)} {currency} is spent or reserved, and this '
            f'model call could cost up to {_money(estimated)} {currency}.'
        )

    @property
    def overrun(self) -> Decimal:
        """By how much the call would pass the limit."""
        return self.consumed + self.estimated - self.amount


class OutOfCredits(SpendingError):
    """The app's own credit system (its `UsageRecorder`) said this call may not be made."""

    def __init__(self, message: str = 'Out of credits: the usage recorder refused this model call.') -> None:
        super().__init__(message)


def _money(amount: Decimal) -> str:
    """An amount without trailing zeros beyond two decimals: 5, 5.50, 0.0012."""
    text = format(amount.normalize(), 'f')
    if '.' not in text:
        return text
    whole, fraction = text.split('.')
    return f'{whole}.{fraction.ljust(2, "0")}'
