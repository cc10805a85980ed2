"""Agents whose provider key is missing are still discovered, inspected, and marked with the variable.

pydantic-ai 2.x builds an agent's provider when the agent is constructed, and a provider without its
key raises `UserError('Set the `OPENAI_API_KEY` environment variable ...')`: on a machine without
keys, every module with a real agent would fail to import. Discovery handles it in two layers.

1. **Model names** (`Agent('openai:gpt-4o')`, spec files). While discovery imports a module (see
   `_mode`), `pydantic_ai.models.infer_model` — which `Agent.__init__` calls — turns a provider that
   cannot be built (missing key, or missing SDK package) into a `KeylessModel` placeholder. Right
   after the import, `adopt_keyless` sets the agent's model back to the model-id string through the
   public `agent.model` setter, so the agent behaves exactly like one built with
   `defer_model_check=True`: pydantic-ai builds the provider at its first run, which works as soon as
   the key is set, and otherwise raises pydantic-ai's own "Set the `OPENAI_API_KEY` ..." message.
   Outside discovery (any other thread, any run), `infer_model` behaves as usual.
2. **Everything else** (`FallbackModel('openai:gpt-4o', ...)`, `OpenAIProvider()` in user code)
   still fails the import. When the failure names a variable, the importer imports the module again
   with that variable set to a placeholder (`synapse-missing-key:OPENAI_API_KEY`) for the duration
   of that import only; `placeholder_vars` then finds which agents' models hold a placeholder. Every
   agent's model is searched once any placeholder was handed out, not only the agents of the module
   whose import failed: a model object built once (`model = OpenAIChatModel(...)` in `models.py`)
   and shared by agents of several modules is flagged on each of them. Such an agent must not run
   on its own model (the chat engine checks `DiscoveredAgent.missing_env`), and its module is
   imported again once the variable is really set.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

from pydantic_ai import Agent, models
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.settings import ModelSettings

from . import _mode
from . import _pydantic_ai_internals as internals

PLACEHOLDER_PREFIX = 'synapse-missing-key:'
"""Prefix of the value a missing variable holds while its module is imported (layer 2)."""

_ENV_VAR = re.compile(r'\b[Ss]et the `([A-Z][A-Z0-9_]*)`')
_MAX_CHAIN = 20
_install_lock = threading.Lock()
_installed: list[Callable[..., Model]] = []
_handed_out: set[str] = set()


@dataclass(frozen=True)
class KeyRequirement:
    """What an agent's own model needs before it can run."""

    env_var: str | None
    """The variable to set (the first one pydantic-ai names), or None for a missing package."""
    message: str
    """pydantic-ai's own message: which variable, or which package to install."""


def missing_env_from_error(exc: BaseException) -> str | None:
    """The environment variable a provider error asks for, searching the exception chain."""
    for error in _chain(exc):
        if isinstance(error, UserError) and (match := _ENV_VAR.search(str(error))):
            return match.group(1)
    return None


def missing_package_from_error(exc: BaseException) -> str | None:
    """pydantic-ai's "Please install the `x` package" message, when that is why a provider failed."""
    for error in _chain(exc):
        if isinstance(error, ImportError) and 'Please install' in str(error):
            return str(error)
    return None


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < _MAX_CHAIN:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


class KeylessModel(Model):
    """Stands in for a named model whose provider could not be built during discovery.

    It keeps the provider and model name for inspection. `adopt_keyless` replaces it on the agent by
    the model-id string; anywhere else it stays, a request builds the real model (which works once
    the key is set) or raises pydantic-ai's original message.
    """

    def __init__(self, model_id: str, requirement: KeyRequirement) -> None:
        super().__init__()
        provider, _, name = model_id.partition(':')
        self._model_id = model_id
        self._provider_name = provider if name else 'unknown'
        self._name = name or model_id
        self.requirement = requirement

    @property
    def model_name(self) -> str:
        return self._name

    @property
    def system(self) -> str:
        return self._provider_name

    @property
    def model_id(self) -> str:
        return self._model_id

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        real = models.infer_model(self._model_id)
        return await real.request(messages, model_settings, model_request_parameters)


def install() -> None:
    """Wrap `pydantic_ai.models.infer_model` once; the wrapper acts only in discovery mode.

    Does nothing (the feature is recorded as degraded) when this pydantic-ai lacks the name.
    """
    if not internals.available(internals.INFER_MODEL):
        return
    with _install_lock:
        if _installed:
            return
        original = models.infer_model

        def infer_model(model: Any, *args: Any, **kwargs: Any) -> Model:
            if not _mode.active() or not isinstance(model, str):
                return original(model, *args, **kwargs)
            try:
                return original(model, *args, **kwargs)
            except UserError as exc:
                env_var = missing_env_from_error(exc)
                if env_var is None:
                    raise
                return KeylessModel(model, KeyRequirement(env_var, str(exc)))
            except ImportError as exc:
                if missing_package_from_error(exc) is None:
                    raise
                return KeylessModel(model, KeyRequirement(None, str(exc)))

        functools.update_wrapper(infer_model, original)
        models.infer_model = infer_model
        _installed.append(original)


def uninstall() -> None:
    """Put the original `infer_model` back (for tests that change what pydantic-ai offers)."""
    with _install_lock:
        if not _installed:
            return
        original = _installed.pop()
        if getattr(getattr(models, 'infer_model', None), '__wrapped__', None) is original:
            models.infer_model = original


def adopt_keyless(agent: Agent[Any, Any]) -> KeyRequirement | None:
    """Turn a placeholder model back into its model-id string; returns what the model needs."""
    model = agent.model
    if isinstance(model, KeylessModel):
        agent.model = model.model_id
        return model.requirement
    return None


def probe_model_name(model_id: str) -> KeyRequirement | None:
    """For an agent whose model is a name (`defer_model_check=True`): would its provider build?"""
    if not internals.available(internals.INFER_MODEL):
        return None
    original = _installed[0] if _installed else models.infer_model
    try:
        original(model_id)
    except UserError as exc:
        env_var = missing_env_from_error(exc)
        return KeyRequirement(env_var, str(exc)) if env_var else None
    except ImportError as exc:
        return KeyRequirement(None, str(exc)) if missing_package_from_error(exc) else None
    except Exception:
        return None
    return None


@contextmanager
def placeholder_env(names: Sequence[str]) -> Iterator[None]:
    """Set each unset variable in `names` to a placeholder for the duration of the block (layer 2)."""
    added = [name for name in names if name not in os.environ]
    _handed_out.update(added)
    for name in added:
        os.environ[name] = PLACEHOLDER_PREFIX + name
    try:
        yield
    finally:
        for name in added:
            if os.environ.get(name) == PLACEHOLDER_PREFIX + name:
                del os.environ[name]


def placeholders_handed_out() -> bool:
    """Whether any import in this process ran with a placeholder key (models may still hold one)."""
    return bool(_handed_out)


def placeholder_vars(model: object, *, max_objects: int = 400, max_depth: int = 6) -> list[str]:
    """The placeholder variables a model's object graph holds (a provider client's `api_key`...)."""
    found: list[str] = []
    seen: set[int] = set()
    queue: deque[tuple[object, int]] = deque([(model, 0)])
    while queue and len(seen) < max_objects:
        obj, depth = queue.popleft()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, str):
            if obj.startswith(PLACEHOLDER_PREFIX) and (name := obj[len(PLACEHOLDER_PREFIX) :]) not in found:
                found.append(name)
            continue
        if depth >= max_depth or isinstance(obj, int | float | bytes | type) or callable(obj):
            continue
        children: list[object]
        if isinstance(obj, dict):
            children = [*obj.keys(), *obj.values()]
        elif isinstance(obj, list | tuple | set | frozenset):
            children = list(obj)
        else:
            children = _attributes(obj)
        queue.extend((child, depth + 1) for child in children)
    return found


def _attributes(obj: object) -> list[object]:
    values: list[object] = []
    with suppress(TypeError):
        values.extend(vars(obj).values())
    for slot in getattr(type(obj), '__slots__', ()):
        if isinstance(slot, str) and hasattr(obj, slot):
            values.append(getattr(obj, slot))
    return values


def describe_requirement(requirement: KeyRequirement, agent_name: str) -> str:
    """The message the card and the playground show for an agent that cannot run on its own model."""
    if requirement.env_var is None:
        return f'{agent_name} cannot run on its own model: {requirement.message}'
    return (
        f"Set {requirement.env_var} to run {agent_name} on its own model: add it to the project's .env "
        f'(Synapse reads the file again on the next request) or export it before starting Synapse. '
        f'Until then, pick the demo model in the model selector.'
    )
