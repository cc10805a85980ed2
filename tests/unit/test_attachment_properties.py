"""Properties of attachment file names and stored paths (hypothesis).

`sanitise_name` turns whatever name a browser or a script sends into one safe on disk and in a
header; `resolve_path` reads a stored reference back only inside its own message's folder.
"""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from synapse_agents.chat.attachments import MAX_NAME, sanitise_name
from synapse_agents.conversations.files import resolve_path

SAFE = re.compile(r'[A-Za-z0-9._-]+')

# Names as they come: any text, and path-like text built from the pieces attacks use.
PIECES = st.sampled_from(
    ['..', '.', '/', '\\', '\x00', ' ', 'etc', 'passwd', 'C:', '~', '%2e', 'é', '📄', '.txt']
)
NAMES = st.one_of(st.text(max_size=300), st.lists(PIECES, max_size=12).map(''.join))
EXTENSIONS = st.text(string.ascii_letters + string.digits, min_size=1, max_size=16)
SEPARATORS = st.sampled_from(['/', '\\'])

FEW = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FEW
@given(NAMES)
@example('..')
@example('.')
@example('')
@example('../../etc/passwd')
@example('a' * 119 + '_b')  # a cut that used to end on '_' and change when sanitised again
@example('x' * 200 + '.' + 'e' * 17)
def test_a_sanitised_name_is_safe_and_stable(name: str) -> None:
    safe = sanitise_name(name)
    assert SAFE.fullmatch(safe), safe  # no separator, no control or special character
    assert safe not in ('.', '..') and not safe.startswith(('.', '-', '_'))
    assert 0 < len(safe) <= MAX_NAME
    assert sanitise_name(safe) == safe  # idempotent


@FEW
@given(st.text(min_size=1).filter(lambda s: '/' not in s and '\\' not in s), EXTENSIONS)
@example('日本語', 'txt')  # nothing of the stem survives: the extension still does
@example('my report', 'PDF')
@example('a' * 400, 'tar')
def test_a_short_alphanumeric_extension_is_kept(stem: str, extension: str) -> None:
    assert sanitise_name(f'{stem}.{extension}').endswith(f'.{extension}')


@FEW
@given(st.lists(NAMES, max_size=4), SEPARATORS, NAMES)
def test_only_the_last_path_segment_counts(folders: list[str], separator: str, name: str) -> None:
    base = name.replace('\\', '/').rsplit('/', 1)[-1]
    assert sanitise_name(separator.join([*folders, name])) == sanitise_name(base)


@pytest.fixture(scope='module')
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """attachments/c1/m1/0-f.txt (the message's file), attachments/c1/m2/0-g.txt (another message's),
    secret.txt outside, and attachments/c1/m1/1-link.txt, a symlink to it."""
    root = tmp_path_factory.mktemp('tree')
    for relative in ('attachments/c1/m1/0-f.txt', 'attachments/c1/m2/0-g.txt', 'secret.txt'):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(relative)
    (root / 'attachments' / 'c1' / 'm1' / '1-link.txt').symlink_to(root / 'secret.txt')
    return root / 'attachments'


STORED_PATHS = st.one_of(
    NAMES,
    st.lists(PIECES | st.sampled_from(['c1', 'm1', 'm2', '0-f.txt', '1-link.txt']), max_size=8).map('/'.join),
)


@FEW
@given(path=STORED_PATHS)
@example(path='c1/m1/0-f.txt')
@example(path='c1/m1/../m1/0-f.txt')
@example(path='c1/m2/0-g.txt')
@example(path='c1/m1/1-link.txt')
@example(path='../secret.txt')
@example(path='/etc/passwd')
def test_a_stored_path_resolves_only_inside_its_message_folder(tree: Path, path: str) -> None:
    resolved = resolve_path(tree, {'path': path}, 'c1', 'm1')
    own = (tree / 'c1' / 'm1').resolve()
    assert resolved is None or (resolved.parent == own and resolved.is_file() and not resolved.is_symlink())
    if path in ('c1/m1/0-f.txt', 'c1/m1/../m1/0-f.txt'):
        assert resolved == own / '0-f.txt'
