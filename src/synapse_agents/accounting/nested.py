"""Runs nested in a Synapse turn are accounted to it: every model request is a ledger row.

An agent called from a tool (`await other.run(...)`, with or without `usage=ctx.usage`; from a sync
tool, which pydantic-ai runs in a thread, with `anyio.from_thread.run` or a loop of its own) makes
model requests the turn's own capabilities never see: they belong to another run. The engine opens a
`TurnAccount` around each turn (`accounted`); it lives in a context variable, so every run started
inside the turn sees it, in the same task, in child tasks and in the threads sync tools run in (they
copy the context), as the trace sink does (`traces/sink.py`).

`install()` registers an extender of the runs started inside a turn (`_agent_runs`, one wrapper of
`Agent.iter` for every area). A run started while an account is open, other than the turn's own and
carrying no `Spending` of its own, is given a `Spending` capability for that run only (as
`run(capabilities=[...])` would; the agent itself is never changed). It reserves each model request
against the limits of the turn's tenant, user and preset and of the nested agent, refuses it like
any other, and writes the request's ledger row through the turn's write queue, settling the
reservation in the row's transaction: the nested run's own `run_id`, the run it was started from as
`parent_run_id`, the nested agent's name as `agent_key`, the turn's module, conversation, tenant,
user and preset. Every run started inside a turn that names no conversation of its own runs in the
turn's (pydantic-ai's `conversation_id`). Outside a turn nothing changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any

from pydantic_ai import Agent
from pydantic_ai._run_context import get_current_run_context
from pydantic_ai.capabilities.abstract import AbstractCapability, leaf_capabilities

from .._agent_runs import extend
from .capability import Spending


@dataclass
class TurnAccount:
    """The turn nested runs are accounted to (see the module docstring)."""

    spending: Spending
    """The turn's own capability: where nested runs' reservations and rows go, and for whom."""
    run_id: str
    """The turn's run: its own requests are recorded by the turn, not here."""
    module: str
    """The ledger module of the nested runs' rows (the turn's)."""
    on_row: Callable[[dict[str, Any]], None]
    """Told of each nested ledger row (the turn adds its tokens and cost to the answer)."""
    conversation_id: str | None = None
    """The turn's conversation: a nested run that names no conversation of its own runs in it
    (pydantic-ai's `conversation_id`, exported as `gen_ai.conversation.id`)."""

    def capability(self, parent_run_id: str, module: str | None = None) -> Spending:
        """A `Spending` for one nested run started from `parent_run_id`; its rows' `module` is the
        turn's unless the run names its own (`MODULE_KEY` in its metadata)."""
        return replace(
            self.spending,
            agent=None,  # the nested agent's name
            run_id=None,  # the nested run's own
            module=module or self.module,
            records_ledger=True,
            parent_run_id=parent_run_id,
            on_row=self.on_row,
        )

    def takes(self, agent: Agent[Any, Any], options: dict[str, Any]) -> bool:
        """Whether a run of `agent` started with `options` is a nested run to account here."""
        if options.get('run_id') == self.run_id:
            return False
        given = [*(options.get('capabilities') or ()), agent.root_capability]
        return not any(
            isinstance(leaf, Spending)
            for capability in given
            if isinstance(capability, AbstractCapability)
            for leaf in leaf_capabilities(capability)
        )


MODULE_KEY = 'synapse.ledger_module'
"""A nested run whose `metadata` has this key (`'compression'`, `'distill'`, ...) is booked under that
ledger module instead of the turn's."""

_ACCOUNT: ContextVar[TurnAccount | None] = ContextVar('synapse_turn_account', default=None)


def current_account() -> TurnAccount | None:
    """The account of the turn the caller is inside, if any."""
    return _ACCOUNT.get()


@contextmanager
def accounted(account: TurnAccount) -> Iterator[None]:
    """Account the runs started inside the block to `account`."""
    install()
    token = _ACCOUNT.set(account)
    try:
        yield
    finally:
        # A turn's event stream closed from another task cannot reset it there; that context is
        # gone with its task anyway.
        with suppress(ValueError):
            _ACCOUNT.reset(token)


def install() -> None:
    """Account the runs nested in a turn to it from now on (once per process)."""
    extend(_account)


def _account(agent: Agent[Any, Any], options: dict[str, Any]) -> None:
    """Give a run started inside a turn the turn's conversation and its own `Spending`."""
    account = _ACCOUNT.get()
    if account is None:
        return
    if account.conversation_id is not None and _names_none(options):
        options['conversation_id'] = account.conversation_id
    if account.takes(agent, options):
        options['capabilities'] = [
            *(options.get('capabilities') or ()),
            account.capability(_parent_run_id(account), _module_of(options)),
        ]


def _module_of(options: dict[str, Any]) -> str | None:
    """The ledger module a run's own metadata names (`MODULE_KEY`), if any."""
    metadata = options.get('metadata')
    module = metadata.get(MODULE_KEY) if isinstance(metadata, dict) else None
    return module if isinstance(module, str) and module else None


def _names_none(options: dict[str, Any]) -> bool:
    """Whether a run started with `options` names no conversation (argument, object or history)."""
    if options.get('conversation_id') is not None or options.get('conversation') is not None:
        return False
    history = options.get('message_history') or ()
    return not any(getattr(message, 'conversation_id', None) for message in history)


def _parent_run_id(account: TurnAccount) -> str:
    """The run the caller is inside (a tool's), else the turn's."""
    ctx = get_current_run_context()
    run_id = ctx.run_id if ctx is not None else None
    return run_id or account.run_id
