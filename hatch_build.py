"""Hatchling build hook: a wheel (or sdist) of Synapse always carries the built dashboard.

The dashboard's JS and CSS are build output (git ignores ``src/synapse_agents/web/static``). When a
build starts without them and the ``frontend/`` sources are there, this hook runs
``npm ci`` (when ``node_modules`` is missing or older than the lockfile) and ``npm run build``,
which writes into the package. Building from an sdist that already carries the dashboard needs
no Node at all. ``scripts/check_wheel.py`` fails a wheel that still lacks it. ``make install``
builds the dashboard before ``pip install -e`` (pip hides a build hook's output), so this hook
finds it built and skips.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

STATIC = Path('src/synapse_agents/web/static')


class DashboardBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = 'custom'

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        if (root / STATIC / 'index.html').is_file():
            return
        frontend = root / 'frontend'
        if not (frontend / 'package.json').is_file():
            self.app.display_warning(
                f'{STATIC}/index.html is missing and there is no frontend/ to build it from: '
                'the package will have no dashboard.'
            )
            return
        npm = shutil.which('npm')
        if npm is None:
            raise RuntimeError(
                'Building Synapse needs the dashboard, and building the dashboard needs Node 20+ and npm '
                '(or run `make frontend` first, elsewhere, and build again).'
            )
        if _needs_install(frontend):
            self.app.display_info('Installing the dashboard dependencies (npm ci)...')
            subprocess.run([npm, 'ci', '--no-audit', '--no-fund'], cwd=frontend, check=True)
        self.app.display_info('Building the dashboard (npm run build)...')
        subprocess.run([npm, 'run', 'build'], cwd=frontend, check=True)
        if not (root / STATIC / 'index.html').is_file():
            raise RuntimeError(f'npm run build finished without writing {STATIC}/index.html')


def _needs_install(frontend: Path) -> bool:
    installed = frontend / 'node_modules' / '.package-lock.json'
    lock = frontend / 'package-lock.json'
    return not installed.is_file() or (lock.is_file() and lock.stat().st_mtime > installed.stat().st_mtime)
