"""The store and settings of the Synapse turn the caller is inside, for capabilities an agent opts into.

A capability such as `Rules()` is written without arguments on the app's agent; when a Synapse turn
runs that agent, the engine opens `running_on(store, settings)` around the run, and the capability
finds the turn's database here (`in_turn()`). It lives in a context variable, so runs and tools
started inside the turn see it too; outside a Synapse turn it is None.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..settings import Settings
    from .repository import Store


@dataclass(frozen=True)
class InTurn:
    """Where the turn runs: its store and its settings."""

    store: Store
    settings: Settings


_IN_TURN: ContextVar[InTurn | None] = ContextVar('synapse_in_turn', default=None)


def in_turn() -> InTurn | None:
    """The store and settings of the Synapse turn the caller is inside (None outside one)."""
    return _IN_TURN.get()


@contextmanager
def running_on(store: Store, settings: Settings) -> Iterator[None]:
    """Make `store` and `settings` the turn's for the block."""
    token = _IN_TURN.set(InTurn(store, settings))
    try:
        yield
    finally:
        with suppress(ValueError):  # a stream closed from another task: its context is gone anyway
            _IN_TURN.reset(token)
