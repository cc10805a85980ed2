"""The `[tool.synapse]` settings that apply on the next request after `pyproject.toml` changes.

Settings are loaded once at start (`settings.py`) into one `Settings` object that every part of a
running Synapse reads. `SettingsReloader.refresh()` (one `stat` when nothing changed) re-reads the
project's `pyproject.toml` when it changed and writes the live settings into that same object, so
the next request, turn or fired signal uses them:

- `currency_rates`, `placers`, `deps_lifetime` and `deps` (discovery also re-reads
  `[tool.synapse.deps]` itself, to report a table it cannot use: `discovery/pyproject_deps.py`).

A live setting given on the command line or in the environment wins over the file, as at start,
and is not replaced. A file that cannot be read, or a live value that is not valid, keeps the
values read last and logs why. Any other `[tool.synapse]` setting that changed is logged once as
needing a restart: those choose what the process opens (its database, port, discovery targets...)
or are read once by the part they configure.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Any

from .settings import LoadedSettings, Settings, SettingsError, describe_validation_error, read_pyproject_table

LIVE_SETTINGS: tuple[str, ...] = ('currency_rates', 'placers', 'deps_lifetime', 'deps')
"""The settings a changed `pyproject.toml` updates in a running Synapse."""

logger = logging.getLogger('synapse.settings')

Stamp = tuple[int, int]


def _stamp(path: Path) -> Stamp | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return (status.st_mtime_ns, status.st_size)


class SettingsReloader:
    """Follows the `pyproject.toml` `loaded` was read from and keeps its live settings current."""

    def __init__(self, loaded: LoadedSettings) -> None:
        self.settings = loaded.settings
        self.file = loaded.pyproject
        self._owned = {value.name for value in loaded.values if value.source in ('pyproject', 'default')}
        """The live settings the file may set (the command line and the environment win)."""
        self._stamp = _stamp(self.file) if self.file is not None else None
        self._table = self._read_quietly()
        self._lock = threading.Lock()
        self.reloads = 0
        """How many times the file was read again (for tests)."""

    def refresh(self) -> bool:
        """Apply the file's live settings if it changed since the last look; True when it was read."""
        if self.file is None or _stamp(self.file) == self._stamp:
            return False
        with self._lock:
            current = _stamp(self.file)
            if current == self._stamp:
                return False
            self._stamp = current
            self.reloads += 1
            try:
                table = read_pyproject_table(self.file) if current is not None else {}
            except SettingsError as exc:
                logger.warning('%s; the settings read last still apply.', exc)
                return True
            self._apply(table)
            self._tell_restart(table)
            self._table = table
            return True

    def _apply(self, table: dict[str, Any]) -> None:
        live = {name: table[name] for name in LIVE_SETTINGS if name in table and name in self._owned}
        try:
            fresh = Settings(**live)
        except ValueError as exc:
            logger.warning(
                '%s in %s; the settings read last still apply.',
                describe_validation_error(exc, table, {}),
                self.file,
            )
            return
        for name in LIVE_SETTINGS:
            if name in self._owned:
                setattr(self.settings, name, getattr(fresh, name))

    def _tell_restart(self, table: dict[str, Any]) -> None:
        changed = sorted(
            name
            for name in {*table, *self._table}
            if name not in LIVE_SETTINGS and table.get(name) != self._table.get(name)
        )
        for name in changed:
            logger.warning('%s changed in %s: restart Synapse to apply it.', name, self.file)

    def _read_quietly(self) -> dict[str, Any]:
        if self.file is None:
            return {}
        try:
            return read_pyproject_table(self.file)
        except SettingsError:
            return {}
