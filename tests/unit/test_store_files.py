"""Ids from outside are checked as ids, and file removal never leaves the attachments folder.

`is_valid_id` accepts exactly what `new_id` writes. `remove_inside(root, path)` removes only an
entry strictly inside `root`: never `root` itself, nothing reached through `..` or a symlink, and a
symlink is left in place with its target untouched. `owned_entries` lists only id-named real folders.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from synapse_agents.chat.attachments import Upload, save_uploads
from synapse_agents.conversations.files import owned_entries, remove_inside
from synapse_agents.store.ids import is_valid_id, new_id, shown_id

NOT_IDS = [
    '',
    '.',
    '..',
    '%2e%2e',
    '%252e%252e',
    '../' + new_id(),
    new_id() + '/..',
    new_id().upper(),
    new_id() + '\n',
    ' ' + new_id(),
    '00000000-0000-4000-8000-000000000000',  # a UUIDv4
    '0193a1b2-c3d4-7e5f-0a1b-2c3d4e5f6a7b',  # variant bits wrong
    'x' * 10_000,
    'nope',
]


def test_new_ids_are_valid_and_nothing_else_is() -> None:
    assert all(is_valid_id(new_id()) for _ in range(200))
    for value in NOT_IDS:
        assert not is_valid_id(value), value
    assert not is_valid_id(None) and not is_valid_id(123)


def test_shown_id_cuts_long_input() -> None:
    assert shown_id('abc') == "'abc'"
    shown = shown_id('x' * 10_000)
    assert len(shown) < 100 and '10000 characters' in shown


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """home/attachments/<id>/<id>/0-a.txt, home/keep.txt, outside/secret.txt; returns attachments."""
    attachments = tmp_path / 'home' / 'attachments'
    folder = attachments / new_id() / new_id()
    folder.mkdir(parents=True)
    (folder / '0-a.txt').write_bytes(b'abc')
    (tmp_path / 'home' / 'keep.txt').write_text('keep')
    (tmp_path / 'outside').mkdir()
    (tmp_path / 'outside' / 'secret.txt').write_text('secret')
    return attachments


def survivors(tmp_path: Path) -> None:
    assert (tmp_path / 'home' / 'keep.txt').read_text() == 'keep'
    assert (tmp_path / 'outside' / 'secret.txt').read_text() == 'secret'


def test_an_entry_inside_is_removed_and_counted(tree: Path, tmp_path: Path) -> None:
    [conversation] = list(tree.iterdir())
    assert remove_inside(tree, conversation) == (1, 3)
    assert not conversation.exists() and tree.is_dir()
    survivors(tmp_path)


@pytest.mark.parametrize('relative', ['', '.', '..', '../..', '../keep.txt', '../../outside', 'x/../..'])
def test_the_root_and_anything_above_it_are_refused(tree: Path, tmp_path: Path, relative: str) -> None:
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob('*'))
    assert remove_inside(tree, tree / relative if relative else tree) == (0, 0)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob('*')) == before
    survivors(tmp_path)


def test_an_absolute_path_elsewhere_is_refused(tree: Path, tmp_path: Path) -> None:
    assert remove_inside(tree, tmp_path / 'outside') == (0, 0)
    assert remove_inside(tree, tmp_path / 'home' / 'keep.txt') == (0, 0)
    survivors(tmp_path)


def test_symlinks_are_never_followed(tree: Path, tmp_path: Path) -> None:
    named_like_id = tree / new_id()
    named_like_id.symlink_to(tmp_path / 'outside', target_is_directory=True)
    assert remove_inside(tree, named_like_id) == (0, 0)
    assert named_like_id.is_symlink()
    # Through the link: the parent resolves outside the root.
    assert remove_inside(tree, named_like_id / 'secret.txt') == (0, 0)
    # A link inside a folder that is removed goes with the folder; its target stays.
    [conversation] = [p for p in tree.iterdir() if not p.is_symlink()]
    (conversation / 'link').symlink_to(tmp_path / 'outside', target_is_directory=True)
    assert remove_inside(tree, conversation) == (1, 3)
    survivors(tmp_path)


def test_an_overlong_or_nul_name_removes_nothing(tree: Path, tmp_path: Path) -> None:
    assert remove_inside(tree, tree / ('x' * 10_000)) == (0, 0)
    assert remove_inside(tree, tree / 'a\x00b') == (0, 0)
    survivors(tmp_path)


def test_owned_entries_are_id_named_real_folders_only(tree: Path, tmp_path: Path) -> None:
    [conversation] = list(tree.iterdir())
    (tree / 'user-folder').mkdir()
    (tree / 'notes.txt').write_text('mine')
    (tree / new_id()).write_text('a file named like an id')
    (tree / new_id()).symlink_to(tmp_path / 'outside', target_is_directory=True)
    assert owned_entries(tree) == [conversation]
    assert owned_entries(tmp_path / 'missing') == []


# Fixed ids (not `new_id()` at collection time), so every pytest-xdist worker collects the same tests.
AN_ID = '01a23123-696e-7344-a3b9-80299f5abe08'


@pytest.mark.parametrize(
    ('conversation_id', 'message_id'),
    [('..', 'm'), (AN_ID, '..'), ('.', AN_ID), ('%2e%2e', AN_ID), ('x' * 10_000, AN_ID)],
    ids=['dot-dot', 'message-dot-dot', 'dot', 'encoded', 'long'],
)
def test_uploads_are_saved_only_under_two_ids(tmp_path: Path, conversation_id: str, message_id: str) -> None:
    root = tmp_path / 'home' / 'attachments'
    upload = Upload('a.txt', 'text/plain', b'a')
    with pytest.raises(ValueError, match='saved only under'):
        save_uploads(root, conversation_id, message_id, [upload])
    assert not any(tmp_path.rglob('a.txt'))
    saved = save_uploads(root, conversation_id := new_id(), message_id := new_id(), [upload])
    assert (root / saved[0].path).read_bytes() == b'a'
    assert saved[0].path.startswith(f'{conversation_id}/{message_id}/')
