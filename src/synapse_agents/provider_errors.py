"""What a provider said when it refused a model request, in the words an error card shows.

pydantic-ai raises `ModelHTTPError` (a 4xx or 5xx answer) and other `ModelAPIError`s with the
status, the provider's error type and code, the `Retry-After` it sent (`retry_after`, seconds) and
the parsed body. `str()` of such an error is its repr-like summary (`status_code: 429, model_name:
..., body: {...}`); `provider_facts` picks out the parts a person reads, and `card_message` is the
provider's own message when it has one. The error may be the cause of another (a fallback model
that also failed, a wrapped error): the chain is followed.

`kind` tells a card what to offer: `rate_limited` (a 429 that passes: wait, then retry),
`quota_exhausted` (the plan or credit at the provider is used up: OpenAI's 429
`insufficient_quota`, a 402 Payment Required, a billing error such as Anthropic's "credit balance is
too low"; retrying cannot help, so no Retry-After is kept), `provider_error` for any other refusal,
and `spending_limit` for Synapse's own `SpendingLimitExceeded`, whose `limit` block carries the
limit, what is spent, the call's reservation (its worst case) and the headroom left.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pydantic_ai.exceptions import ModelAPIError, ModelHTTPError

from .errors import SpendingLimitExceeded

_MESSAGE_LIMIT = 2000

# Error types and codes providers use for a plan or credit that is used up (not a passing limit).
_QUOTA_CODES = frozenset(
    {
        'insufficient_quota',
        'billing_hard_limit_reached',
        'billing_not_active',
        'credit_balance_too_low',
        'payment_required',
        'insufficient_balance',
        'quota_exceeded',
    }
)
# Words of a billing error in a provider's message (Anthropic: "Your credit balance is too low").
_QUOTA_WORDS = (
    'credit balance',
    'insufficient_quota',
    'exceeded your current quota',
    'billing',
    'out of credit',
)


def _chain(error: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in seen and len(seen) < 10:
        seen.append(current)
        nested = getattr(current, 'exceptions', None)  # an exception group (every fallback failed)
        if isinstance(nested, tuple | list) and nested and isinstance(nested[-1], BaseException):
            current = nested[-1]
            continue
        current = current.__cause__ or current.__context__
    return seen


def _api_error(error: BaseException) -> ModelAPIError | None:
    for item in _chain(error):
        if isinstance(item, ModelAPIError):
            return item
    return None


def _body_message(body: Any) -> str | None:
    """The message in an error body: OpenAI's, Anthropic's, Google's, Mistral's shapes, or a string."""
    if isinstance(body, str):
        return body.strip() or None
    if not isinstance(body, dict):
        return None
    inner = body.get('error')
    if isinstance(inner, dict) and isinstance(inner.get('message'), str):
        return str(inner['message'])
    if isinstance(inner, str):
        return inner
    for key in ('message', 'detail'):
        if isinstance(body.get(key), str):
            return str(body[key])
    return None


def _body_field(body: Any, *keys: str) -> str | None:
    """The first of `keys` in the body's `error` object (or the body itself), as text."""
    if not isinstance(body, dict):
        return None
    inner = body.get('error')
    for source in (inner, body) if isinstance(inner, dict) else (body,):
        for key in keys:
            value = source.get(key)
            if isinstance(value, str | int) and not isinstance(value, bool) and value != 'error':
                return str(value)
    return None


def is_quota_exhausted(status: int | None, kind: str | None, code: str | None, message: str | None) -> bool:
    """Whether a provider's refusal says the plan or credit is used up (retrying cannot help)."""
    if status == 402:
        return True
    if {str(kind or '').lower(), str(code or '').lower()} & _QUOTA_CODES:
        return True
    text = (message or '').lower()
    return status in (400, 403, 429) and any(words in text for words in _QUOTA_WORDS)


def quota_exhausted(error: BaseException) -> bool:
    """Whether `error` (or its cause) is a provider saying the plan or credit is used up."""
    facts = provider_facts(error)
    return facts is not None and facts['kind'] == 'quota_exhausted'


def _limit_facts(error: SpendingLimitExceeded) -> dict[str, Any]:
    headroom = max(error.amount - error.consumed, Decimal(0))
    return {
        'status': None,
        'type': None,
        'code': None,
        'message': str(error),
        'retry_after': None,
        'model': None,
        'kind': 'spending_limit',
        'limit': {
            'id': error.limit_id,
            'scope': error.scope,
            'scope_id': error.scope_id,
            'period': error.period,
            'amount': str(error.amount),
            'currency': error.currency,
            'consumed': str(error.consumed),
            'reservation': str(error.estimated),
            'headroom': str(headroom),
        },
    }


def provider_facts(error: BaseException) -> dict[str, Any] | None:
    """Status, the provider's error type and code, its message, Retry-After, the model and the
    error's `kind`, for a provider error or a spending limit's refusal (None for any other error)."""
    for item in _chain(error):
        if isinstance(item, SpendingLimitExceeded):
            return _limit_facts(item)
    found = _api_error(error)
    if found is None:
        return None
    status = found.status_code if isinstance(found, ModelHTTPError) else None
    body = found.body if isinstance(found, ModelHTTPError) else None
    message = _body_message(body) if isinstance(found, ModelHTTPError) else found.message or None
    retry_after = found.retry_after
    error_type = found.provider_error_type or _body_field(body, 'type', 'status')
    code = found.provider_error_code or _body_field(body, 'code')
    if is_quota_exhausted(status, error_type, code, message):
        kind, retry_after = 'quota_exhausted', None
    else:
        kind = 'rate_limited' if status == 429 else 'provider_error'
    return {
        'status': status,
        'type': error_type,
        'code': code,
        'message': str(message)[:_MESSAGE_LIMIT] if message else None,
        'retry_after': float(retry_after) if retry_after is not None and retry_after >= 0 else None,
        'model': found.model_name or None,
        'kind': kind,
    }


def card_message(error: BaseException, fallback: str) -> str:
    """The line an error card leads with: the provider's message for a provider error."""
    facts = provider_facts(error)
    if facts is None or not facts['message']:
        return fallback
    status = f'{facts["status"]} ' if facts['status'] else ''
    return f'{status}{facts["message"]}'.strip()
