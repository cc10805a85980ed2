"""What a provider said when it refused a model request, in the words an error card shows.

pydantic-ai raises `ModelHTTPError` (a 4xx or 5xx answer) and other `ModelAPIError`s with the
status, the provider's error type and code, the `Retry-After` it sent (`retry_after`, seconds) and
the parsed body. `str()` of such an error is its repr-like summary (`status_code: 429, model_name:
..., body: {...}`); `provider_facts` picks out the parts a person reads, and `card_message` is the
provider's own message when it has one. The error may be the cause of another (a fallback model
that also failed, a wrapped error): the chain is followed.
"""

from __future__ import annotations

from typing import Any

from pydantic_ai.exceptions import ModelAPIError, ModelHTTPError

_MESSAGE_LIMIT = 2000


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


def provider_facts(error: BaseException) -> dict[str, Any] | None:
    """Status, the provider's error type and code, its message, Retry-After and the model, for a
    provider error (None for any other error)."""
    found = _api_error(error)
    if found is None:
        return None
    status = found.status_code if isinstance(found, ModelHTTPError) else None
    body = found.body if isinstance(found, ModelHTTPError) else None
    message = _body_message(body) if isinstance(found, ModelHTTPError) else found.message or None
    retry_after = found.retry_after
    return {
        'status': status,
        'type': found.provider_error_type or _body_field(body, 'type', 'status'),
        'code': found.provider_error_code or _body_field(body, 'code'),
        'message': str(message)[:_MESSAGE_LIMIT] if message else None,
        'retry_after': float(retry_after) if retry_after is not None and retry_after >= 0 else None,
        'model': found.model_name or None,
    }


def card_message(error: BaseException, fallback: str) -> str:
    """The line an error card leads with: the provider's message for a provider error."""
    facts = provider_facts(error)
    if facts is None or not facts['message']:
        return fallback
    status = f'{facts["status"]} ' if facts['status'] else ''
    return f'{status}{facts["message"]}'.strip()
