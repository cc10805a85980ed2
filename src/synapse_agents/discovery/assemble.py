"""From candidates to catalog entries: one per agent object, with slug, options, keys and problems.

Inspection and option parsing run once per agent object and are cached by identity; a later scan
that finds the same object (its module was not re-imported) reuses them, so only slugs, sub-agent
links and which keys are missing are recomputed. Options are read again when the deps factory
named outside the agent (`deps_sources.py`) changed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic_ai import Agent

from ..deps_setup import Registration
from . import _pydantic_ai_internals as internals
from . import deps_sources, keys, slugs
from ._describe import display_path
from .agent_info import AgentInfo, AgentProblem, DepsInfo, DiscoveryProblem, SubagentInfo
from .collect import Candidate
from .deps_sources import Known, NamedFactory, table_key
from .importer import exception_message, format_traceback
from .inspection import Inspection, inspect_agent
from .options import AgentOptions, read_options


@dataclass
class BuiltAgent:
    """One catalog entry before it becomes a `DiscoveredAgent`."""

    agent: Agent[Any, Any]
    info: AgentInfo
    deps_factory: Callable[[], Any] | None
    deps_required: bool
    missing_env: str | None
    file: Path | None
    deps_lifetime: Literal['turn', 'server'] | None = None
    deps_key: str | None = None
    """Its `[tool.synapse.deps]` key (`deps_sources.table_key`)."""


def deps_key(candidate: Candidate, slug: str) -> str:
    """The `[tool.synapse.deps]` key of the agent found as `candidate`."""
    return table_key(candidate.module, candidate.attribute, slug, spec=candidate.spec)


@dataclass
class _Entry:
    agent: Agent[Any, Any]
    candidate: Candidate
    inspection: Inspection
    requirement: keys.KeyRequirement | None
    options: AgentOptions | None = None
    named: NamedFactory | None = None
    """The factory named outside the agent that `options` were read with."""


class Assembler:
    """Builds catalog entries, caching the expensive part per agent object."""

    def __init__(self, project_root: Path) -> None:
        self.project_root = project_root
        self._entries: dict[int, _Entry] = {}
        self._current: list[_Entry] = []

    def assemble(
        self,
        candidates: list[Candidate],
        *,
        deps_table: Mapping[str, str] | None = None,
        registrations: Sequence[Registration] = (),
    ) -> tuple[list[BuiltAgent], list[DiscoveryProblem]]:
        """Deduplicate, inspect what is new, assign slugs, read options (with the deps factories
        `deps_table` and `registrations` name), link sub-agents, list problems."""
        problems: list[DiscoveryProblem] = []
        entries: list[_Entry] = []
        for candidate in _homes(candidates):
            try:
                entries.append(self._entry(candidate))
            except Exception as exc:
                problems.append(_inspect_problem(candidate, exc, '', format_traceback(exc)))
        self._entries = {id(entry.agent): entry for entry in entries}
        self._current = entries
        assigned = slugs.assign(
            (e.candidate.module, e.candidate.attribute, _base_slug(e.candidate)) for e in entries
        )
        by_identity = {
            id(e.agent): (assigned[(e.candidate.module, e.candidate.attribute)], e) for e in entries
        }
        named, deps_problems = deps_sources.resolve(
            _known(candidates, by_identity), deps_table or {}, registrations
        )
        problems.extend(deps_problems)
        for entry in entries:
            slug = assigned[(entry.candidate.module, entry.candidate.attribute)]
            self._read_options(entry, named.get(id(entry.agent)), slug)
        built: list[BuiltAgent] = []
        for entry in entries:
            slug = assigned[(entry.candidate.module, entry.candidate.attribute)]
            built.append(self._finish(entry, slug, by_identity))
            for failure in entry.inspection.failures:
                message = (
                    f'{failure.section}: {type(failure.error).__name__}: {exception_message(failure.error)}'
                )
                problems.append(_inspect_problem(entry.candidate, failure.error, message, failure.traceback))
        return built, problems

    def factory_modules(self) -> list[tuple[str, str]]:
        """(agent module, deps factory module) pairs: editing the factory reloads the agent."""
        return [
            (entry.candidate.module, entry.options.factory_module.__name__)
            for entry in self._current
            if entry.options is not None
            and entry.options.factory_module is not None
            and not entry.candidate.spec
        ]

    def env_vars_of_interest(self) -> set[str]:
        """Variables whose appearance changes what the catalog says."""
        return {e.requirement.env_var for e in self._current if e.requirement and e.requirement.env_var}

    def _entry(self, candidate: Candidate) -> _Entry:
        agent = candidate.agent
        cached = self._entries.get(id(agent))
        if cached is not None and cached.agent is agent:
            cached.candidate = candidate
            return cached
        requirement = _requirement(agent, candidate)
        name = agent.name or (Path(candidate.attribute).stem if candidate.spec else candidate.attribute)
        inspection = inspect_agent(
            agent,
            name=name,
            module=candidate.module,
            attribute=candidate.attribute,
            file=display_path(candidate.file, self.project_root) if candidate.file else None,
            project_root=self.project_root,
        )
        return _Entry(agent, candidate, inspection, requirement)

    @staticmethod
    def _read_options(entry: _Entry, named: NamedFactory | None, slug: str) -> None:
        if entry.options is not None and entry.named == named:
            return
        info = entry.inspection.info
        candidate = entry.candidate
        entry.options = read_options(
            _raw_metadata(entry.agent),
            agent_name=info.name,
            deps_type_name=info.deps.type,
            named=named,
            deps_type=entry.agent.deps_type,
            key=deps_key(candidate, slug),
        )
        entry.named = named

    def _finish(self, entry: _Entry, slug: str, by_identity: dict[int, tuple[str, _Entry]]) -> BuiltAgent:
        info = entry.inspection.info
        options = entry.options or AgentOptions()
        problems: list[AgentProblem] = []
        missing_env: str | None = None
        requirement = entry.requirement
        if requirement is not None:
            if requirement.env_var is None:
                problems.append(
                    AgentProblem(
                        code='provider_unavailable', message=keys.describe_requirement(requirement, info.name)
                    )
                )
            elif _missing(requirement.env_var):
                missing_env = requirement.env_var
                problems.append(
                    AgentProblem(
                        code='missing_api_key',
                        message=keys.describe_requirement(requirement, info.name),
                        env_var=requirement.env_var,
                    )
                )
        problems.extend(options.problems)
        problems.extend(
            AgentProblem(
                code='tool_schema_error',
                message=f'Tool {tool.name!r}: schema unavailable ({tool.schema_error}).',
            )
            for tool in info.tools
            if tool.schema_error
        )
        problems.extend(
            AgentProblem(
                code='inspect_error', message=f'Could not read its {failure.section}: {failure.error}'
            )
            for failure in entry.inspection.failures
        )
        subagents = []
        for ref in entry.inspection.subagents:
            known = by_identity.get(id(ref.agent))
            subagents.append(
                SubagentInfo(
                    name=known[1].inspection.info.name if known else (ref.agent.name or ref.name),
                    slug=known[0] if known else None,
                    via_tool=ref.via_tool,
                )
            )
        deps_required = info.deps.type is not None
        final = info.model_copy(
            update={
                'slug': slug,
                'stateless': options.stateless,
                'suggestions': options.suggestions,
                'problems': problems,
                'subagents': subagents,
                'counts': info.counts.model_copy(update={'subagents': len(subagents)}),
                'deps': DepsInfo(
                    type=info.deps.type,
                    factory=options.factory_name,
                    required=deps_required,
                    source=options.factory_source,
                    lifetime=options.deps_lifetime,
                ),
            }
        )
        return BuiltAgent(
            entry.agent,
            final,
            options.deps_factory,
            deps_required,
            missing_env,
            entry.candidate.file,
            deps_lifetime=options.deps_lifetime,
            deps_key=deps_key(entry.candidate, slug),
        )


def _known(candidates: list[Candidate], by_identity: dict[int, tuple[str, _Entry]]) -> list[Known]:
    """Each entry's agent with every `module:attribute` it was found under, and its slug."""
    targets: dict[int, list[str]] = {}
    for candidate in candidates:
        targets.setdefault(id(candidate.agent), []).append(f'{candidate.module}:{candidate.attribute}')
    return [
        Known(entry.agent, tuple(dict.fromkeys(targets.get(key, []))), slug)
        for key, (slug, entry) in by_identity.items()
    ]


def _homes(candidates: list[Candidate]) -> list[Candidate]:
    """One candidate per agent object: explicit target, then the defining module, then the first.

    Ordered by module, then by definition order within the module.
    """
    best: dict[int, tuple[int, Candidate]] = {}
    for index, candidate in enumerate(candidates):
        key = id(candidate.agent)
        current = best.get(key)
        if current is None or _rank(candidate) < _rank(current[1]):
            best[key] = (index, candidate)
    return [candidate for _, candidate in sorted(best.values(), key=lambda item: (item[1].module, item[0]))]


def _rank(candidate: Candidate) -> tuple[int, int, int]:
    named = candidate.agent.name == candidate.attribute
    return (not candidate.explicit, candidate.imported, not named)


def _requirement(agent: Agent[Any, Any], candidate: Candidate) -> keys.KeyRequirement | None:
    adopted = keys.adopt_keyless(agent)
    if adopted is not None:
        return adopted
    model = agent.model
    if isinstance(model, str):
        return keys.probe_model_name(model)
    # A model built under a placeholder may be shared by agents of modules that imported cleanly.
    if (candidate.placeholder_vars or keys.placeholders_handed_out()) and model is not None:
        found = keys.placeholder_vars(model)
        if found:
            names = ' and '.join(f'`{name}`' for name in found)
            return keys.KeyRequirement(
                found[0], f'Set the {names} environment variable{"s" * (len(found) > 1)}.'
            )
    return None


def _raw_metadata(agent: Agent[Any, Any]) -> Any:
    try:
        return internals.metadata(agent)
    except Exception:
        return None


def _missing(name: str) -> bool:
    value = os.environ.get(name)
    return not value or value.startswith(keys.PLACEHOLDER_PREFIX)


def _base_slug(candidate: Candidate) -> str:
    if candidate.spec:
        return slugs.spec_slug(candidate.module)
    return slugs.module_slug(candidate.module, candidate.attribute)


def _inspect_problem(candidate: Candidate, exc: BaseException, message: str, trace: str) -> DiscoveryProblem:
    return DiscoveryProblem(
        kind='inspect_error',
        target=candidate.target,
        file=str(candidate.file) if candidate.file else None,
        module=candidate.module,
        exception=type(exc).__name__,
        message=f'{candidate.module}:{candidate.attribute}: {message or exception_message(exc)}',
        traceback=trace,
    )
