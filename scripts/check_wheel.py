"""Fail when a built wheel lacks what Synapse needs at run time.

Migrations, the typing marker, and the dashboard: ``web/static/index.html`` with at least one
JavaScript and one CSS asset (the build output git ignores; see hatch_build.py).
"""

from __future__ import annotations

import sys
import zipfile

REQUIRED = [
    'synapse_agents/py.typed',
    'synapse_agents/store/migrations/env.py',
    'synapse_agents/store/migrations/script.py.mako',
    'synapse_agents/store/migrations/versions/0001_initial.py',
    'synapse_agents/web/static/index.html',
    'synapse_agents/web/static/theme.js',
]
ASSETS = 'synapse_agents/web/static/assets/'


def missing_files(names: set[str]) -> list[str]:
    """What the wheel whose file names are `names` lacks, in words."""
    missing = [name for name in REQUIRED if name not in names]
    assets = [name for name in names if name.startswith(ASSETS)]
    if not any(name.endswith('.js') for name in assets):
        missing.append(f'{ASSETS}*.js (the dashboard script: run `make frontend`)')
    if not any(name.endswith('.css') for name in assets):
        missing.append(f'{ASSETS}*.css (the dashboard styles: run `make frontend`)')
    return missing


def main(path: str) -> int:
    names = set(zipfile.ZipFile(path).namelist())
    missing = missing_files(names)
    if missing:
        print(f'{path} is missing: {", ".join(missing)}')
        return 1
    print(f'{path}: {len(names)} files, all required files present (dashboard included).')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
