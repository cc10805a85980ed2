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
- `synapse.deps_factory`: a zero-argument callable returning the agent's deps (sync or async, or
  a (async) context manager: `chat/deps.py`), as a `'module:attribute'` string or the callable
  itself. A factory can also be named outside the agent (`deps_sources.py`: `synapse_setup.py`,
  then `[tool.synapse.deps]`); the metadata's wins. Without one, a `deps_type` that is a dataclass
  or pydantic model whose fields all have defaults is built without arguments (`default_deps.py`).
  Any other agent whose `deps_type` does not admit None and that has no factory is listed with a
  `deps_factory_missing` problem saying how to add one, with the exact `[tool.synapse.deps]` key.
- `synapse.deps_lifetime` (`'turn'` or `'server'`): how long its deps live, whatever the
  `deps_lifetime` setting says.
- `synapse.suggestions` (list of strings): messages the empty playground offers to send (at most 8).
- `synapse.follow_model` (bool, default True): in a playground turn on another model than its
  agent's own, this agent runs on that model too when a tool calls it (`chat/sub_agents.py`).
- `synapse.debug` (bool): record (True) or never record (False) debug logs and traces of its runs,
  whatever the `debug` settings say (docs/traces.md).

pydantic-ai sends metadata to no model; it only attaches it to the run (and its trace).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Literal

from ..deps_setup import missing_factory_hint
from ..import_path import AttributeMissing, ModuleNotImported, NotAnImportPath, resolve_import_path
from .agent_info import AgentProblem
from .default_deps import default_factory, factory_name
from .deps_sources import NamedFactory
from .importer import discovery_mode, exception_message

STATELESS_KEY = 'synapse.stateless'
SUGGESTIONS_KEY = 'synapse.suggestions'
MAX_SUGGESTIONS = 8
SUGGESTION_CHARS = 300
DEPS_FACTORY_KEY = 'synapse.deps_factory'
DEPS_LIFETIME_KEY = 'synapse.deps_lifetime'
LIFETIMES = ('turn', 'server')


@dataclass
class AgentOptions:
    """The Synapse options of one agent."""

    stateless: bool = False
    suggestions: list[str] = field(default_factory=list)
    deps_factory: Callable[[], Any] | None = None
    factory_name: str | None = None
    factory_module: ModuleType | None = None
    factory_source: Literal['metadata', 'hook', 'pyproject', 'default'] | None = None
    """Where the factory was named: `metadata`, `hook` (synapse_setup.py) or `pyproject`; `default`
    when the deps type itself builds them."""
    deps_lifetime: Literal['turn', 'server'] | None = None
    """`turn` or `server` from the agent's metadata (None: the `deps_lifetime` setting)."""
    problems: list[AgentProblem] = field(default_factory=list)


def _suggestions(value: Any) -> list[str]:
    """The first `MAX_SUGGESTIONS` non-empty strings of a list (anything else: none)."""
    if not isinstance(value, list | tuple):
        return []
    texts = [item.strip()[:SUGGESTION_CHARS] for item in value if isinstance(item, str) and item.strip()]
    return texts[:MAX_SUGGESTIONS]


def read_options(
    metadata: Any,
    *,
    agent_name: str,
    deps_type_name: str | None,
    named: NamedFactory | None = None,
    deps_type: Any = None,
    key: str | None = None,
) -> AgentOptions:
    """Options from an agent's metadata (a callable metadata yields none) and the deps problems.

    `named` is the factory named outside the agent (`deps_sources.py`); the metadata's own wins.
    `deps_type` may build the deps itself (`default_deps.py`); `key` is the agent's
    `[tool.synapse.deps]` key, for the hint when it cannot."""
    options = AgentOptions()
    spec: Any = None
    if isinstance(metadata, dict):
        options.stateless = _truthy(metadata.get(STATELESS_KEY, False))
        options.suggestions = _suggestions(metadata.get(SUGGESTIONS_KEY))
        spec = metadata.get(DEPS_FACTORY_KEY)
        _read_lifetime(metadata.get(DEPS_LIFETIME_KEY), options, agent_name)
    if spec is not None:
        options.factory_source = 'metadata'
        _resolve_factory(spec, options, agent_name, where='')
    elif named is not None:
        options.factory_source = named.source
        _resolve_factory(named.spec, options, agent_name, where=f' (named in {named.where})')
    if deps_type_name is not None and options.deps_factory is None and not options.problems:
        if (default := default_factory(deps_type)) is not None:
            options.deps_factory = default
            options.factory_name = factory_name(deps_type)
            options.factory_source = 'default'
        else:
            options.problems.append(
                AgentProblem(
                    code='deps_factory_missing',
                    message=missing_factory_hint(agent_name, deps_type_name, key=key),
                )
            )
    return options


def _read_lifetime(value: Any, options: AgentOptions, agent_name: str) -> None:
    if value is None:
        return
    if isinstance(value, str) and value.strip().lower() in LIFETIMES:
        options.deps_lifetime = 'server' if value.strip().lower() == 'server' else 'turn'
        return
    options.problems.append(
        AgentProblem(
            code='deps_factory_invalid',
            message=(
                f"The deps lifetime of {agent_name} ({DEPS_LIFETIME_KEY}={value!r:.80}) is not 'turn' "
                "or 'server'; the deps_lifetime setting applies."
            ),
        )
    )


def _truthy(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ('1', 'true', 'yes', 'on')
    return bool(value)


def _resolve_factory(spec: Any, options: AgentOptions, agent_name: str, *, where: str) -> None:
    def invalid(reason: str) -> None:
        options.problems.append(
            AgentProblem(
                code='deps_factory_invalid',
                message=f'The deps factory of {agent_name} ({options.factory_name}){where} {reason}',
            )
        )

    if isinstance(spec, str):
        options.factory_name = spec
        try:
            with discovery_mode():
                module, factory = resolve_import_path(spec)
        except NotAnImportPath:
            invalid("is not 'module:attribute'.")
            return
        except ModuleNotImported as exc:
            cause = exc.__cause__ or exc
            invalid(f'cannot be imported: {type(cause).__name__}: {exception_message(cause)}')
            return
        except AttributeMissing as exc:
            invalid(f'does not exist: {exc}.')
            return
        options.factory_module = module
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
