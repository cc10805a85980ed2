"""Hot reload: notice edited files by their stamps, and re-import only what they affect.

Every module discovery imports from the project is recorded with its file's stamp (modification time
in nanoseconds, size and inode) and with the project modules it imports (read from its source with
`ast`, relative imports resolved; a submodule also depends on its package). A scan stats the
recorded files: when one changed or disappeared, that module and every module that imports it,
directly or not, are removed from `sys.modules` (with their cached bytecode) and imported afresh;
every other module stays as it is and is not executed again.

What reload cannot do (docs/discovery.md says the same):

- objects created from the old code stay alive where something still holds them: a chat run that
  started before the edit finishes on the old agent;
- a module that *changes another module's agent* (`@other.agent.tool` in a second file) registers
  on the existing object again when it is re-imported; restart after such edits;
- modules imported dynamically (`importlib.import_module(name)` with a computed name) are not seen
  as dependencies, and a change to a file outside the project (an installed package) is not noticed;
- state kept at module level (caches, connections, counters) starts over in re-imported modules;
- new or changed environment variables are noticed only through the `.env` files Synapse loaded.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import importlib
import importlib.util
import linecache
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType


@dataclass(frozen=True)
class Stamp:
    """What changes when a file is edited, replaced or removed."""

    mtime_ns: int
    size: int
    inode: int


def stamp(path: Path | str) -> Stamp | None:
    """The file's current stamp, or None when it does not exist."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return Stamp(st.st_mtime_ns, st.st_size, st.st_ino)


@dataclass(frozen=True)
class SourceFacts:
    """What discovery reads from a module's source."""

    imports: frozenset[str]
    """Absolute names of every module the source imports (and their parent packages)."""
    imported_names: frozenset[str]
    """Names bound by `from x import name` statements: agents found under them live elsewhere."""


def read_source_facts(path: Path, module: str, *, is_package: bool) -> SourceFacts:
    """Parse `path` once for the modules it imports and the names it imports."""
    try:
        tree = ast.parse(path.read_bytes(), str(path))
    except (OSError, SyntaxError, ValueError):
        return SourceFacts(frozenset(), frozenset())
    package = module if is_package else module.rpartition('.')[0]
    imports: set[str] = set()
    names: set[str] = set()
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                imports.update(_with_parents(alias.name))
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node.module, node.level, package)
            if base is None:
                continue
            imports.update(_with_parents(base))
            for alias in node.names:
                if alias.name != '*':
                    imports.add(f'{base}.{alias.name}')
                    names.add(alias.asname or alias.name)
    return SourceFacts(frozenset(imports), frozenset(names))


def _statements(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every statement, nested ones included (imports inside functions, `if`, `try`...), no expressions."""
    pending: list[ast.AST] = list(reversed(body))
    while pending:
        node = pending.pop()
        yield node
        for name in ('body', 'orelse', 'finalbody', 'handlers', 'cases'):
            children = getattr(node, name, None)
            if isinstance(children, list):
                pending.extend(child for child in reversed(children) if isinstance(child, ast.AST))


def _absolute(name: str | None, level: int, package: str) -> str | None:
    if level == 0:
        return name
    parts = package.split('.') if package else []
    if level - 1 > len(parts):
        return None
    base = '.'.join(parts[: len(parts) - (level - 1)])
    if name:
        return f'{base}.{name}' if base else name
    return base or None


def _with_parents(name: str) -> list[str]:
    parts = name.split('.')
    return ['.'.join(parts[: i + 1]) for i in range(len(parts))]


@dataclass
class ModuleRecord:
    """One project module discovery imported."""

    name: str
    file: Path
    stamp: Stamp | None
    facts: SourceFacts
    depends_on: set[str] = field(default_factory=set)
    placeholder_vars: tuple[str, ...] = ()


class ReloadTracker:
    """The project modules discovery imported, their stamps and who imports whom."""

    def __init__(self) -> None:
        self.records: dict[str, ModuleRecord] = {}

    def record(self, module: ModuleType, *, is_local: IsLocal, placeholder_vars: Iterable[str] = ()) -> None:
        """Remember `module` and, recursively, the project modules it imports."""
        pending = [(module, tuple(placeholder_vars))]
        while pending:
            current, placeholders = pending.pop()
            file = module_file(current)
            if file is None or not is_local(file):
                continue
            existing = self.records.get(current.__name__)
            if existing is not None and existing.file == file and existing.stamp == stamp(file):
                if placeholders:
                    existing.placeholder_vars = placeholders
                continue
            facts = read_source_facts(file, current.__name__, is_package=hasattr(current, '__path__'))
            record = ModuleRecord(current.__name__, file, stamp(file), facts, placeholder_vars=placeholders)
            parent = current.__name__.rpartition('.')[0]
            for name in (*facts.imports, parent):
                if name and name != current.__name__ and (dependency := sys.modules.get(name)) is not None:
                    dep_file = module_file(dependency)
                    if dep_file is not None and is_local(dep_file):
                        record.depends_on.add(name)
                        if name not in self.records:
                            pending.append((dependency, ()))
            self.records[current.__name__] = record

    def depend(self, name: str, dependency: str) -> None:
        """Add an edge the source does not show (both modules must be recorded)."""
        if name in self.records and dependency in self.records and name != dependency:
            self.records[name].depends_on.add(dependency)

    def changed(self) -> set[str]:
        """Recorded modules whose file changed or disappeared since it was imported."""
        return {name for name, record in self.records.items() if stamp(record.file) != record.stamp}

    def waiting_for(self, placeholder_prefix: str) -> set[str]:
        """Modules imported with a placeholder key that is now really set."""
        return {
            name
            for name, record in self.records.items()
            if any(
                var in os.environ and not os.environ[var].startswith(placeholder_prefix)
                for var in record.placeholder_vars
            )
        }

    def with_dependents(self, names: set[str]) -> set[str]:
        """`names` plus every recorded module that imports one of them, directly or not."""
        dependents: dict[str, set[str]] = {}
        for record in self.records.values():
            for dependency in record.depends_on:
                dependents.setdefault(dependency, set()).add(record.name)
        result = set(names)
        pending = list(names)
        while pending:
            for dependent in dependents.get(pending.pop(), ()):
                if dependent not in result:
                    result.add(dependent)
                    pending.append(dependent)
        return result

    def purge(self, names: Iterable[str]) -> None:
        """Forget these modules so the next import executes their (new) source."""
        for name in names:
            record = self.records.pop(name, None)
            module = sys.modules.pop(name, None)
            file = record.file if record else (module_file(module) if module else None)
            if file is not None:
                _drop_bytecode(file)
            parent, _, child = name.rpartition('.')
            if (
                parent
                and (package := sys.modules.get(parent)) is not None
                and getattr(package, child, None) is module
            ):
                with contextlib.suppress(AttributeError):
                    delattr(package, child)
        importlib.invalidate_caches()

    def files(self) -> dict[Path, Stamp | None]:
        """Every recorded file with the stamp it had when imported."""
        return {record.file: record.stamp for record in self.records.values()}

    def facts(self, module: str) -> SourceFacts | None:
        record = self.records.get(module)
        return record.facts if record else None


class IsLocal:
    """Decides which files belong to the project (and so are tracked for reload)."""

    def __init__(self, folders: Iterable[Path]) -> None:
        self.folders = tuple(dict.fromkeys(folders))

    def __call__(self, file: Path) -> bool:
        for folder in self.folders:
            try:
                parts = file.relative_to(folder).parts[:-1]
            except ValueError:
                continue
            if not any(part in _NOT_LOCAL or part.startswith('.') for part in parts):
                return True
        return False


_NOT_LOCAL = frozenset({'site-packages', 'dist-packages', 'node_modules', '__pycache__'})


def module_file(module: ModuleType) -> Path | None:
    """The source file a module was loaded from, if it has one."""
    file = getattr(module, '__file__', None)
    if not isinstance(file, str) or not file.endswith('.py'):
        return None
    return _resolved(file)


@functools.lru_cache(maxsize=8192)
def _resolved(file: str) -> Path:
    return Path(file).resolve()


def _drop_bytecode(file: Path) -> None:
    linecache.checkcache(str(file))
    with contextlib.suppress(OSError, NotImplementedError, ValueError):
        cached = importlib.util.cache_from_source(str(file))
        if os.path.exists(cached):
            os.unlink(cached)
