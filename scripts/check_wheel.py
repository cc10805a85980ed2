"""Fail when a built wheel lacks what Synapse needs at run time (migrations, typing marker)."""

from __future__ import annotations

import sys
import zipfile

REQUIRED = [
    'synapse_agents/py.typed',
    'synapse_agents/store/migrations/env.py',
    'synapse_agents/store/migrations/script.py.mako',
    'synapse_agents/store/migrations/versions/0001_initial.py',
]


def main(path: str) -> int:
    names = set(zipfile.ZipFile(path).namelist())
    missing = [name for name in REQUIRED if name not in names]
    if missing:
        print(f'{path} is missing: {", ".join(missing)}')
        return 1
    print(f'{path}: {len(names)} files, all required files present.')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
