"""Discovery mode: a thread-local flag that is on while Synapse imports a user's module.

The two pydantic-ai hooks discovery installs (a missing provider key becomes a placeholder model, a
tool whose schema cannot be built becomes a placeholder schema) act only while this flag is on in
the calling thread; everywhere else, a chat run included, pydantic-ai behaves exactly as usual.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_state = threading.local()


def active() -> bool:
    """Whether the current thread is importing modules for discovery."""
    return bool(getattr(_state, 'depth', 0))


@contextmanager
def discovering() -> Iterator[None]:
    """Turn discovery mode on for the current thread (re-entrant)."""
    _state.depth = getattr(_state, 'depth', 0) + 1
    try:
        yield
    finally:
        _state.depth -= 1
