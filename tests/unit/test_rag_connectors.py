"""Connectors: the `folder` and `upload` kinds list files in a stable order and never write where
they read; plugins add kinds through `register_rag_connectors`, and two kinds may not collide."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from synapse_agents.errors import DocumentUnreadable, SourceInvalid
from synapse_agents.plugins import PluginError, hookimpl, plugin_manager
from synapse_agents.plugins.manager import plugin_rag_connectors
from synapse_agents.retrieval.connectors import (
    Connector,
    FolderConnector,
    SourceFile,
    UploadConnector,
    connector_for,
    connectors,
    glob_matches,
    upload_folder,
    upload_target,
)


def write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding='utf-8')


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every entry under `root` with its size and modification time (links not followed)."""
    found = {}
    for folder, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            stat = os.lstat(Path(folder) / name)
            found[str(Path(folder, name).relative_to(root))] = (stat.st_size, stat.st_mtime_ns)
    return found


def listed(files: Iterator[SourceFile]) -> list[str]:
    return [file.identifier for file in files]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / 'docs'
    write(
        root,
        {
            'b.md': '# B',
            'a.txt': 'a',
            'guide/intro.md': 'intro',
            'guide/deep/part.pdf': 'not really a pdf',
            'guide/drafts/wip.md': 'wip',
            'image.png': 'png',
            'Upper.MD': 'upper',
            '.hidden.md': 'hidden',
            '.git/config.txt': 'git',
            'guide/.cache/x.md': 'cache',
        },
    )
    return root


FOLDER = FolderConnector()


# -- folder ------------------------------------------------------------------------------------


def test_a_folder_lists_its_supported_files_sorted_skipping_hidden_ones(folder: Path, tmp_path: Path) -> None:
    config = FOLDER.check({'path': str(folder)}, tmp_path)
    assert config == {'path': str(folder.resolve()), 'include': ['**/*'], 'exclude': []}
    files = list(FOLDER.files(config, tmp_path))
    assert [f.identifier for f in files] == [
        'Upper.MD',
        'a.txt',
        'b.md',
        'guide/deep/part.pdf',
        'guide/drafts/wip.md',
        'guide/intro.md',
    ]
    assert files[1].name == 'a.txt' and files[1].read() == b'a' and files[1].size == 1
    assert files[3].name == 'part.pdf'


def test_include_and_exclude_globs(folder: Path, tmp_path: Path) -> None:
    def only(**globs: list[str]) -> list[str]:
        return listed(FOLDER.files(FOLDER.check({'path': str(folder), **globs}, tmp_path), tmp_path))

    assert only(include=['*.md']) == ['b.md', 'guide/drafts/wip.md', 'guide/intro.md']
    assert only(include=['guide/*.md']) == ['guide/intro.md']
    assert only(include=['guide/**/*.md']) == ['guide/drafts/wip.md', 'guide/intro.md']
    assert only(include=['**/*.pdf', '*.txt']) == ['a.txt', 'guide/deep/part.pdf']
    assert only(exclude=['drafts']) == ['Upper.MD', 'a.txt', 'b.md', 'guide/deep/part.pdf', 'guide/intro.md']
    assert only(exclude=['guide/**']) == ['Upper.MD', 'a.txt', 'b.md']
    assert only(include=['*.md'], exclude=['guide/drafts/*']) == ['b.md', 'guide/intro.md']
    assert only(include=['*.png']) == []  # a type no parser reads is never listed


@pytest.mark.parametrize(
    ('pattern', 'path', 'matches'),
    [
        ('*.md', 'a.md', True),
        ('*.md', 'x/y/a.md', True),
        ('*.md', 'a.MD', False),
        ('docs/*.md', 'docs/a.md', True),
        ('docs/*.md', 'docs/x/a.md', False),
        ('docs/**/*.md', 'docs/a.md', True),
        ('docs/**/*.md', 'docs/x/y/a.md', True),
        ('**', 'any/thing.txt', True),
        ('**/notes/*', 'a/notes/b.txt', True),
        ('**/notes/*', 'notes/b.txt', True),
        ('**/notes/*', 'a/notes2/b.txt', False),
        ('doc?/[ab].txt', 'docs/a.txt', True),
        ('doc?/[ab].txt', 'docs/c.txt', False),
    ],
)
def test_glob_semantics(pattern: str, path: str, matches: bool) -> None:
    assert glob_matches(pattern, path) is matches


def test_listing_or_reading_a_folder_writes_nothing_there(folder: Path, tmp_path: Path) -> None:
    before = snapshot(folder)
    config = FOLDER.check({'path': str(folder)}, tmp_path)
    for file in FOLDER.files(config, tmp_path):
        file.read()
    assert snapshot(folder) == before


def test_links_that_leave_the_folder_are_skipped_and_links_to_folders_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / 'outside'
    write(outside, {'secret.txt': 'secret', 'sub/more.txt': 'more'})
    root = tmp_path / 'docs'
    write(root, {'real/inside.txt': 'inside'})
    (root / 'leak.txt').symlink_to(outside / 'secret.txt')
    (root / 'leak-folder').symlink_to(outside / 'sub', target_is_directory=True)
    (root / 'alias.txt').symlink_to(root / 'real' / 'inside.txt')
    (root / 'loop-folder').symlink_to(root, target_is_directory=True)
    (root / 'dangling.txt').symlink_to(tmp_path / 'nowhere.txt')
    files = list(FOLDER.files(FOLDER.check({'path': str(root)}, tmp_path), tmp_path))
    assert [f.identifier for f in files] == ['alias.txt', 'real/inside.txt']
    assert files[0].read() == b'inside'


def test_the_order_does_not_depend_on_the_order_files_were_made(tmp_path: Path) -> None:
    names = ['z.txt', 'm/a.txt', 'a.txt', 'm.txt', 'A.txt', 'm/b/c.txt']
    first, second = tmp_path / 'one', tmp_path / 'two'
    write(first, {name: name for name in names})
    write(second, {name: name for name in reversed(names)})
    assert listed(FOLDER.files({'path': str(first)}, tmp_path)) == listed(
        FOLDER.files({'path': str(second)}, tmp_path)
    )


def test_a_relative_path_is_stored_absolute(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(folder.parent)
    assert FOLDER.check({'path': 'docs'}, tmp_path)['path'] == str(folder.resolve())


@pytest.mark.parametrize(
    ('config', 'message'),
    [
        ({}, 'path: a folder kind of source needs the path'),
        ({'path': '  '}, 'path: a folder kind of source needs the path'),
        ({'path': 7}, 'path: a folder kind of source needs the path'),
        ({'path': '{tmp}/missing'}, 'path: {tmp}/missing does not exist'),
        ({'path': '{tmp}/docs/a.txt'}, 'path: {tmp}/docs/a.txt is not a folder'),
        ({'path': '{tmp}/docs', 'include': '*.md'}, 'include: a list of glob patterns, not str'),
        ({'path': '{tmp}/docs', 'include': ['']}, "include: '' is not a glob pattern"),
        ({'path': '{tmp}/docs', 'exclude': ['/etc/*']}, "exclude: '/etc/\\*' must be relative"),
        ({'path': '{tmp}/docs', 'exclude': ['../*']}, "exclude: '../\\*' must be relative"),
        ({'path': '{tmp}/docs', 'urls': []}, 'urls: not a setting of this kind of source'),
    ],
)
def test_a_folder_config_that_cannot_be_used_is_refused(
    folder: Path, tmp_path: Path, config: dict[str, Any], message: str
) -> None:
    real = tmp_path.resolve()
    config = {
        key: value.replace('{tmp}', str(real)) if isinstance(value, str) else value
        for key, value in config.items()
    }
    with pytest.raises(SourceInvalid, match=message.replace('{tmp}', str(real))):
        FOLDER.check(config, tmp_path)


def test_a_file_removed_after_the_listing_fails_alone_when_read(folder: Path, tmp_path: Path) -> None:
    files = {f.identifier: f for f in FOLDER.files({'path': str(folder)}, tmp_path)}
    (folder / 'a.txt').unlink()
    with pytest.raises(DocumentUnreadable, match=r'^a\.txt: cannot be read \(No such file or directory\)$'):
        files['a.txt'].read()
    assert files['b.md'].read() == b'# B'


def test_a_folder_removed_after_it_was_added_is_refused_when_listed(folder: Path, tmp_path: Path) -> None:
    config = FOLDER.check({'path': str(folder)}, tmp_path)
    folder.rename(tmp_path / 'moved')
    with pytest.raises(SourceInvalid, match='does not exist'):
        list(FOLDER.files(config, tmp_path))


# -- upload ------------------------------------------------------------------------------------

UPLOAD = UploadConnector()


def test_uploaded_files_are_listed_from_the_sources_own_folder(tmp_path: Path) -> None:
    home = tmp_path / 'home'
    config = UPLOAD.check({'source_id': '0193abcd-ef'}, home)
    assert list(UPLOAD.files(config, home)) == []  # nothing uploaded yet: no folder, no files
    write(upload_folder(home, '0193abcd-ef'), {'notes.md': 'n', 'report.pdf': 'r'})
    write(upload_folder(home, 'another'), {'theirs.md': 't'})
    assert listed(UPLOAD.files(config, home)) == ['notes.md', 'report.pdf']
    assert upload_folder(home, '0193abcd-ef') == home / 'rag' / '0193abcd-ef'


def test_an_upload_config_is_empty_or_names_its_source(tmp_path: Path) -> None:
    assert UPLOAD.check({}, tmp_path) == {}
    with pytest.raises(SourceInvalid, match='path: not a setting'):
        UPLOAD.check({'path': '/etc'}, tmp_path)
    with pytest.raises(SourceInvalid, match=r"source_id: '\.\./x' is not a source id"):
        UPLOAD.check({'source_id': '../x'}, tmp_path)
    with pytest.raises(SourceInvalid, match='needs its id'):
        list(UPLOAD.files({}, tmp_path))


@pytest.mark.parametrize(
    ('name', 'message'),
    [
        ('../escape.md', 'not a plain file name'),
        ('sub/file.md', 'not a plain file name'),
        ('sub\\file.md', 'not a plain file name'),
        ('..', 'not a plain file name'),
        ('', 'not a plain file name'),
        ('.env.txt', 'hidden file name'),
        ('tool.exe', 'only .pdf'),
    ],
)
def test_an_upload_name_that_is_not_a_plain_readable_file_name_is_refused(
    tmp_path: Path, name: str, message: str
) -> None:
    with pytest.raises(SourceInvalid, match=message):
        upload_target(tmp_path, 'abc', name)


def test_an_upload_goes_into_the_sources_folder(tmp_path: Path) -> None:
    assert upload_target(tmp_path, 'abc', 'Guide.PDF') == tmp_path / 'rag' / 'abc' / 'Guide.PDF'


# -- kinds and plugins -------------------------------------------------------------------------


class NotesConnector:
    """A connector as a third party writes it: the notes of an app, one file each."""

    kind = 'notes'
    label = 'Notes'

    def __init__(self, notes: dict[str, str]) -> None:
        self.notes = notes

    def check(self, config: dict[str, Any], home: Path) -> dict[str, Any]:
        if config:
            raise SourceInvalid('notes take no settings')
        return {}

    def files(self, config: dict[str, Any], home: Path) -> Iterator[SourceFile]:
        for key, text in sorted(self.notes.items()):
            yield SourceFile(identifier=key, name=f'{key}.md', read=text.encode)


class NotesPlugin:
    def __init__(self, *found: Any) -> None:
        self.found = found

    @hookimpl
    def register_rag_connectors(self) -> Sequence[Any]:
        return list(self.found)


def test_the_built_in_kinds_are_there_without_plugins() -> None:
    manager = plugin_manager([], entry_points=False)
    assert list(connectors(manager)) == ['folder', 'upload']
    assert isinstance(connector_for('folder', manager), FolderConnector)
    with pytest.raises(SourceInvalid, match="kind: no connector 'ftp'; the kinds are folder, upload"):
        connector_for('ftp', manager)


def test_a_plugin_provides_a_connector_that_connector_for_finds(tmp_path: Path) -> None:
    manager = plugin_manager([], entry_points=False)
    manager.register(NotesPlugin(NotesConnector({'welcome': '# Hi'})), name='notes-plugin')
    connector = connector_for('notes', manager)
    assert isinstance(connector, Connector)
    assert [
        (f.identifier, f.name, f.read()) for f in connector.files(connector.check({}, tmp_path), tmp_path)
    ] == [('welcome', 'welcome.md', b'# Hi')]
    assert list(connectors(manager)) == ['folder', 'upload', 'notes']


def test_two_connectors_of_one_kind_are_refused() -> None:
    manager = plugin_manager([], entry_points=False)
    manager.register(NotesPlugin(NotesConnector({})), name='first')
    manager.register(NotesPlugin(NotesConnector({})), name='second')
    with pytest.raises(PluginError, match="two RAG connectors have the kind 'notes'"):
        connector_for('notes', manager)


def test_a_plugin_may_not_take_a_built_in_kind() -> None:
    class Folder(NotesConnector):
        kind = 'folder'

    manager = plugin_manager([], entry_points=False)
    manager.register(NotesPlugin(Folder({})), name='mine')
    with pytest.raises(PluginError, match="two RAG connectors have the kind 'folder' \\(one is built in\\)"):
        connector_for('notes', manager)


class Shapeless:
    kind = 'shapeless'
    label = 'Shapeless'

    def check(self, config: dict[str, Any], home: Path) -> dict[str, Any]:
        return config


class NoLabel(NotesConnector):
    label = ' '


class BadKind(NotesConnector):
    kind = 'Has Spaces'


@pytest.mark.parametrize(
    ('answer', 'message'),
    [
        (NotesPlugin(Shapeless()), "the RAG connector 'shapeless' has no files\\(\\) method"),
        (NotesPlugin(NoLabel({})), "the RAG connector 'notes' needs a label"),
        (NotesPlugin(BadKind({})), "kind 'Has Spaces' is not lowercase"),
        (NotesPlugin('folder'), 'kind None is not lowercase'),
    ],
)
def test_a_connector_of_the_wrong_shape_is_refused_naming_its_plugin(answer: Any, message: str) -> None:
    manager = plugin_manager([], entry_points=False)
    manager.register(answer, name='odd')
    with pytest.raises(PluginError, match=f"plugin 'odd': .*{message}"):
        plugin_rag_connectors(manager)


def test_a_hook_answer_that_is_not_a_list_is_refused() -> None:
    class Single:
        @hookimpl
        def register_rag_connectors(self) -> Any:
            return NotesConnector({})

    manager = plugin_manager([], entry_points=False)
    manager.register(Single(), name='single')
    with pytest.raises(PluginError, match='register_rag_connectors must return a list'):
        plugin_rag_connectors(manager)
