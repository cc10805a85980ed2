"""Per-agent Synapse options, read from `Agent(metadata={...})` so agent modules never import Synapse.

```python
support = Agent('openai:gpt-4o', metadata={'synapse.stateless': True})
billing = Agent(
    'openai:gpt-4o',
    deps_type=Account,
    metadata={'synapse.deps_factory': 'app.deps:make_account'},  # or the function itself
)
```

- `synapse.stateless` (bool): every playground message starts a fresh history.
- `synapse.deps_factory`: a zero-argument callable (sync or async) returning the agent's deps, as a
  `'module:attribute'` string or the callable itself. An agent whose `deps_type` does not admit
  None and that has no factory is listed with a `deps_factory_missing` problem saying how to add one.
- `synapse.suggestions` (list of strings): messages the empty playground offers to send (at most 8).
- `synapse.follow_model` (bool, default True): in a playground turn on another model than its
  agent's own, this agent runs on that model too when a tool calls it (`chat/sub_agents.py`).
- `synapse.debug` (bool): record (True) or never record (False) debug logs and traces of its runs,
  whatever the `debug` settings say (docs/traces.md).

pydantic-ai sends metadata to no model; it only attaches it to the run (and its trace).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from .agent_info import AgentProblem
from .importer import discovery_mode, exception_message

STATELESS_KEY = 'synapse.stateless'
SUGGESTIONS_KEY = 'synapse.suggestions'
MAX_SUGGESTIONS = 8
SUGGESTION_CHARS = 300
DEPS_FACTORY_KEY = 'synapse.deps_factory'


@dataclass
class AgentOptions:
    """The Synapse options of one agent."""

    stateless: bool = False
    suggestions: list[str] = field(default_factory=list)
    deps_factory: Callable[[], Any] | None = None
    factory_name: str | None = None
    factory_module: ModuleType | None = None
    problems: list[AgentProblem] = field(default_factory=list)


def _suggestions(value: Any) -> list[str]:
    """The first `MAX_SUGGESTIONS` non-empty strings of a list (anything else: none)."""
    if not isinstance(value, list | tuple):
        return []
    texts = [item.strip()[:SUGGESTION_CHARS] for item in value if isinstance(item, str) and item.strip()]
    return texts[:MAX_SUGGESTIONS]


def read_options(metadata: Any, *, agent_name: str, deps_type_name: str | None) -> AgentOptions:
    """Options from an agent's metadata (a callable metadata yields none) and the deps problems."""
    options = AgentOptions()
    if isinstance(metadata, dict):
        options.stateless = _truthy(metadata.get(STATELESS_KEY, False))
        options.suggestions = _suggestions(metadata.get(SUGGESTIONS_KEY))
        spec = metadata.get(DEPS_FACTORY_KEY)
        if spec is not None:
            _resolve_factory(spec, options, agent_name)
    if deps_type_name is not None and options.deps_factory is None and not options.problems:
        options.problems.append(
            AgentProblem(
                code='deps_factory_missing',
                message=(
                    f'{agent_name} needs deps of type {deps_type_name} to run in the playground. Add '
                    f"metadata={{'{DEPS_FACTORY_KEY}': 'your.module:make_deps'}} to its Agent(...), naming "
                    'a function that takes no arguments and returns the deps.'
                ),
            )
        )
    return options


def _truthy(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ('1', 'true', 'yes', 'on')
    return bool(value)


def _resolve_factory(spec: Any, options: AgentOptions, agent_name: str) -> None:
    def invalid(reason: str) -> None:
        options.problems.append(
            AgentProblem(
                code='deps_factory_invalid',
                message=f'The deps factory of {agent_name} ({options.factory_name}) {reason}',
            )
        )

    if isinstance(spec, str):
        options.factory_name = spec
        module_name, sep, attribute = spec.partition(':')
        if not sep or not module_name or not attribute:
            invalid("is not 'module:attribute'.")
            return
        try:
            with discovery_mode():
                module = importlib.import_module(module_name)
        except Exception as exc:
            invalid(f'cannot be imported: {type(exc).__name__}: {exception_message(exc)}')
            return
        options.factory_module = module
        target: Any = module
        for part in attribute.split('.'):
            if not hasattr(target, part):
                invalid(f'does not exist: {module_name} has no attribute {attribute!r}.')
                return
            target = getattr(target, part)
        factory = target
    else:
        factory = spec
        options.factory_name = (
            f'{getattr(spec, "__module__", "?")}:{getattr(spec, "__qualname__", repr(spec))}'
        )
    if not callable(factory):
        invalid(f'is not callable (it is a {type(factory).__name__}).')
        return
    if not _takes_no_arguments(factory):
        invalid('must be callable without arguments.')
        return
    options.deps_factory = factory


def _takes_no_arguments(function: Callable[..., Any]) -> bool:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return True
    return all(
        parameter.default is not parameter.empty
        or parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
        for parameter in signature.parameters.values()
    )
