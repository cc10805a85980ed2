"""Turning a run's messages, usage and errors into what Synapse stores and streams."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pydantic_ai.exceptions import ModelHTTPError, UsageLimitExceeded
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    NativeToolReturnPart,
)
from pydantic_ai.usage import RunUsage

from ..errors import SpendingError
from ..events import ERROR_OUTCOMES
from ..provider_errors import quota_exhausted
from ..store.write_queue import store_error_text
from .attachments import strip_binary

_RECOVERABLE_STATUS = {408, 409, 425, 429}


def native_tool_status(part: NativeToolReturnPart) -> str:
    """Synapse's status for a native tool result: `success`, `error` or `interrupted`."""
    if part.outcome in ERROR_OUTCOMES:
        return 'error'
    if part.outcome == 'interrupted':
        return 'interrupted'
    return 'success'


class TurnNotSaved(RuntimeError):
    """The store could not write the turn (or part of it): the stream's error card says why."""

    def __init__(
        self, cause: BaseException, *, partly: bool = False, run_error: BaseException | None = None
    ) -> None:
        what = 'Part of this turn' if partly else 'This turn'
        message = f'{what} could not be saved: {store_error_text(cause)}'
        if run_error is not None:
            message += f' (the run had failed: {type(run_error).__name__}: {run_error})'
        super().__init__(message)


def is_recoverable(error: BaseException) -> bool:
    """Whether trying again may succeed: rate limits, timeouts, overloaded or failing servers, and
    a store that could not write (once it has room again); never a provider's exhausted quota."""
    if isinstance(error, UsageLimitExceeded | SpendingError):
        return False  # a spending limit or the app's credits: trying again is refused again
    if isinstance(error, TurnNotSaved):
        return True
    if quota_exhausted(error):
        return False  # the plan or credit at the provider is used up: not a passing rate limit
    if isinstance(error, ModelHTTPError):
        return error.status_code in _RECOVERABLE_STATUS or error.status_code >= 500
    return isinstance(error, TimeoutError | ConnectionError)


def usage_summary(usage: RunUsage | None) -> dict[str, int]:
    """The usage block of `messageMetadata`."""
    if usage is None:
        usage = RunUsage()
    return {
        'input_tokens': usage.input_tokens,
        'output_tokens': usage.output_tokens,
        'cache_read_tokens': usage.cache_read_tokens,
        'cache_write_tokens': usage.cache_write_tokens,
        'reasoning_tokens': usage.output_reasoning_tokens,
        'requests': usage.requests,
        'tool_calls': usage.tool_calls,
    }


def cost_number(cost: Decimal | None) -> float | None:
    """A cost as the wire sends it: a JSON number (a `Decimal` would be encoded as a string).

    A float prints the decimal it came from for up to 15 significant digits, which any price has.
    """
    return float(cost) if cost is not None else None


def dump_messages(messages: list[ModelMessage]) -> list[Any]:
    """`model_messages` for the store: pydantic-ai's JSON form without the uploaded bytes."""
    dumped: list[Any] = ModelMessagesTypeAdapter.dump_python(messages, mode='json')
    return strip_binary(dumped)
