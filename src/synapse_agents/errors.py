"""Every error Synapse raises on purpose, in one place: `from synapse_agents.errors import ...`.

Each is a `SynapseError` and also the built-in kind it is (`ConversationNotFound` is a
`LookupError`, `WrongAgent` a `ValueError`, ...), so code that caught the built-in keeps working.
They say what went wrong in the domain's words; a front door decides what each means on its wire
(the HTTP API's statuses and codes: `web/errors.py`; the CLI's exit codes). This module imports
nothing of Synapse, so any floor may raise them.

Spending errors (`SpendingLimitExceeded`, `OutOfCredits`) are final: pydantic-ai never retries them
(they are not `ModelHTTPError`s, and no retrying transport or fallback model sees them), so the turn
ends with an error card naming the cause. A provider's 429 stays what it is, a retryable
`ModelHTTPError`.
"""

from __future__ import annotations

import difflib
from decimal import Decimal
from typing import Any

__all__ = [
    'AgentAccessDenied',
    'AgentLookupError',
    'ApprovalPending',
    'AttachmentsNotSaved',
    'CompressionUnavailable',
    'ConversationNotFound',
    'CorruptRow',
    'DecisionsInvalid',
    'DepsRejected',
    'DetectorUnavailable',
    'DocumentUnreadable',
    'InvalidScope',
    'MemoryInvalid',
    'MemoryNotFound',
    'MemoryUnavailable',
    'NotAUserMessage',
    'NotAwaiting',
    'OutOfCredits',
    'PrivacyUnavailable',
    'RuleInvalid',
    'RuleNotFound',
    'RulesUnavailable',
    'ScopeMismatch',
    'SourceConflict',
    'SourceInvalid',
    'SourceNotFound',
    'SpendingError',
    'SpendingLimitExceeded',
    'StoreNotReady',
    'SynapseError',
    'TaskError',
    'TurnInFlight',
    'TurnInvalid',
    'TurnNotStored',
    'UnknownAgent',
    'VectorStoreUnavailable',
    'WrongAgent',
]


class SynapseError(Exception):
    """The base of every error Synapse raises on purpose."""


# -- agents ------------------------------------------------------------------------------------


class UnknownAgent(SynapseError, LookupError):
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


class AgentAccessDenied(SynapseError, PermissionError):
    """A configured agent's `access` does not admit the conversation's tenant or actor."""


class AgentLookupError(SynapseError):
    """The agents could not be looked up: the catalog could not be scanned (an agent module failed
    to build), or the registry could not be read."""


# -- conversations and scopes ------------------------------------------------------------------


class ConversationNotFound(SynapseError, LookupError):
    """No stored conversation has that id."""


class WrongAgent(SynapseError, ValueError):
    """The stored conversation belongs to another agent."""


class InvalidScope(SynapseError, ValueError):
    """A scope part that is not a `(type, id)` pair of non-empty strings of at most 255 characters,
    with no colon in the type."""


class ScopeMismatch(SynapseError):
    """A conversation was continued with a tenant or subject other than the ones it was opened with."""


class NotAUserMessage(SynapseError, ValueError):
    """A fork's message is not a user message of the source conversation."""


class TurnInFlight(SynapseError, RuntimeError):
    """A fork would copy a row that is still being written (a turn in flight)."""


# -- turns -------------------------------------------------------------------------------------


class TurnInvalid(SynapseError, ValueError):
    """A turn request that cannot start a turn; `fields` names the inputs at fault, when known."""

    def __init__(self, message: str, *, fields: list[dict[str, str]] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields


class DepsRejected(TurnInvalid):
    """Deps values a turn cannot run with: a `code` (`deps_invalid`, `deps_required`,
    `deps_unexpected`) and the field's `location`."""

    def __init__(self, message: str, *, code: str = 'deps_invalid', location: str = 'body.deps') -> None:
        super().__init__(message, fields=[{'location': location, 'message': message}])
        self.code = code
        self.location = location


# -- rules -------------------------------------------------------------------------------------


class RuleNotFound(SynapseError, LookupError):
    """No rule with that id."""


class RuleInvalid(SynapseError, ValueError):
    """A rule that cannot be saved as asked; `fields` names the inputs at fault."""

    def __init__(self, field: str, problem: str, *, where: str = 'body') -> None:
        super().__init__(f'{field}: {problem}')
        self.field = field
        self.problem = problem
        self.fields = [{'location': f'{where}.{field}', 'message': problem}]


class CompressionUnavailable(SynapseError, RuntimeError):
    """`Compression` in a run that is neither Synapse's nor given a store, or that names no
    conversation: there is nowhere to keep its summary."""


class DetectorUnavailable(SynapseError, RuntimeError):
    """Privacy is on and the PII detector cannot be built or failed on a text (a package or the
    spaCy model missing, an error inside Presidio): the turn ends before anything leaves for the
    model, never with the text sent as it was."""


class PrivacyUnavailable(SynapseError, RuntimeError):
    """`Privacy` in a run that is neither Synapse's nor given a store, that names no conversation,
    or whose vault cannot be read or stored (no `secret_key` in production, another key): the turn
    ends before anything leaves for the model."""


class RulesUnavailable(SynapseError, RuntimeError):
    """`Rules()` in a run that is neither Synapse's nor given a store: its rules cannot be read."""


class MemoryNotFound(SynapseError, LookupError):
    """No memory with that id."""


class MemoryInvalid(RuleInvalid):
    """A memory that cannot be saved or searched as asked; `fields` names the inputs at fault."""


class EvalDatasetNotFound(SynapseError, LookupError):
    """No eval dataset with that key (or no such version of it)."""


class EvalRunNotFound(SynapseError, LookupError):
    """No eval run with that id."""


class EvalPresetNotFound(SynapseError, LookupError):
    """An eval run names a registry preset that does not exist."""


class EvalInvalid(RuleInvalid):
    """An eval dataset or case that cannot be saved as asked; `fields` names the inputs at fault."""


class EvalConflict(SynapseError, RuntimeError):
    """The dataset changed since the version the change was made on, or its key is taken."""


class WorkflowNotFound(SynapseError, LookupError):
    """No workflow with that key (or no such version of it)."""


class WorkflowRunNotFound(SynapseError, LookupError):
    """No workflow run with that id."""


class WorkflowInvalid(SynapseError, ValueError):
    """A workflow definition, or a run's input, that cannot be accepted; `fields` names each problem
    by its location (`body.definition.steps.1.input_mapping.text`) and says what is wrong."""

    def __init__(self, problems: list[tuple[str, str]], *, where: str = 'body') -> None:
        first, problem = problems[0]
        super().__init__(
            f'{first}: {problem}' + (f' (and {len(problems) - 1} more)' if len(problems) > 1 else '')
        )
        self.problems = problems
        self.fields = [{'location': f'{where}.{field}', 'message': text} for field, text in problems]


class WorkflowConflict(SynapseError, RuntimeError):
    """A workflow key already taken, a change made on a stale version, or a change asked of a run
    that has finished (a finished run is immutable)."""


class SourceNotFound(SynapseError, LookupError):
    """No retrieval source with that slug (or no chunk with that id)."""


class SourceConflict(SynapseError, RuntimeError):
    """A source slug already taken, or a source already being indexed."""


class SourceInvalid(SynapseError, ValueError):
    """A retrieval source's configuration, or a search of sources, that cannot be used: the message
    names the field or the path at fault and says why (a folder that does not exist, a URL that is
    not http or https, a bad slug)."""


class DocumentUnreadable(SynapseError, ValueError):
    """A file of a retrieval source whose text cannot be read: the message names the file and says
    why (an encrypted PDF, a damaged archive, a type no parser reads, no text at all). It fails that
    file only; the rest of the source is indexed."""


class MemoryUnavailable(SynapseError, RuntimeError):
    """`Memory()` in a run that is neither Synapse's nor given a store: its memories cannot be read."""


class VectorStoreUnavailable(SynapseError, RuntimeError):
    """The `vector_store` setting names an index this database does not have."""


class AttachmentsNotSaved(SynapseError, RuntimeError):
    """The disk refused a turn's uploads (`full`: no space left); the files written are removed."""

    def __init__(self, message: str, *, full: bool) -> None:
        super().__init__(message)
        self.full = full


class TurnNotStored(SynapseError, RuntimeError):
    """A turn ended without its rows being stored (the store refused them)."""


# -- tool calls that wait for a person ---------------------------------------------------------


class ApprovalPending(SynapseError, RuntimeError):
    """The conversation waits for decisions on tool calls; only their answers continue it."""


class NotAwaiting(SynapseError, RuntimeError):
    """No tool call of the conversation waits for a decision (or they were decided elsewhere)."""


class DecisionsInvalid(SynapseError, ValueError):
    """Decisions that cannot be read, or that do not answer the calls that wait."""


# -- the store ---------------------------------------------------------------------------------


class CorruptRow(SynapseError):
    """A stored row holds a value Synapse cannot use: `table`, the row's `row_id`, and what is wrong
    (edited by hand, or damaged; see `corrupt.py`)."""

    def __init__(self, table: str, row_id: str, detail: str) -> None:
        self.table = table
        self.row_id = row_id
        self.detail = detail
        super().__init__(self.words(table, row_id, detail))

    @staticmethod
    def words(table: str, row_id: str, detail: str) -> str:
        """The words naming a damaged row: `agent_tasks 0193...: context is not JSON (...)`."""
        return f'{table} {row_id}: {detail}'


class StoreNotReady(SynapseError, RuntimeError):
    """The database schema is not at the revision this version of Synapse needs (the message names
    the command that brings it there)."""


# -- tasks -------------------------------------------------------------------------------------


class TaskError(SynapseError):
    """A refusal of the task services: words a user can act on, the fields at fault, and its kind
    as an HTTP-style `status` (404 nothing with that id, 409 the task's state forbids it, 422 the
    input) that the HTTP API answers with and the CLI turns into an exit code."""

    def __init__(self, status: int, message: str, *, fields: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.fields = fields or []


# -- spending ----------------------------------------------------------------------------------


class SpendingError(SynapseError):
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
