"""Where discovery looks: parsing targets, walking folders, and naming the modules it finds.

A target is one of:

- a module path, `myapp.agents` (a package is scanned with its submodules), or `myapp.agents:support`;
- a `.py` file (optionally `path/to/file.py:attribute`);
- a folder, scanned recursively for `.py` files and agent spec files;
- an agent spec file, `.json` / `.yaml` / `.yml`, loaded with `Agent.from_file`.

With no target: `./agents` when that folder exists, else the project root. Relative paths are
taken from the project root, then from the current directory.

A folder scan skips hidden folders, virtual environments (a `pyvenv.cfg` inside), `node_modules`,
`site-packages`, `__pycache__`, `build`, `dist`, `migrations`, test folders (`tests`, `test`) and
files (`test_*.py`, `*_test.py`, `conftest.py`), and scripts that run on import (`__main__.py`,
`setup.py`, `noxfile.py`, `manage.py`). It imports a `.py` file only when its text mentions
"agent" (any case), so unrelated scripts in a project are never run. The `__init__.py` of a
project root that is itself a package is not run either (`is_root_package_init`): its files import
as top-level modules, as they do for `python cli.py` run in that folder.
"""

from __future__ import annotations

import keyword
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..import_path import is_attribute_path
from .reload import Stamp, stamp

SPEC_SUFFIXES = ('.json', '.yaml', '.yml')
SKIP_DIRS = frozenset(
    {
        'node_modules',
        'site-packages',
        'dist-packages',
        '__pycache__',
        'build',
        'dist',
        'migrations',
        'tests',
        'test',
    }
)
SKIP_FILES = frozenset({'__main__.py', 'setup.py', 'conftest.py', 'noxfile.py', 'manage.py', 'tests.py'})

TargetKind = Literal['module', 'file', 'directory', 'spec']


@dataclass(frozen=True)
class Target:
    """One parsed target."""

    raw: str
    kind: TargetKind
    module: str | None = None
    attribute: str | None = None
    path: Path | None = None


def default_targets(project_root: Path) -> list[str]:
    """`./agents` when it exists, else the project root itself."""
    return ['./agents'] if (project_root / 'agents').is_dir() else ['.']


def parse_target(raw: str, project_root: Path) -> Target:
    """Classify a target string (it may not exist; scanning reports that)."""
    text = raw.strip()
    left, attribute = text, None
    head, sep, tail = text.rpartition(':')
    if sep and is_attribute_path(tail) and head and not (len(head) == 1 and head.isalpha()):
        left, attribute = head, tail
    if _looks_like_path(left, project_root):
        path = resolve_path(left, project_root)
        suffix = path.suffix.lower()
        if suffix in SPEC_SUFFIXES:
            return Target(raw, 'spec', path=path)
        if suffix == '.py' or path.is_file():
            return Target(raw, 'file', attribute=attribute, path=path)
        return Target(raw, 'directory', path=path)
    return Target(raw, 'module', module=left, attribute=attribute)


def _looks_like_path(text: str, project_root: Path) -> bool:
    if text.endswith(('.py', *SPEC_SUFFIXES)) or '/' in text or '\\' in text:
        return True
    if text in ('.', '..') or text.startswith('~'):
        return True
    return (project_root / text).exists() or Path(text).exists()


def resolve_path(text: str, project_root: Path) -> Path:
    """Absolute path of a target: from the project root first, then the current directory."""
    path = Path(text).expanduser()
    if path.is_absolute():
        return path.resolve()
    for base in (project_root, Path.cwd()):
        candidate = base / path
        if candidate.exists():
            return candidate.resolve()
    return (project_root / path).resolve()


# -- folders ------------------------------------------------------------------------------


@dataclass
class _Listing:
    stamp: Stamp | None
    files: list[str]
    dirs: list[str]


@dataclass
class WalkResult:
    """What a folder scan found, and every folder it looked in (to notice added files)."""

    python_files: list[Path] = field(default_factory=list)
    spec_files: list[Path] = field(default_factory=list)
    folders: list[Path] = field(default_factory=list)


class FolderWalker:
    """Recursive folder scans, each folder's listing cached until the folder's own stamp changes."""

    def __init__(self) -> None:
        self._listings: dict[Path, _Listing] = {}

    def walk(self, root: Path, *, into: WalkResult | None = None) -> WalkResult:
        """Scan `root` recursively (skipping what the module docstring lists)."""
        result = into or WalkResult()
        pending = [root]
        while pending:
            folder = pending.pop()
            result.folders.append(folder)
            listing = self._listing(folder)
            for name in listing.files:
                path = folder / name
                (result.spec_files if name.endswith(SPEC_SUFFIXES) else result.python_files).append(path)
            pending.extend(folder / name for name in reversed(listing.dirs))
        result.python_files.sort()
        result.spec_files.sort()
        return result

    def _listing(self, folder: Path) -> _Listing:
        current = stamp(folder)
        cached = self._listings.get(folder)
        if cached is not None and cached.stamp == current:
            return cached
        files: list[str] = []
        dirs: list[str] = []
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    name = entry.name
                    if name.startswith('.'):
                        continue
                    if entry.is_dir():
                        if (
                            name not in SKIP_DIRS
                            and not name.endswith('.egg-info')
                            and not _is_venv(entry.path)
                        ):
                            dirs.append(name)
                    elif entry.is_file() and _wanted_file(name):
                        files.append(name)
        except OSError:
            # A folder that cannot be read (permissions, removed meanwhile) is left out like a
            # hidden one: discovery lists what it can read rather than failing the whole scan.
            pass
        listing = _Listing(current, sorted(files), sorted(dirs))
        self._listings[folder] = listing
        return listing


def _is_venv(path: str) -> bool:
    return os.path.exists(os.path.join(path, 'pyvenv.cfg'))


def _wanted_file(name: str) -> bool:
    if name.endswith(SPEC_SUFFIXES):
        return True
    if not name.endswith('.py') or name in SKIP_FILES:
        return False
    return not (name.startswith('test_') or name.endswith('_test.py'))


def mentions_agent(path: Path) -> bool:
    """The cheap filter a folder scan applies before importing a file: it mentions "agent" (which
    `synapse_agents` does), "functiontoolset" or "pydantic_evals" (a module of evaluators), in
    any case."""
    try:
        text = path.read_bytes().lower()
    except OSError:
        return False
    return b'agent' in text or b'functiontoolset' in text or b'pydantic_evals' in text


# -- module names -------------------------------------------------------------------------

_script_dirs: set[Path] = set()


def import_roots(project_root: Path) -> list[Path]:
    """Folders whose contents are importable as top-level modules: `src/` (if any), the project."""
    roots = [project_root / 'src'] if (project_root / 'src').is_dir() else []
    roots.append(project_root)
    for entry in sys.path:
        if not entry:
            continue
        path = Path(entry)
        if path.is_dir() and path not in _script_dirs and path != Path.cwd() and _inside(path, project_root):
            roots.append(path)
    return roots


def ensure_importable(roots: Sequence[Path]) -> None:
    """Put each root on sys.path (in front, like `python -m` puts the current folder)."""
    for root in reversed(list(roots)):
        if str(root) not in sys.path:
            sys.path.insert(0, str(root))


def ensure_script_dir(folder: Path) -> None:
    """Let files of a folder that is not a package import their siblings (`from tools import x`)."""
    if not (folder / '__init__.py').exists() and str(folder) not in sys.path:
        _script_dirs.add(folder)
        sys.path.append(str(folder))


def is_root_package_init(path: Path, roots: Sequence[Path]) -> bool:
    """Whether `path` is the `__init__.py` of an import root (a project root that is a package).

    A folder scan leaves it out: the root's files import as top-level modules, as `python cli.py`
    run in that folder imports them, and that never runs the folder's own `__init__.py`. Running it
    would import the same files again under package names (`bot.agent` beside `agent`): twin
    agents, or, when the package has the name of one of its modules (`agent/agent.py`), a module
    that cannot be imported at all.
    """
    return path.name == '__init__.py' and any(path.parent == root for root in roots)


def module_name_for(path: Path, roots: Sequence[Path]) -> tuple[str, Path] | None:
    """The dotted name `path` imports as, and the root it is relative to (deepest root wins)."""
    for root in sorted(roots, key=lambda r: len(r.parts), reverse=True):
        if _inside(path, root) and (name := _dotted(path, root)):
            return name, root
    folder = path.parent
    while (folder / '__init__.py').exists() and folder.parent != folder:
        folder = folder.parent
    name = _dotted(path, folder)
    return (name, folder) if name else None


def _dotted(path: Path, root: Path) -> str | None:
    try:
        parts = list(path.with_suffix('').relative_to(root).parts)
    except ValueError:
        return None
    if parts and parts[-1] == '__init__':
        parts.pop()
    if not parts or not all(p.isidentifier() and not keyword.iskeyword(p) for p in parts):
        return None
    return '.'.join(parts)


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True
