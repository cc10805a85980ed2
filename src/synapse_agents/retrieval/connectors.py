"""Connectors: where a source's files come from. Built in: a local `folder` and `upload`ed files;
more kinds come from plugins (the `register_rag_connectors` hook; `url_connector` is the example).

A connector only lists and reads: it never writes where the files are. `check` turns what a person
gave into the config that is stored (or refuses it with `SourceInvalid`), `files` lists the files of
a checked config, each a `SourceFile` whose bytes are read only when asked for.

Globs (the `folder` kind's `include` and `exclude`) match a file's path relative to the folder, with
`/` between folders, case-sensitively:

- a pattern without a `/` matches the file's name in any folder, as `Path.rglob` does: `*.md` takes
  `a.md` and `notes/b.md`;
- a pattern with a `/` matches the whole relative path, as `PurePath.full_match` does: `*` and `?`
  stay within one folder's name, `[abc]` is a class, and a `**` segment matches any number of
  folders (none included): `docs/*.md` takes `docs/a.md` only, `docs/**/*.md` also `docs/x/y/b.md`;
- an `exclude` pattern that matches a folder leaves out everything under it (`drafts`, `build/**`).

The default `include` is `['**/*']`: every file whose suffix the parsers read (`extract.SUPPORTED`).
Hidden files and folders (a name starting with `.`) are skipped, and so are symbolic links that lead
outside the folder; links to folders are not followed (what they lead to inside the folder is
listed under its own path). Files come in sorted order of their relative paths.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any, Protocol, runtime_checkable

import pluggy

from ..errors import DocumentUnreadable, SourceInvalid
from ..plugins.manager import PluginError, plugin_rag_connectors
from .extract import SUPPORTED

DEFAULT_INCLUDE = ('**/*',)
UPLOADS = 'rag'
"""The folder of `SYNAPSE_HOME` under which each `upload` source keeps its files (`rag/<source id>/`)."""
_SOURCE_ID = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$')


@dataclass(frozen=True)
class SourceFile:
    """One file of a source: `identifier` is stable within the source (a relative path, a URL),
    `name` is the file name whose suffix picks the parser, `read()` answers its bytes (or raises
    `DocumentUnreadable` saying why this file alone cannot be had); `size` in bytes when known
    before reading."""

    identifier: str
    name: str
    read: Callable[[], bytes]
    size: int | None = None


@runtime_checkable
class Connector(Protocol):
    """A kind of source: `kind` is its slug (`folder`), `label` its name for people (`Folder`)."""

    kind: str
    label: str

    def check(self, config: dict[str, Any], home: Path) -> dict[str, Any]:
        """The config to store for `config` (normalised), or `SourceInvalid` saying what is wrong."""
        ...

    def files(self, config: dict[str, Any], home: Path) -> Iterator[SourceFile]:
        """The files of a checked `config`, in a stable order; `home` is `SYNAPSE_HOME`."""
        ...


def connectors(manager: pluggy.PluginManager) -> dict[str, Connector]:
    """Every connector by kind: the built-in ones, then the plugins' (a plugin may not reuse a kind)."""
    found: dict[str, Connector] = {connector.kind: connector for connector in BUILT_IN}
    for connector in plugin_rag_connectors(manager):
        if connector.kind in found:
            raise PluginError(f'two RAG connectors have the kind {connector.kind!r} (one is built in)')
        found[connector.kind] = connector
    return found


def connector_for(kind: str, manager: pluggy.PluginManager) -> Connector:
    """The connector of `kind`, or `SourceInvalid` naming the kinds there are."""
    known = connectors(manager)
    if kind not in known:
        raise SourceInvalid(f'kind: no connector {kind!r}; the kinds are {", ".join(sorted(known))}')
    return known[kind]


# -- globs -------------------------------------------------------------------------------------


def glob_matches(pattern: str, path: str) -> bool:
    """Whether the relative path `path` (with `/`) matches `pattern` (see the module's docstring)."""
    parts = path.split('/')
    if '/' not in pattern:
        return fnmatchcase(parts[-1], pattern)
    return _segments_match(pattern.strip('/').split('/'), parts)


def _segments_match(pattern: list[str], parts: list[str]) -> bool:
    if not pattern:
        return not parts
    if pattern[0] == '**':
        rest = pattern[1:]
        return any(_segments_match(rest, parts[skip:]) for skip in range(len(parts) + 1))
    return bool(parts) and fnmatchcase(parts[0], pattern[0]) and _segments_match(pattern[1:], parts[1:])


def _globs(config: dict[str, Any], key: str, default: Sequence[str]) -> list[str]:
    value = config.get(key)
    if value is None:
        return list(default)
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise SourceInvalid(f'{key}: a list of glob patterns, not {type(value).__name__}')
    globs: list[str] = []
    for glob in value:
        if not isinstance(glob, str) or not glob.strip():
            raise SourceInvalid(f'{key}: {glob!r} is not a glob pattern')
        glob = glob.strip().replace('\\', '/')
        if glob.startswith('/') or '..' in glob.split('/'):
            raise SourceInvalid(f'{key}: {glob!r} must be relative to the folder, without ..')
        globs.append(glob)
    return globs


def _unknown_keys(config: dict[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(config) - allowed)
    if extra:
        raise SourceInvalid(
            f'{extra[0]}: not a setting of this kind of source (it has: {", ".join(sorted(allowed))})'
        )


# -- listing a folder --------------------------------------------------------------------------


def folder_files(root: Path, include: Sequence[str], exclude: Sequence[str]) -> Iterator[SourceFile]:
    """The readable files under `root` that `include` takes and `exclude` leaves, sorted by relative
    path; hidden entries and links that lead outside `root` skipped. Reads nothing but the listing."""
    root = root.resolve()
    found: list[tuple[str, Path, int]] = []
    for folder, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(folder)
        relative_folder = here.relative_to(root).as_posix()
        prefix = '' if relative_folder == '.' else f'{relative_folder}/'
        dirnames[:] = sorted(
            name
            for name in dirnames
            if not name.startswith('.') and not any(glob_matches(g, f'{prefix}{name}') for g in exclude)
        )
        for name in filenames:
            relative = f'{prefix}{name}'
            if name.startswith('.') or PurePosixPath(name).suffix.lower() not in SUPPORTED:
                continue
            if not any(glob_matches(g, relative) for g in include):
                continue
            if any(glob_matches(g, relative) for g in exclude):
                continue
            path = here / name
            if path.is_symlink() and not _inside(path, root):
                continue
            try:
                stat = path.stat()
            except OSError:  # a dangling link, or a file removed since the listing
                continue
            if path.is_file():
                found.append((relative, path, stat.st_size))
    for relative, path, size in sorted(found):
        yield SourceFile(identifier=relative, name=path.name, read=partial(_read, path, relative), size=size)


def _read(path: Path, relative: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:  # removed since the listing, no permission, a folder now
        raise DocumentUnreadable(f'{relative}: cannot be read ({exc.strerror or exc})') from exc


def _inside(path: Path, root: Path) -> bool:
    try:
        return path.resolve().is_relative_to(root)
    except (OSError, RuntimeError):  # a link loop
        return False


# -- the built-in kinds ------------------------------------------------------------------------


class FolderConnector:
    """A folder on this machine: config `{"path", "include", "exclude"}` (the path stored absolute;
    a relative one is taken from the current folder)."""

    kind = 'folder'
    label = 'Folder'

    def check(self, config: dict[str, Any], home: Path) -> dict[str, Any]:
        _unknown_keys(config, {'path', 'include', 'exclude'})
        raw = config.get('path')
        if not isinstance(raw, str) or not raw.strip():
            raise SourceInvalid('path: a folder kind of source needs the path of a folder')
        path = Path(raw.strip()).expanduser()
        path = (path if path.is_absolute() else Path.cwd() / path).resolve()
        if not path.exists():
            raise SourceInvalid(f'path: {path} does not exist')
        if not path.is_dir():
            raise SourceInvalid(f'path: {path} is not a folder')
        return {
            'path': str(path),
            'include': _globs(config, 'include', DEFAULT_INCLUDE),
            'exclude': _globs(config, 'exclude', ()),
        }

    def files(self, config: dict[str, Any], home: Path) -> Iterator[SourceFile]:
        checked = self.check(config, home)
        return folder_files(Path(checked['path']), checked['include'], checked['exclude'])


def upload_folder(home: Path, source_id: str) -> Path:
    """Where the uploaded files of the source `source_id` live: `SYNAPSE_HOME/rag/<source id>/`."""
    if not _SOURCE_ID.match(source_id):
        raise SourceInvalid(f'source_id: {source_id!r} is not a source id')
    return home / UPLOADS / source_id


def upload_target(home: Path, source_id: str, name: str) -> Path:
    """The path an uploaded file called `name` is written to, or `SourceInvalid` for a name that is
    not a plain file name with a supported suffix (a path, a hidden name, `..`)."""
    plain = name.strip()
    if not plain or plain != PurePosixPath(plain.replace('\\', '/')).name or plain in ('.', '..'):
        raise SourceInvalid(f'files: {name!r} is not a plain file name')
    if plain.startswith('.'):
        raise SourceInvalid(f'files: {name!r} is a hidden file name')
    if PurePosixPath(plain).suffix.lower() not in SUPPORTED:
        raise SourceInvalid(f'files: {name!r}: only {", ".join(SUPPORTED)} files can be indexed')
    return upload_folder(home, source_id) / plain


class UploadConnector:
    """Files uploaded through the API: kept under `SYNAPSE_HOME/rag/<source id>/`. Its config holds
    only `source_id`, set by the sources service (never by a person); before any upload the folder
    does not exist and the source has no files."""

    kind = 'upload'
    label = 'Uploaded files'

    def check(self, config: dict[str, Any], home: Path) -> dict[str, Any]:
        _unknown_keys(config, {'source_id'})
        source_id = config.get('source_id')
        if source_id is None:
            return {}
        if not isinstance(source_id, str):
            raise SourceInvalid(f'source_id: {source_id!r} is not a source id')
        upload_folder(home, source_id)
        return {'source_id': source_id}

    def files(self, config: dict[str, Any], home: Path) -> Iterator[SourceFile]:
        source_id = self.check(config, home).get('source_id')
        if source_id is None:
            raise SourceInvalid('source_id: an upload source needs its id to find its files')
        folder = upload_folder(home, source_id)
        if not folder.is_dir():
            return iter(())
        return folder_files(folder, DEFAULT_INCLUDE, ())


BUILT_IN: tuple[Connector, ...] = (FolderConnector(), UploadConnector())
"""The connectors every Synapse has, whatever plugins are installed."""
