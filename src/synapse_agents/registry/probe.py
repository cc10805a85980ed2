"""A provider's test: one tiny real request ("Say OK", at most 5 tokens) through it.

The model is built the way configured agents build theirs (`providers.build_model`), so a test that
passes means an agent on that provider can answer. A failure is reported with the exception's
class and its own message, verbatim: what the provider (or the connection) said, with every secret
Synapse holds redacted (a provider may quote the key it was sent).
"""

from __future__ import annotations

import inspect
import time
from typing import Any

import anyio
from starlette.concurrency import run_in_threadpool

from ..encryption import SecretBox
from ..redaction import scrub
from ..store import Store
from .entries import not_found
from .providers import build_model
from .read import by_key
from .responses import ProviderTestError, ProviderTestResult
from .tables import Provider

PROMPT = 'Say OK'
MAX_TOKENS = 5
TIMEOUT_S = 30.0
"""How long the test request may take before it is reported as failed."""
MAX_CAUSES = 4
"""How many messages of an error's causes the answer quotes."""


def _error(exc: BaseException) -> ProviderTestError:
    """The exception's class and message, with the distinct messages of what caused it after it."""
    parts: list[str] = []
    current: BaseException | None = exc
    while current is not None and len(parts) < MAX_CAUSES:
        text = str(current).strip()
        if text and not any(text in part for part in parts):
            parts.append(text)
        current = current.__cause__ or current.__context__
    return ProviderTestError(class_=type(exc).__name__, message=scrub(': '.join(parts)) or type(exc).__name__)


async def _build(store: Store, box: SecretBox, provider_key: str, model_name: str) -> Any:
    built = await run_in_threadpool(build_model, store, box, provider_key, model_name)
    return await built if inspect.isawaitable(built) else built


async def say_ok(
    store: Store, box: SecretBox, provider_key: str, model_name: str, *, timeout_s: float = TIMEOUT_S
) -> ProviderTestResult:
    """Ask the provider's `model_name` to say OK; `NotFound` for an unknown provider."""
    from pydantic_ai.direct import model_request
    from pydantic_ai.messages import ModelRequest
    from pydantic_ai.settings import ModelSettings

    if await run_in_threadpool(by_key, store, Provider, provider_key) is None:
        raise not_found(Provider, provider_key)
    started = time.perf_counter()
    error: ProviderTestError | None = None
    try:
        with anyio.fail_after(timeout_s):
            model = await _build(store, box, provider_key, model_name)
            await model_request(
                model,
                [ModelRequest.user_text_prompt(PROMPT)],
                model_settings=ModelSettings(max_tokens=MAX_TOKENS),
            )
    except TimeoutError:
        error = ProviderTestError(class_='TimeoutError', message=f'No answer within {timeout_s:g} seconds.')
    except Exception as exc:
        error = _error(exc)
    duration_ms = round((time.perf_counter() - started) * 1000)
    return ProviderTestResult(ok=error is None, model=model_name, duration_ms=duration_ms, error=error)
