"""The catalog: discovery's entry point, a thread-safe scan that is cheap when nothing changed.

`Catalog.scan()` first stats every path the previous scan depended on (module files, scanned
folders, spec files, `.env` files, `synapse_setup.py`, the project's `pyproject.toml` when the
`deps` setting comes from it, the folders a missing target would appear in) and checks whether
the provider keys agents lack have appeared. When nothing changed it returns the previous snapshot
as it is: no import, no inspection. Otherwise it re-imports the changed modules and their
dependents (`reload`), imports the project's `synapse_setup.py` when it is new or changed
(`deps_sources`), reads `[tool.synapse.deps]` again when `pyproject.toml` changed
(`pyproject_deps`), collects candidates from the targets (`collect`), and builds a new snapshot,
re-inspecting only agent objects it has not seen before.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from dotenv import dotenv_values
from pydantic_ai import Agent

from ..tools import ToolRegistry
from . import keys
from ._pydantic_ai_internals import degraded_features
from .agent_info import AgentCard, AgentInfo, AgentList, DegradedFeatureInfo, DiscoveryProblem
from .assemble import Assembler, BuiltAgent
from .collect import Collector
from .deps_sources import SetupHook
from .evaluators import FoundEvaluator
from .labels import labels
from .pyproject_deps import PyprojectDeps
from .reload import ReloadTracker, Stamp, stamp
from .targets import Target, default_targets, parse_target


@dataclass
class DiscoveredAgent:
    """One agent of the catalog, with what the chat engine needs to run it."""

    slug: str
    name: str
    module: str
    attribute: str
    agent: Agent[Any, Any]
    info: AgentInfo
    """`info.model_dump(mode='json')` is the `GET /api/agents/{slug}` payload."""
    stateless: bool
    deps_factory: Callable[[], Any] | None
    """Zero-argument callable returning the deps; it may return an awaitable."""
    deps_required: bool
    missing_env: str | None
    """The provider key variable the agent's own model lacks, e.g. 'OPENAI_API_KEY'."""
    file: Path | None = None
    deps_lifetime: Literal['turn', 'server'] | None = None
    """The agent's own `synapse.deps_lifetime` (None: the `deps_lifetime` setting)."""
    deps_key: str | None = None
    """The `[tool.synapse.deps]` key that names its deps factory (for the hint when it has none)."""

    @property
    def card(self) -> AgentCard:
        """The landing-page card."""
        return self.info.card()


@dataclass
class CatalogSnapshot:
    """The agents and problems of one scan. Immutable by convention: a new scan makes a new one."""

    agents: list[DiscoveredAgent]
    problems: list[DiscoveryProblem]
    targets: list[str]
    project_root: Path = field(default_factory=Path.cwd)
    tools: ToolRegistry = field(default_factory=ToolRegistry)
    """The tool registry: `@synapse_agents.tool` functions and `FunctionToolset`s of the scanned modules."""
    evaluators: list[FoundEvaluator] = field(default_factory=list)
    """The pydantic-evals evaluator classes the scanned modules define, in scan order."""
    _by_slug: dict[str, DiscoveredAgent] = field(default_factory=dict, repr=False)
    _labels: dict[str, str] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_slug = {agent.slug: agent for agent in self.agents}
        self._labels = labels(agent.info for agent in self.agents)

    def label(self, slug: str) -> str | None:
        """What to call the agent `slug` (`discovery/labels.py`)."""
        return self._labels.get(slug)

    def get(self, slug: str) -> DiscoveredAgent | None:
        """The agent with this slug, or None."""
        return self._by_slug.get(slug)

    def listing(self) -> AgentList:
        """The `GET /api/agents` payload."""
        return AgentList(
            agents=[
                agent.card.model_copy(update={'label': self._labels.get(agent.slug)}) for agent in self.agents
            ],
            problems=self.problems,
            targets=self.targets,
            project_root=str(self.project_root),
            degraded=[DegradedFeatureInfo(**feature.as_dict()) for feature in degraded_features()],
        )


INLINE_CHECK_LIMIT = 256
"""Most paths `Catalog.fresh` stats on the caller's thread (each stat costs a few microseconds)."""


class Catalog:
    """Discovers the agents of `targets` (none: `./agents` if present, else the project).

    `deps` maps agent targets (or slugs) to deps factories (the `deps` setting, `[tool.synapse.deps]`).
    With `pyproject` (the file `deps` was read from), the table is read again whenever that file
    changes and replaces `deps` from the next scan on. `refresh_settings` is called before each
    scan (`settings_reload.SettingsReloader.refresh`: the live settings of a changed pyproject.toml)."""

    def __init__(
        self,
        targets: Sequence[str],
        project_root: Path,
        *,
        env_files: Sequence[Path] = (),
        deps: Mapping[str, str] | None = None,
        pyproject: Path | None = None,
        refresh_settings: Callable[[], object] | None = None,
    ) -> None:
        self.project_root = Path(project_root).resolve()
        self._deps = dict(deps or {})
        self._pyproject = PyprojectDeps.watching(pyproject, self._deps) if pyproject is not None else None
        self._hook = SetupHook(self.project_root)
        self._refresh_settings = refresh_settings
        self._targets = [target for target in targets if target.strip()]
        self._lock = threading.Lock()
        self._tracker = ReloadTracker()
        self._collector = Collector(self.project_root, self._tracker)
        self._assembler = Assembler(self.project_root)
        self._env_files = {Path(path).resolve(): stamp(path) for path in env_files}
        self._watch: dict[Path, Stamp | None] = {}
        self._env_vars: dict[str, bool] = {}
        self._snapshot: CatalogSnapshot | None = None
        self.rebuilds = 0
        """How many scans re-collected (for tests and benchmarks; a warm scan does not count)."""

    @property
    def targets(self) -> list[str]:
        """The targets as given, or the defaults."""
        return list(self._targets) or default_targets(self.project_root)

    def scan(self) -> CatalogSnapshot:
        """The current agents: re-imports only changed files; cheap when nothing changed."""
        if self._refresh_settings is not None:
            self._refresh_settings()
        with self._lock:
            if self._snapshot is None or self._changed():
                self._snapshot = self._rebuild()
            return self._snapshot

    def fresh(self) -> CatalogSnapshot | None:
        """The current snapshot when it is known to be up to date, without blocking: None when no
        scan ran yet, a scan is running, more than `INLINE_CHECK_LIMIT` paths would need a stat, or
        something changed. Then call `scan()` (in a thread: it may import).

        The check is the one `scan()` makes first (every watched path's stamp, the provider keys),
        so this never returns a stale snapshot; it exists so that a request can skip the thread hop
        `scan()` costs when nothing changed (which is almost always).
        """
        if self._refresh_settings is not None:
            self._refresh_settings()
        snapshot = self._snapshot
        if snapshot is None or self._lock.locked() or len(self._watch) > INLINE_CHECK_LIMIT:
            return None
        return None if self._changed() else snapshot

    def _changed(self) -> bool:
        for path, previous in self._watch.items():
            if stamp(path) != previous:
                return True
        return any((name in os.environ) != present for name, present in self._env_vars.items())

    def _rebuild(self) -> CatalogSnapshot:
        self.rebuilds += 1
        self._reload_env_files()
        stale = self._tracker.changed() | self._tracker.waiting_for(keys.PLACEHOLDER_PREFIX)
        if stale:
            self._tracker.purge(self._tracker.with_dependents(stale))
        targets = self.targets
        parsed, unusable = self._parse(targets)
        hook_watch = self._hook.load(self._tracker)
        table_watch = self._pyproject.refresh() if self._pyproject is not None else {}
        deps_table = self._pyproject.table if self._pyproject is not None else self._deps
        collection = self._collector.collect(parsed)
        agents, problems = self._assembler.assemble(
            collection.candidates, deps_table=deps_table, registrations=self._hook.registrations
        )
        source_problems = [
            problem
            for problem in (self._hook.problem, self._pyproject.problem if self._pyproject else None)
            if problem is not None
        ]
        problems = [*unusable, *source_problems, *problems]
        for module, factory_module in self._assembler.factory_modules():
            self._collector.add_dependency(module, factory_module)
        self._watch = {
            **collection.watch,
            **hook_watch,
            **table_watch,
            **self._tracker.files(),
            **self._env_files,
        }
        self._env_vars = {name: name in os.environ for name in self._assembler.env_vars_of_interest()}
        tools = ToolRegistry(collection.tools)
        return CatalogSnapshot(
            agents=[self._discovered(agent) for agent in agents],
            problems=[*collection.problems, *problems, *_conflicts(tools)],
            targets=targets,
            project_root=self.project_root,
            tools=tools,
            evaluators=list(collection.evaluators),
        )

    def _parse(self, targets: list[str]) -> tuple[list[Target], list[DiscoveryProblem]]:
        """The targets that can be looked at, and a problem for each that cannot (e.g. a NUL byte)."""
        parsed: list[Target] = []
        problems: list[DiscoveryProblem] = []
        for raw in targets:
            try:
                parsed.append(parse_target(raw, self.project_root))
            except (ValueError, OSError) as exc:
                problems.append(
                    DiscoveryProblem(
                        kind='target_not_found',
                        target=raw,
                        exception=type(exc).__name__,
                        message=f'{raw!r} is not a usable target: {exc}.',
                    )
                )
        return parsed, problems

    @staticmethod
    def _discovered(built: BuiltAgent) -> DiscoveredAgent:
        return DiscoveredAgent(
            slug=built.info.slug,
            name=built.info.name,
            module=built.info.module,
            attribute=built.info.attribute,
            agent=built.agent,
            info=built.info,
            stateless=built.info.stateless,
            deps_factory=built.deps_factory,
            deps_required=built.deps_required,
            missing_env=built.missing_env,
            file=built.file,
            deps_lifetime=built.deps_lifetime,
            deps_key=built.deps_key,
        )

    def _reload_env_files(self) -> None:
        """Load variables added to a `.env` file since the last scan (never overriding one that is set)."""
        for path, previous in list(self._env_files.items()):
            current = stamp(path)
            if current == previous:
                continue
            self._env_files[path] = current
            if current is None:
                continue
            for name, value in dotenv_values(path).items():
                if value is not None and (name not in os.environ or _is_placeholder(os.environ[name])):
                    os.environ[name] = value


def _conflicts(tools: ToolRegistry) -> list[DiscoveryProblem]:
    """A problem for each registry tool left out because an earlier one has its name."""
    return [
        DiscoveryProblem(
            kind='tool_conflict',
            target=left_out.module,
            module=left_out.module,
            exception='ValueError',
            message=(
                f'Tool {left_out.name!r} of {left_out.module}:{left_out.attribute} is left out of the tool '
                f'registry: {kept.module}:{kept.attribute} has a tool with that name.'
            ),
        )
        for kept, left_out in tools.conflicts
    ]


def _is_placeholder(value: str) -> bool:
    return value.startswith(keys.PLACEHOLDER_PREFIX)
