"""A turn's deps: what the agent's factory builds, torn down when their lifetime ends.

The factory (found by discovery: the agent's metadata, `synapse_setup.py` or `[tool.synapse.deps]`)
is called without arguments. It may return the deps, be an async function (its result is awaited),
or give a context manager whose value the deps are: a `@contextmanager` or `@asynccontextmanager`
function, or any callable returning an object with `__enter__`/`__exit__` or
`__aenter__`/`__aexit__` (an async one is preferred when an object has both). Leaving it is the
teardown.

How long deps live is the `deps_lifetime` setting, or the agent's own `synapse.deps_lifetime`:

- `turn`: built when the turn's run starts and torn down when the turn ends, whether it completed,
  failed or was cancelled, before its last event. The context manager is left as on a normal exit.
- `server`: built once per agent (and factory) by the engine, on the first turn that needs them,
  under a lock so that concurrent first turns build them once; torn down, newest first, when the
  server stops (`ServerDeps.aclose`). Editing the factory's module builds new deps on the next
  turn; the old ones are torn down at shutdown too. They are left by the task that stops the
  server, not the one that built them: a context manager tied to its task (a task group) does not
  fit this lifetime.

A teardown that raises is logged (`synapse.chat`); the turn's outcome stays what it was. An agent
with a deps schema and no factory (a configured agent) runs with the checked values as a dict
(`deps_values.py`). Deps handed to the Python API (`Synapse.conversation(deps=...)`) are `given`:
used as they are, never entered nor torn down.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio

from ..settings import Settings
from ..targets.target import TurnTarget

logger = logging.getLogger('synapse.chat')

Lifetime = Literal['turn', 'server']

_GIVEN = '__synapse_given_deps__'


def given(deps: Any) -> Callable[[], Any]:
    """A factory returning `deps` as they are (no awaiting, no entering, no teardown)."""

    def factory() -> Any:
        return deps

    setattr(factory, _GIVEN, True)
    return factory


def lifetime_of(target: TurnTarget, settings: Settings | None) -> Lifetime:
    """The agent's own lifetime, else the setting's (`turn` without settings)."""
    if target.deps_lifetime is not None:
        return target.deps_lifetime
    return settings.deps_lifetime if settings is not None else 'turn'


async def build(stack: AsyncExitStack, factory: Callable[[], Any]) -> Any:
    """Call `factory`; await what is awaitable; enter a context manager on `stack`."""
    made = factory()
    if not _is_async_cm(made) and inspect.isawaitable(made):
        made = await made
    if _is_async_cm(made):
        return await stack.enter_async_context(made)
    if hasattr(made, '__enter__') and hasattr(made, '__exit__'):
        return stack.enter_context(made)
    return made


def _is_async_cm(value: Any) -> bool:
    return hasattr(value, '__aenter__') and hasattr(value, '__aexit__')


async def open_deps(
    stack: AsyncExitStack,
    target: TurnTarget,
    values: dict[str, Any] | None,
    *,
    lifetime: Lifetime = 'turn',
    cache: ServerDeps | None = None,
) -> Any:
    """The deps of one turn of `target`: a `turn` lifetime's teardown goes on `stack`; a `server`
    one's come from `cache` (none: built for the turn). Without a factory: the checked `values`
    (a dict) for an agent with a deps schema, else None."""
    factory = target.deps_factory
    if factory is None:
        return dict(values or {}) if target.deps_schema is not None else None
    if getattr(factory, _GIVEN, False):
        return factory()
    if lifetime == 'server' and cache is not None:
        return await cache.get(target.slug, factory)
    return await build(stack, factory)


async def close_quietly(stack: AsyncExitStack | None) -> None:
    """Tear down what `stack` entered, even in a cancelled task; a teardown error is logged."""
    if stack is None:
        return
    with anyio.CancelScope(shield=True):
        try:
            await stack.aclose()
        except Exception:
            logger.exception('A deps teardown failed')


@dataclass
class _Built:
    stack: AsyncExitStack
    deps: Any
    factory: Any
    """Kept so that its id, part of the key, is not reused while the entry lives."""


@dataclass
class ServerDeps:
    """The `server`-lifetime deps of one engine: built once per (agent, factory), torn down by `aclose`."""

    builds: int = 0
    """How many deps were built (for tests)."""
    _built: dict[tuple[str, int], _Built] = field(default_factory=dict)
    _locks: dict[tuple[str, int], anyio.Lock] = field(default_factory=dict)

    async def get(self, slug: str, factory: Callable[[], Any]) -> Any:
        """The deps `factory` built for `slug`, building them on first use."""
        key = (slug, id(factory))  # by identity: a factory need not be hashable
        found = self._built.get(key)
        if found is not None:
            return found.deps
        lock = self._locks.setdefault(key, anyio.Lock())
        async with lock:
            found = self._built.get(key)
            if found is not None:
                return found.deps
            stack = AsyncExitStack()
            try:
                deps = await build(stack, factory)
            except BaseException:
                await close_quietly(stack)
                raise
            self._built[key] = _Built(stack, deps, factory)
            self.builds += 1
            return deps

    async def aclose(self) -> None:
        """Tear everything down, newest first; the next `get` builds again."""
        built = list(self._built.values())
        self._built.clear()
        self._locks.clear()
        for entry in reversed(built):
            await close_quietly(entry.stack)
