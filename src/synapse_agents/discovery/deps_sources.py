"""Deps factories named outside the agent: the project's `synapse_setup.py` and `[tool.synapse.deps]`.

Two places name a factory for an agent that should not import Synapse or know how the playground
builds its deps:

- `synapse_setup.py` at the project root, imported at each scan that finds it new or changed (or
  that re-imports a module it imports), calls `synapse_agents.register_deps(agent, factory)`
  (`deps_setup.py`). A hook that raises is an `import_error` problem; its registrations are dropped.
- the `deps` setting, the `[tool.synapse.deps]` table: `"module:attribute" = "module:callable"`
  (the agent's target as discovery names it, or its slug).

The agent's own `synapse.deps_factory` metadata wins over a registration, which wins over the
table. A key or registration that names no discovered agent is a `deps_target_unknown` problem of
the report; a factory that cannot be used is the agent's `deps_factory_invalid` (`options.py`).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..deps_setup import Registration, collecting, global_registrations
from .agent_info import DiscoveryProblem
from .importer import exception_message, import_module
from .reload import IsLocal, ReloadTracker, Stamp, module_file, stamp
from .targets import ensure_importable, import_roots

SETUP_FILE = 'synapse_setup.py'
SETUP_MODULE = 'synapse_setup'
PYPROJECT_TABLE = '[tool.synapse.deps]'

Source = Literal['hook', 'pyproject']


@dataclass(frozen=True)
class NamedFactory:
    """A factory named for an agent outside its metadata, and where."""

    spec: Any
    """The callable, or its `'module:callable'` name."""
    source: Source
    where: str
    """How the agent's problems name the place: `synapse_setup.py` or `[tool.synapse.deps]`."""


@dataclass(frozen=True)
class Known:
    """An agent discovery found, by identity and by the names that may refer to it."""

    agent: Any
    targets: tuple[str, ...]
    """`module:attribute` of each name it was found under."""
    slug: str


@dataclass
class SetupHook:
    """The project's `synapse_setup.py`: imported when present, again after it (or what it imports)
    changed; keeps the registrations its last import made."""

    project_root: Path
    registrations: list[Registration] = field(default_factory=list)
    problem: DiscoveryProblem | None = None
    _module: Any = None

    @property
    def file(self) -> Path:
        return self.project_root / SETUP_FILE

    def load(self, tracker: ReloadTracker) -> dict[Path, Stamp | None]:
        """Import the hook when needed; returns the paths whose change must trigger a rescan."""
        file = self.file
        if not file.is_file():
            self._forget()
            return {file: None}
        current = sys.modules.get(SETUP_MODULE)
        if self._module is not None and current is self._module:
            return {file: stamp(file)}
        if current is not None and module_file(current) == file.resolve():
            del sys.modules[SETUP_MODULE]  # imported for another catalog: run it again for this one
        ensure_importable(import_roots(self.project_root))  # it imports the project's modules
        with collecting() as found:
            outcome = import_module(SETUP_MODULE, path=file.resolve(), standalone=True)
        if outcome.module is None:
            error = outcome.error or ImportError(f'{SETUP_FILE} could not be imported')
            self._forget()
            self.problem = DiscoveryProblem(
                kind='import_error',
                target=SETUP_FILE,
                file=str(file),
                module=SETUP_MODULE,
                exception=type(error).__name__,
                message=f'{SETUP_FILE}: {type(error).__name__}: {exception_message(error)}',
                traceback=outcome.traceback,
            )
            return {file: stamp(file)}
        self._module = outcome.module
        self.registrations = list(found)
        self.problem = None
        tracker.record(outcome.module, is_local=IsLocal([self.project_root]))
        return {file: stamp(file)}

    def _forget(self) -> None:
        self._module = None
        self.registrations = []
        self.problem = None


def table_key(module: str, attribute: str, slug: str, *, spec: bool) -> str:
    """The `[tool.synapse.deps]` key that names an agent: its `module:attribute`, or for an agent
    spec file (which has no attribute to name) its slug."""
    return slug if spec else f'{module}:{attribute}'


def resolve(
    known: Sequence[Known], table: Mapping[str, str], hook: Sequence[Registration]
) -> tuple[dict[int, NamedFactory], list[DiscoveryProblem]]:
    """The factory each agent (by `id`) gets from the table and the registrations (the process's
    own, then the hook's; a later one wins), and a problem for each that names no agent."""
    by_name: dict[str, Any] = {}
    identities = {id(entry.agent) for entry in known}
    for entry in known:
        for target in entry.targets:
            by_name.setdefault(target, entry.agent)
    for entry in known:
        by_name.setdefault(entry.slug, entry.agent)
    named: dict[int, NamedFactory] = {}
    problems: list[DiscoveryProblem] = []
    for key, factory in table.items():
        agent = by_name.get(key.strip())
        if agent is None:
            problems.append(_unknown(key, PYPROJECT_TABLE, known))
        else:
            named[id(agent)] = NamedFactory(factory, 'pyproject', PYPROJECT_TABLE)
    ordered = [*((r, False) for r in global_registrations()), *((r, True) for r in hook)]
    for registration, reported in ordered:
        key = registration.agent
        agent = by_name.get(key) if isinstance(key, str) else key if id(key) in identities else None
        if agent is not None:
            named[id(agent)] = NamedFactory(registration.factory, 'hook', SETUP_FILE)
        elif reported:  # a registration of the app's own may be meant for another catalog
            problems.append(_unknown(key, SETUP_FILE, known))
    return named, problems


def _unknown(key: Any, where: str, known: Sequence[Known]) -> DiscoveryProblem:
    if isinstance(key, str):
        what = repr(key)
    else:
        name = getattr(key, 'name', None)
        what = f'an agent discovery did not find ({type(key).__name__} {name!r})'
    example = next((entry.targets[0] for entry in known if entry.targets), 'app.agents:support')
    return DiscoveryProblem(
        kind='deps_target_unknown',
        target=key if isinstance(key, str) else where,
        exception='LookupError',
        message=(
            f'{where} names a deps factory for {what}, which is not a discovered agent: name it by '
            f'its module:attribute (such as {example!r}) or its slug, and check that discovery '
            'looks where it is defined.'
        ),
    )
