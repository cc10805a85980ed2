"""A conversation's attachment files: finding a stored one, and removing them (the one place
Synapse deletes anything from the disk).

`remove_inside(root, path)` removes a file or a folder only when it lies strictly inside `root`
(the attachments folder), resolved: never `root` itself, never a path that climbs out of it with
`..`, never a symlink (a link is left where it is, and what it points at is never touched). A
refused path is logged and removes nothing, so a bad name can cost a leftover folder, never a
user's file.

`resolve_path(root, reference, conversation_id, message_id)` reads a stored attachment reference
back only inside its own message's folder.

`owned_entries(root)` lists what `synapse clear` may sweep: folders directly in `root` whose
name is a Synapse id. With `SYNAPSE_HOME=.` the attachments folder can be a project's own
`attachments/`, and then everything else in it belongs to the project.
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
from pathlib import Path
from typing import Any

from ..store.ids import is_valid_id

logger = logging.getLogger('synapse.store')


def remove_inside(root: Path, path: Path) -> tuple[int, int]:
    """Remove `path` if it lies strictly inside `root` and is no symlink; the (files, bytes) removed."""
    target = _checked(root, path)
    if target is None:
        return 0, 0
    try:
        mode = target.lstat().st_mode
    except FileNotFoundError:
        return 0, 0
    except (OSError, ValueError) as exc:  # a name too long for the filesystem, a NUL byte
        logger.warning('not removing %s: %s', _short(path), type(exc).__name__)
        return 0, 0
    if stat.S_ISLNK(mode):
        logger.warning('not removing %s: it is a symlink', _short(path))
        return 0, 0
    try:
        if stat.S_ISDIR(mode):
            files, size = _tally(target)
            # rmtree never follows a symlink it meets inside the folder: it removes the link.
            shutil.rmtree(target)
            return files, size
        size = target.lstat().st_size if stat.S_ISREG(mode) else 0
        target.unlink()
        return (1 if stat.S_ISREG(mode) else 0), size
    except FileNotFoundError:
        return 0, 0
    except OSError as exc:
        logger.warning('could not remove %s: %s', _short(path), exc)
        return 0, 0


def owned_entries(root: Path) -> list[Path]:
    """The folders directly in `root` that Synapse made: named with an id, real folders, no symlinks."""
    if root.is_symlink() or not root.is_dir():
        return []
    owned: list[Path] = []
    for entry in root.iterdir():
        if is_valid_id(entry.name) and not entry.is_symlink() and entry.is_dir():
            owned.append(entry)
    return owned


def _checked(root: Path, path: Path) -> Path | None:
    """`path` with its parent folder resolved, when it names an entry strictly inside `root`."""
    if path.name in ('', '.', '..'):
        logger.warning('not removing %s: it names no entry of its own', _short(path))
        return None
    try:
        base = root.resolve(strict=True)
        parent = path.parent.resolve(strict=True)
    except (OSError, RuntimeError, ValueError):  # nothing there, a symlink loop, a NUL byte
        return None
    if parent != base and base not in parent.parents:
        logger.warning('not removing %s: it is outside %s', _short(path), base)
        return None
    return parent / path.name


def _short(path: Path) -> str:
    text = str(path)
    return text if len(text) <= 300 else f'{text[:300]}… ({len(text)} characters)'


def _tally(folder: Path) -> tuple[int, int]:
    files = size = 0
    for directory, _folders, names in os.walk(folder, followlinks=False):
        for name in names:
            try:
                info = os.lstat(os.path.join(directory, name))
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                files += 1
                size += info.st_size
    return files, size


def resolve_path(
    attachments_dir: Path, reference: dict[str, Any], conversation_id: str, message_id: str
) -> Path | None:
    """The file a message's reference points at: a regular file inside that message's folder, or None.

    The stored path is not trusted: whatever it says (`..`, an absolute path, another message's
    file, a symlink out of the folder, a NUL byte, a name too long), the resolved file must sit
    directly in `<attachments>/<conversation_id>/<message_id>/`.
    """
    relative = reference.get('path')
    if not isinstance(relative, str) or not relative:
        return None
    try:
        root = attachments_dir.resolve()
        folder = (root / conversation_id / message_id).resolve()
        candidate = (root / relative).resolve()
        if root not in folder.parents or candidate.parent != folder or not candidate.is_file():
            return None
    except (OSError, ValueError):  # a NUL byte, a name too long for the filesystem, a symlink loop
        return None
    return candidate
