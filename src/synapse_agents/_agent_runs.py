"""What Synapse adds to the pydantic-ai runs started while one of its turns is open: one wrapper of
`Agent.iter`.

Every `run`, `run_sync`, `run_stream` and `run_stream_events` goes through `Agent.iter`. An area
that gives such runs something of its own (accounting: a `Spending` capability and the turn's
conversation; traces: the capability that records the run's tree) registers an `Extender` with
`extend`. The wrapper, installed once per process, calls each extender in the order they were
registered with the agent and the run's keyword arguments, which it may change for that run only
(as a caller passing `capabilities=[...]` would). Outside a turn an extender leaves them alone (it
reads its own context variable); the agent itself is never changed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from pydantic_ai import Agent

Extender = Callable[[Agent[Any, Any], dict[str, Any]], None]
"""Called with the agent and the run's keyword arguments before each run starts."""

_extenders: list[Extender] = []
_lock = threading.Lock()
_installed = False


def extend(extender: Extender) -> None:
    """Call `extender` before every run from now on (once, however often it is registered)."""
    global _installed
    if _installed and extender in _extenders:
        return
    with _lock:
        if extender not in _extenders:
            _extenders.append(extender)
        if _installed:
            return
        original = Agent.iter

        def iter(self: Agent[Any, Any], *args: Any, **kwargs: Any) -> Any:
            for each in _extenders:
                each(self, kwargs)
            return original(self, *args, **kwargs)

        iter.__doc__ = original.__doc__
        iter.__wrapped__ = original  # type: ignore[attr-defined]
        Agent.iter = iter  # type: ignore[method-assign]
        _installed = True
