"""From targets to agent candidates: import each module or spec file safely and list its agents.

Every module-level `pydantic_ai.Agent` of a scanned module is a candidate; its registry tools
(`tools.py`) and the pydantic-evals evaluator classes it defines (`evaluators.py`) are listed too.
The same object found under several names (a package re-exporting `from .support import
support_agent`, an alias) is one agent: it belongs to the module that defines it, i.e. the one
where the name is not bound by a `from ... import` statement (an explicit `module:attribute`
target wins).
"""

from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic_ai import Agent

from ..import_path import AttributeMissing, walk_attributes
from ..tools import RegistryTool, tools_in
from . import targets as targets_module
from .agent_info import DiscoveryProblem
from .evaluators import FoundEvaluator, evaluators_in
from .importer import (
    ImportOutcome,
    discovery_mode,
    exception_message,
    format_traceback,
    import_module,
    load_spec,
    looks_like_spec,
)
from .reload import IsLocal, ReloadTracker, Stamp, module_file, stamp
from .targets import FolderWalker, Target, WalkResult


@dataclass
class Candidate:
    """One agent found under one name."""

    module: str
    attribute: str
    agent: Agent[Any, Any]
    target: str
    file: Path | None = None
    explicit: bool = False
    imported: bool = False
    spec: bool = False
    placeholder_vars: tuple[str, ...] = ()


@dataclass
class Collection:
    """Everything one pass over the targets found, and every path whose change must trigger a rescan."""

    candidates: list[Candidate] = field(default_factory=list)
    problems: list[DiscoveryProblem] = field(default_factory=list)
    tools: list[RegistryTool] = field(default_factory=list)
    """The registry tools of the scanned modules (`tools.py`), each module once."""
    tool_modules: set[str] = field(default_factory=set)
    evaluators: list[FoundEvaluator] = field(default_factory=list)
    """The pydantic-evals evaluator classes the scanned modules define (`evaluators.py`)."""
    watch: dict[Path, Stamp | None] = field(default_factory=dict)


class Collector:
    """Resolves targets into candidates; keeps per-file caches across scans."""

    def __init__(self, project_root: Path, tracker: ReloadTracker) -> None:
        self.project_root = project_root
        self.tracker = tracker
        self.walker = FolderWalker()
        self._mentions: dict[Path, tuple[Stamp | None, bool]] = {}
        self._is_spec: dict[Path, tuple[Stamp | None, bool]] = {}
        self._specs: dict[Path, tuple[Stamp | None, Agent[Any, Any] | None, DiscoveryProblem | None]] = {}
        self._placeholders: dict[str, tuple[str, ...]] = {}
        self._tools: dict[str, tuple[ModuleType, tuple[list[RegistryTool], list[tuple[str, Exception]]]]] = {}
        self._local = IsLocal([project_root])
        self._factories: dict[str, tuple[Any, Agent[Any, Any]]] = {}
        """`module:function` → the function and the agent it built (see `_built`)."""

    def collect(self, targets: list[Target]) -> Collection:
        """Import every target (unchanged modules come from sys.modules) and list the candidates."""
        out = Collection()
        roots = targets_module.import_roots(self.project_root)
        targets_module.ensure_importable(roots)
        local = IsLocal([self.project_root, *self._target_folders(targets)])
        self._local = local
        for target in targets:
            if target.kind == 'module':
                self._module_target(target, out, local)
            elif target.path is None or not target.path.exists():
                out.watch[target.path or self.project_root] = None
                out.problems.append(
                    _problem('target_not_found', target, f'{target.raw}: no such file or folder.')
                )
            elif target.kind == 'spec':
                self._spec(target.path, target, out)
            elif target.kind == 'file':
                self._file(target.path, target, out, local, roots)
            else:
                walk = self.walker.walk(target.path)
                targets_module.ensure_script_dir(target.path)
                self._walked(walk, target, out, local, roots)
        out.watch.update(self.tracker.files())
        return out

    def _target_folders(self, targets: list[Target]) -> list[Path]:
        folders: list[Path] = []
        for target in targets:
            if target.path is not None:
                folders.append(target.path if target.path.is_dir() else target.path.parent)
        return folders

    def add_dependency(self, module: str, dependency: str) -> None:
        """Record that `module` needs `dependency` (a deps factory named in its agent's metadata)."""
        if (imported := sys.modules.get(dependency)) is not None:
            self.tracker.record(imported, is_local=self._local)
        self.tracker.depend(module, dependency)

    # -- modules ----------------------------------------------------------------------------

    def _module_target(self, target: Target, out: Collection, local: IsLocal) -> None:
        assert target.module is not None
        outcome = import_module(target.module)
        if outcome.module is None:
            self._import_failed(outcome, target, out, target.module, None)
            self._watch_missing_module(target.module, out)
            return
        local.folders += tuple(Path(p).resolve() for p in getattr(outcome.module, '__path__', ()))
        if (file := module_file(outcome.module)) is not None:
            local.folders += (file.parent,)
        self._imported(outcome, local)
        if target.attribute is not None:
            self._attribute(outcome.module, target, out)
            return
        self._candidates(outcome.module, target, out)
        own_file = module_file(outcome.module)
        for folder in getattr(outcome.module, '__path__', ()):
            walk = self.walker.walk(Path(folder).resolve())
            self._watch_walk(walk, out)
            for path in walk.python_files:
                name = _submodule(target.module, Path(folder).resolve(), path)
                if name is not None and path != own_file and self._wanted(path):
                    self._import_file(name, path, target, out, local)
            for path in walk.spec_files:
                if self._spec_like(path):
                    self._spec(path, target, out)

    def _file(self, path: Path, target: Target, out: Collection, local: IsLocal, roots: list[Path]) -> None:
        named = targets_module.module_name_for(path, roots)
        if named is None:
            self._import_file(_standalone_name(path), path, target, out, local, standalone=True)
            return
        name, root = named
        targets_module.ensure_importable([root])
        module = self._import_file(name, path, target, out, local)
        if module is not None and target.attribute is not None:
            out.candidates = [c for c in out.candidates if c.module != name]
            self._attribute(module, target, out)

    def _walked(
        self, walk: WalkResult, target: Target, out: Collection, local: IsLocal, roots: list[Path]
    ) -> None:
        self._watch_walk(walk, out)
        for path in walk.python_files:
            if targets_module.is_root_package_init(path, roots) or not self._wanted(path):
                continue
            named = targets_module.module_name_for(path, roots)
            if named is None:
                self._import_file(_standalone_name(path), path, target, out, local, standalone=True)
                continue
            targets_module.ensure_importable([named[1]])
            self._import_file(named[0], path, target, out, local)
        for path in walk.spec_files:
            if self._spec_like(path):
                self._spec(path, target, out)

    def _import_file(
        self,
        name: str,
        path: Path,
        target: Target,
        out: Collection,
        local: IsLocal,
        *,
        standalone: bool = False,
    ) -> ModuleType | None:
        out.watch.setdefault(path, stamp(path))
        outcome = import_module(name, path=path, standalone=standalone)
        if outcome.module is None:
            self._import_failed(outcome, target, out, name, path)
            return None
        self._imported(outcome, local)
        self._candidates(outcome.module, target, out)
        return outcome.module

    def _imported(self, outcome: ImportOutcome, local: IsLocal) -> None:
        assert outcome.module is not None
        if outcome.placeholder_vars:
            for name in outcome.new_modules:
                self._placeholders[name] = outcome.placeholder_vars
        for name in (*outcome.new_modules, outcome.module.__name__):
            if (module := sys.modules.get(name)) is not None:
                self.tracker.record(module, is_local=local, placeholder_vars=self._placeholders.get(name, ()))

    def _import_failed(
        self, outcome: ImportOutcome, target: Target, out: Collection, name: str, path: Path | None
    ) -> None:
        error = outcome.error
        assert error is not None
        missing = isinstance(error, ModuleNotFoundError) and error.name is not None
        not_found = missing and path is None and name.startswith(str(getattr(error, 'name', '')))
        out.problems.append(
            DiscoveryProblem(
                kind='target_not_found' if not_found else 'import_error',
                target=target.raw,
                file=str(path) if path else None,
                module=name,
                exception=type(error).__name__,
                message=exception_message(error),
                traceback=outcome.traceback,
            )
        )
        for file in _files_in(error):  # a fix to any project file the error went through triggers a rescan
            if self._local(file):
                out.watch.setdefault(file, stamp(file))

    def _watch_missing_module(self, name: str, out: Collection) -> None:
        """Folders where the missing module could appear, so creating it triggers a rescan."""
        for root in targets_module.import_roots(self.project_root):
            folder = root
            out.watch.setdefault(folder, stamp(folder))
            for part in name.split('.')[:-1]:
                folder = folder / part
                out.watch.setdefault(folder, stamp(folder))

    def _watch_walk(self, walk: WalkResult, out: Collection) -> None:
        for folder in walk.folders:
            out.watch.setdefault(folder, stamp(folder))
        for path in (*walk.python_files, *walk.spec_files):
            out.watch.setdefault(path, stamp(path))

    def _attribute(self, module: ModuleType, target: Target, out: Collection) -> None:
        assert target.attribute is not None
        try:
            value = walk_attributes(module, target.attribute)
        except AttributeMissing:
            value = None
        if isinstance(value, Agent):
            out.candidates.append(self._candidate(module, target.attribute, value, target, explicit=True))
            return
        if inspect.isfunction(value):
            built = self._built(module, target.attribute, value, target, out)
            if built is not None:
                out.candidates.append(self._candidate(module, target.attribute, built, target, explicit=True))
            return
        what = (
            'has no attribute' if value is None else f'is a {type(value).__name__}, not a pydantic_ai.Agent:'
        )
        out.problems.append(
            _problem(
                'target_not_found', target, f'{module.__name__} {what} {target.attribute!r}.', module=module
            )
        )

    def _built(
        self, module: ModuleType, attribute: str, factory: Any, target: Target, out: Collection
    ) -> Agent[Any, Any] | None:
        """The agent a factory function named as a target builds, called once without arguments
        (again only when its module is imported again); a problem when it cannot be."""
        key = f'{module.__name__}:{attribute}'
        cached = self._factories.get(key)
        if cached is not None and cached[0] is factory:
            return cached[1]
        where = f'{key}()'
        refusal: str | None = None
        if inspect.iscoroutinefunction(factory):
            refusal = (
                f'{key} is an async function; discovery calls a factory without awaiting it: name a sync one.'
            )
        elif not _callable_without_arguments(factory):
            refusal = f'{key} needs arguments; discovery calls a factory without any: give them defaults.'
        if refusal is not None:
            out.problems.append(_problem('factory_error', target, refusal, module=module))
            return None
        try:
            with discovery_mode():
                built = factory()
        except Exception as exc:
            problem = _problem(
                'factory_error',
                target,
                f'{where} raised {type(exc).__name__}: {exception_message(exc)}',
                module=module,
            )
            problem.exception = type(exc).__name__
            problem.traceback = format_traceback(exc)
            out.problems.append(problem)
            return None
        if not isinstance(built, Agent):
            message = f'{where} returned a {type(built).__name__}, not a pydantic_ai.Agent.'
            out.problems.append(_problem('factory_error', target, message, module=module))
            return None
        self._factories[key] = (factory, built)
        return built

    def _candidates(self, module: ModuleType, target: Target, out: Collection) -> None:
        facts = self.tracker.facts(module.__name__)
        imported = facts.imported_names if facts else frozenset()
        for attribute, value in list(vars(module).items()):
            if isinstance(value, Agent):
                candidate = self._candidate(module, attribute, value, target, imported=attribute in imported)
                out.candidates.append(candidate)
        if module.__name__ not in out.tool_modules:
            out.tool_modules.add(module.__name__)
            out.evaluators.extend(evaluators_in(module))
            found, failed = self._tools_of(module, frozenset(imported))
            out.tools.extend(found)
            for attribute, error in failed:
                out.problems.append(
                    DiscoveryProblem(
                        kind='tool_error',
                        target=target.raw,
                        file=str(module_file(module)) if module_file(module) else None,
                        module=module.__name__,
                        exception=type(error).__name__,
                        message=(
                            f'{module.__name__}:{attribute}: not a usable tool: {exception_message(error)}'
                        ),
                        traceback=format_traceback(error),
                    )
                )

    def _tools_of(
        self, module: ModuleType, imported: frozenset[str]
    ) -> tuple[list[RegistryTool], list[tuple[str, Exception]]]:
        """The module's registry tools, read again only when the module was imported again."""
        cached = self._tools.get(module.__name__)
        if cached is not None and cached[0] is module:
            return cached[1]
        result = tools_in(module, imported=imported)
        self._tools[module.__name__] = (module, result)
        return result

    def _candidate(
        self, module: ModuleType, attribute: str, agent: Agent[Any, Any], target: Target, **flags: bool
    ) -> Candidate:
        return Candidate(
            module.__name__,
            attribute,
            agent,
            target.raw,
            file=module_file(module),
            placeholder_vars=self._placeholders.get(module.__name__, ()),
            **flags,
        )

    # -- spec files ---------------------------------------------------------------------------

    def _spec(self, path: Path, target: Target, out: Collection) -> None:
        current = stamp(path)
        out.watch[path] = current
        cached = self._specs.get(path)
        if cached is None or cached[0] != current:
            agent, error, trace = load_spec(path)
            problem = None
            if error is not None:
                problem = DiscoveryProblem(
                    kind='spec_error',
                    target=target.raw,
                    file=str(path),
                    exception=type(error).__name__,
                    message=exception_message(error),
                    traceback=trace,
                )
            cached = (current, agent, problem)
            self._specs[path] = cached
        _, agent, problem = cached
        if problem is not None:
            out.problems.append(problem)
        elif agent is not None:
            shown = _display(path, self.project_root)
            out.candidates.append(
                Candidate(shown, path.name, agent, target.raw, file=path, explicit=True, spec=True)
            )

    def _spec_like(self, path: Path) -> bool:
        return _cached(self._is_spec, path, looks_like_spec)

    def _wanted(self, path: Path) -> bool:
        return _cached(self._mentions, path, targets_module.mentions_agent)


def _cached(cache: dict[Path, tuple[Stamp | None, bool]], path: Path, check: Any) -> bool:
    current = stamp(path)
    hit = cache.get(path)
    if hit is not None and hit[0] == current:
        return hit[1]
    value = bool(check(path))
    cache[path] = (current, value)
    return value


def _files_in(error: BaseException) -> list[Path]:
    """Source files an exception's traceback (and its causes, and a SyntaxError) went through."""
    files: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, SyntaxError) and current.filename:
            files.append(current.filename)
        tb = current.__traceback__
        while tb is not None:
            files.append(tb.tb_frame.f_code.co_filename)
            tb = tb.tb_next
        current = current.__cause__ or current.__context__
    return [Path(name).resolve() for name in dict.fromkeys(files) if name.endswith('.py')]


def _submodule(package: str, folder: Path, path: Path) -> str | None:
    relative = path.with_suffix('').relative_to(folder).parts
    parts = list(relative[:-1] if relative[-1] == '__init__' else relative)
    if not all(part.isidentifier() for part in parts):
        return None
    return '.'.join([package, *parts])


def _standalone_name(path: Path) -> str:
    stem = ''.join(ch if ch.isalnum() or ch == '_' else '_' for ch in path.stem)
    return stem if stem and not stem[0].isdigit() else f'_{stem}'


def _display(path: Path, project_root: Path) -> str:
    try:
        return path.relative_to(project_root).as_posix()
    except ValueError:
        return str(path)


def _callable_without_arguments(function: Any) -> bool:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    required = (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.KEYWORD_ONLY,
    )
    return all(p.default is not inspect.Parameter.empty for p in parameters if p.kind in required)


def _problem(
    kind: Any, target: Target, message: str, *, module: ModuleType | None = None
) -> DiscoveryProblem:
    return DiscoveryProblem(
        kind=kind,
        target=target.raw,
        file=str(target.path) if target.path else None,
        module=module.__name__ if module else target.module,
        exception='LookupError' if kind == 'target_not_found' else 'Exception',
        message=message,
    )
