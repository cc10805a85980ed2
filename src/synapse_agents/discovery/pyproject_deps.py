"""`[tool.synapse.deps]` read again when the project's `pyproject.toml` changes.

The `deps` setting is loaded once at start (`settings.py`). When it came from the project's
`pyproject.toml` (or was not set anywhere), the catalog watches that file like an agent module: an
edit applies at the next scan, so on the next request. A file that cannot be read, or whose table is
not `"module:attribute" = "module:callable"` strings, keeps the table read last and becomes an
`import_error` problem of the report until it is fixed. A `deps` value from the command line or the
environment wins over the file, as at start, and is not replaced.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .agent_info import DiscoveryProblem
from .deps_sources import PYPROJECT_TABLE
from .reload import Stamp, stamp


@dataclass
class PyprojectDeps:
    """The `[tool.synapse.deps]` table of one `pyproject.toml`, re-read when its stamp changes."""

    file: Path
    table: dict[str, str] = field(default_factory=dict)
    """The table read last (the one given at start until the file changes)."""
    problem: DiscoveryProblem | None = None
    _stamp: Stamp | None = None

    @classmethod
    def watching(cls, file: Path, table: Mapping[str, str]) -> PyprojectDeps:
        """Follow `file`, starting from the `table` the settings read from it."""
        return cls(file.resolve(), dict(table), None, stamp(file))

    def refresh(self) -> dict[Path, Stamp | None]:
        """Read the table again if the file changed; returns the path to watch with its stamp."""
        current = stamp(self.file)
        if current == self._stamp:
            return {self.file: current}
        self._stamp = current
        try:
            self.table = read_table(self.file) if current is not None else {}
            self.problem = None
        except (OSError, ValueError) as exc:
            self.problem = DiscoveryProblem(
                kind='import_error',
                target='pyproject.toml',
                file=str(self.file),
                exception=type(exc).__name__,
                message=(
                    f'{PYPROJECT_TABLE} of {self.file} could not be read again ({exc}); the table read '
                    'last still applies.'
                ),
            )
        return {self.file: current}


def read_table(file: Path) -> dict[str, str]:
    """`[tool.synapse.deps]` of `file` (empty when absent); `ValueError` when it is malformed."""
    data: Any = tomllib.loads(file.read_text(encoding='utf-8'))
    for key in ('tool', 'synapse', 'deps'):
        data = data.get(key, {}) if isinstance(data, dict) else None
    if not isinstance(data, dict):
        raise ValueError(f'{PYPROJECT_TABLE} must be a table')
    bad = next((key for key, value in data.items() if not isinstance(value, str)), None)
    if bad is not None:
        raise ValueError(f'{bad!r} must name a factory as a "module:callable" string')
    return dict(data)
