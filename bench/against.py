"""Another commit to run side by side: a temporary git worktree whose `src` goes first on
`PYTHONPATH` in this environment (so its dependencies must match this one's).

The dashboard's built files (`src/synapse_agents/web/static`) are not in git: they are copied from
this working tree, so the other commit serves this tree's dashboard (the API is the other commit's).
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STATIC = Path('src/synapse_agents/web/static')


@dataclass
class Checkout:
    """A worktree of `ref` at `path`; `remove` deletes it."""

    ref: str
    path: Path

    @property
    def src(self) -> Path:
        return self.path / 'src'

    def remove(self) -> None:
        subprocess.run(['git', 'worktree', 'remove', '--force', str(self.path)], cwd=ROOT, check=False)


def checkout(ref: str, path: Path) -> Checkout:
    """Check `ref` out at `path` (detached) and give it this tree's dashboard files."""
    commit = subprocess.run(
        ['git', 'rev-parse', '--short', f'{ref}^{{commit}}'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    subprocess.run(['git', 'worktree', 'add', '--detach', str(path), commit], cwd=ROOT, check=True,
                   capture_output=True)  # fmt: skip
    if (ROOT / STATIC).is_dir() and not (path / STATIC).exists():
        shutil.copytree(ROOT / STATIC, path / STATIC)
    return Checkout(commit if commit.startswith(ref) else f'{ref} ({commit})', path)
