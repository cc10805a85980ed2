"""An app's own credit system, asked before each model call and told after it.

Set `usage_recorder` to `module:attribute`: an object with `has_credits(call) -> bool` and
`record(call) -> None` (either may be async; a plain function runs in a thread, so it may block).
An attribute that is a class is instantiated with no arguments. Before each model request the
`Spending` capability calls `has_credits` with the request's worst-case estimate (`phase='before'`):
False refuses the call with `OutOfCredits`, which is not a spending limit and is never retried.
After the response it calls `record` with what the call cost (`phase='after'`); an error there is
logged and the turn goes on (the model was already paid for). Unset: neither is called.

    class Credits:
        def has_credits(self, call: UsageCall) -> bool:
            return balance(call.tenant) >= (call.cost_reference or 0)

        def record(self, call: UsageCall) -> None:
            charge(call.tenant, call.cost_reference)
"""

from __future__ import annotations

import inspect
import logging
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

import anyio.to_thread

from ..import_path import ImportPathError, NotAnImportPath, resolve_import_path

if TYPE_CHECKING:
    from .limits import Subject
    from .pricing import Estimate

logger = logging.getLogger('synapse.accounting')


@dataclass(frozen=True)
class UsageCall:
    """One model call as the usage recorder sees it.

    Before the call, the tokens and cost are the worst case (`estimated=True`; the cost is None
    when no price is known); after it, what the ledger row says."""

    phase: Literal['before', 'after']
    tenant: str | None
    user: str | None
    agent: str | None
    preset: str | None
    conversation_id: str | None
    run_id: str | None
    provider: str | None
    model: str | None
    input_tokens: int
    output_tokens: int
    cost: Decimal | None
    currency: str | None
    cost_reference: Decimal | None
    reference_currency: str | None
    ledger_id: str | None = None
    """The call's `llm_calls` row (after the call)."""

    @property
    def estimated(self) -> bool:
        return self.phase == 'before'

    @classmethod
    def before(
        cls,
        subject: Subject,
        estimate: Estimate,
        *,
        conversation_id: str | None,
        run_id: str | None,
        provider: str | None,
        model: str | None,
    ) -> UsageCall:
        """A request about to be made, at its worst case."""
        price = estimate.price
        return cls(
            phase='before',
            tenant=subject.tenant,
            user=subject.user,
            agent=subject.agent,
            preset=subject.preset,
            conversation_id=conversation_id,
            run_id=run_id,
            provider=provider,
            model=model,
            input_tokens=estimate.input_tokens,
            output_tokens=estimate.output_tokens,
            cost=price.cost,
            currency=price.currency,
            cost_reference=price.cost_reference,
            reference_currency=price.reference_currency,
        )

    @classmethod
    def after(cls, row: dict[str, Any]) -> UsageCall:
        """A call made, as its ledger row says."""
        return cls(
            phase='after',
            tenant=row.get('tenant'),
            user=row.get('user'),
            agent=row.get('agent_key'),
            preset=row.get('preset'),
            conversation_id=row.get('conversation_id'),
            run_id=row.get('run_id'),
            provider=row.get('provider'),
            model=row.get('model'),
            input_tokens=int(row.get('input_tokens') or 0),
            output_tokens=int(row.get('output_tokens') or 0),
            cost=row.get('cost'),
            currency=row.get('currency'),
            cost_reference=row.get('cost_reference'),
            reference_currency=row.get('reference_currency'),
            ledger_id=row.get('id'),
        )


@runtime_checkable
class UsageRecorder(Protocol):
    """What `usage_recorder` names (each method may also be `async def`)."""

    def has_credits(self, call: UsageCall) -> Any:
        """Whether the call may be made (a bool, or an awaitable of one)."""

    def record(self, call: UsageCall) -> Any:
        """Note what the call cost."""


class UsageRecorderError(ValueError):
    """`usage_recorder` names nothing importable, or an object without the two methods."""


@cache
def load_usage_recorder(spec: str | None) -> UsageRecorder | None:
    """The object `spec` (`module:attribute`) names; None when unset. Loaded once per spec."""
    if not spec:
        return None
    try:
        _module, found = resolve_import_path(spec)
    except NotAnImportPath:
        raise UsageRecorderError(f'usage_recorder {spec!r}: expected module:attribute') from None
    except ImportPathError as exc:
        raise UsageRecorderError(f'usage_recorder {spec!r} cannot be loaded: {exc}') from exc
    if inspect.isclass(found):
        found = found()
    if not callable(getattr(found, 'has_credits', None)) or not callable(getattr(found, 'record', None)):
        raise UsageRecorderError(f'usage_recorder {spec!r} needs has_credits(call) and record(call) methods')
    recorder: UsageRecorder = found
    return recorder


async def _call(method: Any, call: UsageCall) -> Any:
    """An async method awaited; a plain one run in a thread (it may do blocking I/O)."""
    if inspect.iscoroutinefunction(method):
        return await method(call)
    result = await anyio.to_thread.run_sync(method, call)
    if inspect.isawaitable(result):
        result = await result
    return result


async def has_credits(recorder: UsageRecorder, call: UsageCall) -> bool:
    """The recorder's answer (an exception it raises fails the call)."""
    return bool(await _call(recorder.has_credits, call))


async def record(recorder: UsageRecorder, call: UsageCall) -> None:
    """Tell the recorder what a call cost; its errors are logged, never raised."""
    try:
        await _call(recorder.record, call)
    except Exception:
        logger.exception('the usage recorder failed to record a model call')
