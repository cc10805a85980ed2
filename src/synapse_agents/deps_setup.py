"""`register_deps`: name an agent's deps factory from the project's `synapse_setup.py`.

```python
# synapse_setup.py, at the project root (discovery imports it when it is there)
from synapse_agents import register_deps

from app.agents import billing
from app.deps import open_account

register_deps(billing, open_account)                      # the agent object, the factory
register_deps('app.agents:support', 'app.deps:make_support')  # a target (or slug), a 'module:callable'
```

What is registered while discovery imports `synapse_setup.py` belongs to that project's catalog
and is replaced when the file (or a module it imports) is edited. A registration made anywhere
else (an app's start-up code) applies to every catalog of the process. The agent's own
`metadata={'synapse.deps_factory': ...}` wins over a registration, which wins over
`[tool.synapse.deps]`. This module imports nothing but the standard library.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

FACTORY_KEY = 'synapse.deps_factory'
"""The agent metadata key that names its deps factory (`discovery/options.py`)."""


@dataclass(frozen=True)
class Registration:
    """One `register_deps` call: the agent (an object, or a target or slug) and its factory."""

    agent: Any
    factory: Any


_GLOBAL: list[Registration] = []
_GLOBAL_LOCK = threading.Lock()
_collecting = threading.local()


def register_deps(agent_or_target: Any, factory: Any) -> None:
    """Name the deps factory of an agent: `agent_or_target` is the agent object, its discovery
    target (`'module:attribute'`) or its slug; `factory` is a callable (or `'module:callable'`)
    that takes no arguments and returns the deps, an awaitable of them, or a (async) context
    manager whose value they are. Raises `TypeError` for arguments that can name neither."""
    if isinstance(agent_or_target, str):
        if not agent_or_target.strip():
            raise TypeError('register_deps: the agent target is empty (use module:attribute or the slug).')
        agent_or_target = agent_or_target.strip()
    elif agent_or_target is None:
        raise TypeError('register_deps: expected an agent, its module:attribute target or its slug.')
    if not (callable(factory) or isinstance(factory, str)):
        raise TypeError(
            f'register_deps: the factory must be a callable or a module:callable string, '
            f'not a {type(factory).__name__}.'
        )
    registration = Registration(agent_or_target, factory)
    found: list[Registration] | None = getattr(_collecting, 'into', None)
    if found is not None:
        found.append(registration)
        return
    with _GLOBAL_LOCK:
        _GLOBAL.append(registration)


@contextmanager
def collecting() -> Iterator[list[Registration]]:
    """Collect the registrations made on this thread meanwhile (discovery importing the hook)."""
    previous = getattr(_collecting, 'into', None)
    found: list[Registration] = []
    _collecting.into = found
    try:
        yield found
    finally:
        _collecting.into = previous


def global_registrations() -> list[Registration]:
    """The registrations made outside a hook import, oldest first."""
    with _GLOBAL_LOCK:
        return list(_GLOBAL)


def missing_factory_hint(
    agent_name: str, deps_type_name: str | None = None, *, key: str | None = None
) -> str:
    """What to do about an agent that needs deps and has no factory: the three ways to name one.

    `key` is the agent's `[tool.synapse.deps]` key (its `module:attribute`, or its slug)."""
    needs = f'needs deps of type {deps_type_name}' if deps_type_name else 'needs deps'
    entry = (
        f'"{key}" = "your.module:make_deps"' if key else '"<module>:<attribute>" = "your.module:make_deps"'
    )
    return (
        f'{agent_name} {needs} to run in the playground. Name a function that takes no arguments '
        f"and returns them: metadata={{'{FACTORY_KEY}': 'your.module:make_deps'}} in its "
        'Agent(...), register_deps(agent, make_deps) in synapse_setup.py at the project root, or '
        f'in pyproject.toml, under [tool.synapse.deps]: {entry}. A dataclass or pydantic model whose '
        'fields all have defaults needs none: Synapse builds it.'
    )
