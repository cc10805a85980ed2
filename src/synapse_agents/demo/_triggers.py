"""The phrases that make the demo model fail like a real provider, or show a particular behaviour.

Errors are the exceptions pydantic-ai's own adapters raise: a ``ModelHTTPError`` that is also an
instance of its category (``ModelRateLimitError``, ``ModelAuthenticationError``, ...), built with
``ModelHTTPError.for_category`` so ``except ModelHTTPError`` and ``except ModelRateLimitError`` both
catch it. Only the latest user prompt is checked, so the next message in the conversation works.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic_ai.exceptions import (
    ModelAuthenticationError,
    ModelContextWindowExceededError,
    ModelHTTPError,
    ModelNotFoundError,
    ModelQuotaExceededError,
    ModelRateLimitError,
    ModelServerError,
    ModelUnavailableError,
)

from ._prompt import PromptFacts

ErrorCategory = type[
    ModelRateLimitError
    | ModelQuotaExceededError
    | ModelUnavailableError
    | ModelServerError
    | ModelContextWindowExceededError
    | ModelAuthenticationError
    | ModelNotFoundError
]


@dataclass(frozen=True)
class DemoTrigger:
    """Phrases (case-insensitive, hyphens read as spaces) and what they make the demo model do."""

    key: str
    """A stable identifier, e.g. ``'rate_limit'``."""
    phrases: tuple[str, ...]
    """Any of these in the user's prompt fires the trigger."""
    kind: Literal['error', 'mid_stream_error', 'behaviour']
    """``error``: the request fails before any output; ``mid_stream_error``: it fails after some text."""
    description: str
    """What happens, for the UI and the docs."""
    status_code: int | None = None
    """The HTTP status of the raised ``ModelHTTPError``, for error triggers."""
    error: str | None = None
    """The pydantic-ai exception category raised, for error triggers."""


DEMO_TRIGGERS: tuple[DemoTrigger, ...] = (
    DemoTrigger(
        'rate_limit', ('rate limit', 'rate limited', 'too many requests'), 'error',
        'Fails with HTTP 429 and a Retry-After of 20 seconds.', 429, 'ModelRateLimitError',
    ),
    DemoTrigger(
        'quota', ('quota exceeded', 'out of credits', 'insufficient quota'), 'error',
        'Fails with HTTP 402: the account has no credits left.', 402, 'ModelQuotaExceededError',
    ),
    DemoTrigger(
        'auth', ('auth error', 'authentication error', 'invalid key', 'invalid api key'), 'error',
        'Fails with HTTP 401: the API key was rejected.', 401, 'ModelAuthenticationError',
    ),
    DemoTrigger(
        'context_window', ('context window', 'context length'), 'error',
        'Fails with HTTP 400: the prompt exceeds the context window.', 400, 'ModelContextWindowExceededError',
    ),
    DemoTrigger(
        'model_not_found', ('model not found', 'unknown model'), 'error',
        'Fails with HTTP 404: the model does not exist.', 404, 'ModelNotFoundError',
    ),
    DemoTrigger(
        'unavailable', ('service unavailable', 'error 503'), 'error',
        'Fails with HTTP 503: the provider is overloaded.', 503, 'ModelUnavailableError',
    ),
    DemoTrigger(
        'server_error', ('server error', 'error 500'), 'error',
        'Fails with HTTP 500: the provider had an internal error.', 500, 'ModelServerError',
    ),
    DemoTrigger(
        'mid_stream', ('fail mid stream', 'fail midstream', 'mid stream failure', 'break the stream'),
        'mid_stream_error', 'Streams part of an answer, then fails with HTTP 500 (in_stream=True).',
        500, 'ModelServerError',
    ),
    DemoTrigger(
        'previous_message',
        (
            'what did i say', 'what did i ask', 'what did i write', 'previous message', 'last message',
            'earlier message', 'first message', 'previous question', 'do you remember',
        ),
        'behaviour', 'Quotes your previous message, or says there is none (stateless agents never have one).',
    ),
    DemoTrigger(
        'web_search', ('search the web', 'web search', 'search online', 'latest news'), 'behaviour',
        'On an agent with a native WebSearchTool: a native web search with canned offline results.',
    ),
    DemoTrigger(
        'all_tools', ('use all tools', 'use all your tools', 'call every tool'), 'behaviour',
        'Calls every function tool of the agent at once.',
    ),
)  # fmt: skip
"""Every trigger phrase the demo model reacts to, for the UI and the docs to list."""

_CATEGORIES: dict[str, ErrorCategory] = {
    'rate_limit': ModelRateLimitError,
    'quota': ModelQuotaExceededError,
    'auth': ModelAuthenticationError,
    'context_window': ModelContextWindowExceededError,
    'model_not_found': ModelNotFoundError,
    'unavailable': ModelUnavailableError,
    'server_error': ModelServerError,
    'mid_stream': ModelServerError,
}

_BODIES: dict[str, tuple[str, str, str]] = {
    'rate_limit': ('rate_limit_exceeded', 'rate_limit_error', 'Rate limit reached: 3 requests per minute.'),
    'quota': (
        'insufficient_quota',
        'billing_error',
        'You exceeded your current quota; add credits to continue.',
    ),
    'auth': ('invalid_api_key', 'authentication_error', 'Incorrect API key provided: sk-demo-****.'),
    'context_window': (
        'context_length_exceeded',
        'invalid_request_error',
        "This model's maximum context length is {window} tokens, but the request has {tokens} tokens.",
    ),
    'model_not_found': ('model_not_found', 'not_found_error', 'The model does not exist or you lack access.'),
    'unavailable': ('overloaded', 'overloaded_error', 'The demo provider is temporarily overloaded.'),
    'server_error': ('internal_error', 'api_error', 'The demo provider had an internal error.'),
    'mid_stream': (
        'stream_interrupted',
        'api_error',
        'The connection was lost while streaming the response.',
    ),
}


def find_trigger(
    facts: PromptFacts, kind: Literal['error', 'mid_stream_error', 'behaviour']
) -> DemoTrigger | None:
    """The first trigger of ``kind`` whose phrase the prompt contains."""
    for trigger in DEMO_TRIGGERS:
        if trigger.kind == kind and any(facts.mentions(phrase) for phrase in trigger.phrases):
            return trigger
    return None


def error_for(
    trigger: DemoTrigger, *, model_name: str, input_tokens: int = 0, context_window: int = 128_000
) -> ModelHTTPError:
    """The provider-style exception an error trigger raises."""
    assert trigger.status_code is not None, f'{trigger.key!r} is not an error trigger'
    code, error_type, message = _BODIES[trigger.key]
    message = message.format(window=context_window, tokens=max(input_tokens, context_window + 1))
    headers = {'retry-after': '20'} if trigger.key == 'rate_limit' else None
    return ModelHTTPError.for_category(
        _CATEGORIES[trigger.key],
        status_code=trigger.status_code,
        model_name=model_name,
        body={'error': {'type': error_type, 'code': code, 'message': f'{message} (synapse demo trigger)'}},
        headers=headers,
        provider_error_code=code,
        provider_error_type=error_type,
        in_stream=trigger.kind == 'mid_stream_error',
    )


def unavailable_error(model_name: str, status_code: int = 503) -> ModelHTTPError:
    """The error an always-failing demo model raises: a 503 (or ``status_code``) 'service unavailable'."""
    category: ErrorCategory = ModelUnavailableError if status_code in (502, 503, 529) else ModelServerError
    return ModelHTTPError.for_category(
        category,
        status_code=status_code,
        model_name=model_name,
        body={'error': {'type': 'overloaded_error', 'message': 'The demo primary model is unavailable.'}},
        provider_error_code='unavailable',
        provider_error_type='overloaded_error',
    )
