"""The store and settings of the Synapse turn the caller is inside, for capabilities an agent opts into.

A capability such as `Rules()` is written without arguments on the app's agent; when a Synapse turn
runs that agent, the engine opens `running_on(InTurn(...))` around the run, and the capability
finds the turn's database, its settings and where its notices go here (`in_turn()`). It lives in a
context variable, so runs and tools started inside the turn see it too; outside a turn it is None.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..events import Compressed, Notice
    from ..settings import Settings
    from .repository import Store


@dataclass(frozen=True)
class InTurn:
    """Where the turn runs: its store and its settings."""

    store: Store
    settings: Settings
    notify: Callable[[Notice], None] | None = None
    """Shows a notice in the turn (and stores it with the answer)."""
    compressed: Callable[[Compressed], None] | None = None
    """Tells the plugins that the conversation was compressed (`conversation_compressed`)."""
    run_id: str | None = None
    """The run id of the turn's own run (nested runs have their own)."""
    rag_sources: tuple[str, ...] = ()
    """The retrieval sources the turn's agent may search, when the turn adds its `Retrieval`
    (a configured agent's `rag_sources`)."""


_IN_TURN: ContextVar[InTurn | None] = ContextVar('synapse_in_turn', default=None)


def in_turn() -> InTurn | None:
    """The store and settings of the Synapse turn the caller is inside (None outside one)."""
    return _IN_TURN.get()


@contextmanager
def running_on(turn: InTurn) -> Iterator[None]:
    """Make `turn` the one the block runs in."""
    token = _IN_TURN.set(turn)
    try:
        yield
    finally:
        with suppress(ValueError):  # a stream closed from another task: its context is gone anyway
            _IN_TURN.reset(token)
