"""What a turn yields: pydantic-ai's own events plus Synapse's.

`ChatEngine.stream` yields, in order:

1. `TurnStarted`: the ids the turn will store under, the model chosen, whether the agent is
   stateless (the moment the turn's first rows are queued, before the model is asked anything);
2. the run's pydantic-ai events (`AgentStreamEvent`s), each as soon as it exists, with a `Notice`
   after the event that caused it (such as a model fallback); the run's `AgentRunResultEvent` comes
   only once the answer is stored;
3. `TurnFailed` when the run, its setup or saving it failed (what the error card shows);
4. `TurnFinished`, always last: how the turn ended and what was stored.

Nothing here knows about HTTP or the Vercel AI stream: the web layer encodes these events.
"""

from __future__ import annotations

import traceback as traceback_module
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from pydantic_ai.messages import AgentStreamEvent
from pydantic_ai.run import AgentRunResultEvent
from pydantic_ai.usage import RunUsage

from .provider_errors import card_message, provider_facts
from .redaction import scrub, scrub_value

ERROR_OUTCOMES = ('failed', 'retried', 'denied')
"""pydantic-ai tool-return outcomes that Synapse records as an error."""


@dataclass
class Notice:
    """Something the user should know that is not an error, such as a model fallback."""

    kind: str
    message: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Compressed:
    """A conversation's older turns were summarised (`Compression`): what the plugins' hook
    `conversation_compressed` hears, for instance to distil what was said."""

    conversation_id: str
    agent: str | None
    scope: dict[str, Any]
    """The conversation's scope as JSON (`Scope.as_json`)."""
    covered_messages: int
    """How many of the conversation's first model messages the summary now stands for."""
    summary: str


@dataclass(frozen=True)
class ToolTimed:
    """A tool call's duration as stored: from the start of its execution to its result (for a call
    that never executes, such as arguments that fail validation, from its call event to its result).
    Sent right after the result event, so a live view shows the same figure a reload does."""

    tool_call_id: str
    duration_ms: int


@dataclass(frozen=True)
class TurnStarted:
    """The turn began: its rows are queued under these ids."""

    conversation_id: str
    message_id: str
    """The assistant message's id."""
    user_message_id: str
    run_id: str
    model: str | None
    provider: str | None
    stateless: bool
    currency: str = 'USD'
    """The reference currency the turn's cost will be in (the `reference_currency` setting)."""


@dataclass
class TurnFailed:
    """An exception that ended a turn, as shown on the error card."""

    exception_class: str
    message: str
    traceback: str
    recoverable: bool
    error: BaseException | None = field(default=None, repr=False, compare=False)
    """The exception that ended the run (for an unsaved turn, the run's own error when it had one)."""
    interrupted_tools: list[str] = field(default_factory=list)
    """Tool calls the failure cancelled (stored as interrupted, not as failed)."""
    provider: dict[str, Any] | None = None
    """For a provider's refusal: status, its error type and code, its message, Retry-After
    (seconds) and the model (`provider_errors.py`); None for any other error."""

    @classmethod
    def from_exception(cls, error: BaseException, *, recoverable: bool) -> TurnFailed:
        """Describe `error`; the traceback is the formatted exception with its chain. A provider's
        refusal leads with the provider's own message, not the exception's summary. Every secret
        Synapse holds is redacted from all of it (a provider may quote the key it was sent)."""
        text = scrub(''.join(traceback_module.format_exception(error)))
        message = scrub(card_message(error, str(error) or type(error).__name__))
        provider = scrub_value(provider_facts(error))
        return cls(type(error).__name__, message, text, recoverable, error, provider=provider)

    def payload(self) -> dict[str, Any]:
        """The card as JSON: class, message, traceback, recoverable, provider."""
        return {
            'class': self.exception_class,
            'message': self.message,
            'traceback': self.traceback,
            'recoverable': self.recoverable,
            'provider': self.provider,
        }


@dataclass(frozen=True)
class TurnFinished:
    """How the turn ended: what was stored and what it cost.

    An id is None when its row could not be stored; `saved` says whether every write of the turn
    committed (None when the turn ended without its final write, such as a cancelled turn)."""

    conversation_id: str | None
    message_id: str | None
    user_message_id: str | None
    run_id: str
    status: str
    """The assistant row's final status (`complete` for an answer)."""
    saved: bool | None
    model: str | None
    provider: str | None
    usage: RunUsage | None
    cost: Decimal | None
    """The sum of the turn's ledger rows in `currency`, the reference currency (as the
    conversation's totals); None when any price is unknown or has no rate."""
    duration_ms: int | None
    stateless: bool
    awaiting: list[str] = field(default_factory=list)
    """The tool calls the run paused on, waiting for a decision (`conversations/deferred.py`)."""
    currency: str = 'USD'
    """The currency of `cost`: the reference currency (the `reference_currency` setting)."""


TurnEvent = (
    AgentStreamEvent | AgentRunResultEvent[Any] | Notice | ToolTimed | TurnStarted | TurnFailed | TurnFinished
)
"""Any event a turn yields."""
