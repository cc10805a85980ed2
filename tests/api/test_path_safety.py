"""No id in a URL or a form reaches the disk or the database unless it is a Synapse id.

After a chat with an attachment, every route that takes an id answers a crafted one (`%2e%2e`,
`%2e`, double-encoded, 10,000 characters, a UUID of another version) with a 404 JSON error whose
message does not echo the input whole, and nothing under `SYNAPSE_HOME` changes: not the database,
not the attachment, not a file of the user's. With `SYNAPSE_HOME=.` (the project folder itself),
deleting, pruning and clearing remove only what Synapse made. Runs on every selected database.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from chat_helpers import DEMO, LOCAL_PEER, LOCAL_URL, decode
from synapse_agents.cli import app as cli_app
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.discovery import Catalog
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.settings import load_settings
from synapse_agents.store import Store
from synapse_agents.store.ids import new_id
from synapse_agents.store.setup import open_store
from synapse_agents.web.app import create_app
from synapse_agents.web.server import DEMO_TARGET

pytestmark = pytest.mark.any_database(
    reason='a crafted id is refused before it reaches the disk or the database'
)

CRAFTED_IDS = [
    '%2e%2e',
    '%2e',
    '%2E%2E',
    '%252e%252e',
    '%252e',
    '%2e%2e%5c%2e%2e',
    'x' * 10_000,
    '00000000-0000-4000-8000-000000000000',
    'attachments',
    'synapse.db',
]
"""Path segments as sent on the wire (the client sends them without re-encoding)."""


def chat_with_file(client: TestClient, name: str = 'notes.txt') -> tuple[str, str]:
    """Chat with a demo agent, sending a file; the conversation id and the user message id."""
    response = client.post(
        f'/api/agents/{DEMO}support-agent/chat',
        data={'message': 'Here are my notes'},
        files=[('attachments', (name, b'my notes', 'text/plain'))],
    )
    assert response.status_code == 200, response.text
    conversation_id = decode(response.text)[0]['messageMetadata']['conversation_id']
    thread = client.get(f'/api/conversations/{conversation_id}').json()
    user = thread['messages'][0]
    assert user['attachments'], user
    return conversation_id, user['id']


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every entry under `root`: a file's bytes, a link's target, 'dir', or 'database' for its files."""
    seen: dict[str, bytes | str] = {}
    for path in sorted(root.rglob('*')):
        key = str(path.relative_to(root))
        if path.is_symlink():
            seen[key] = f'-> {os.readlink(path)}'
        elif path.is_dir():
            seen[key] = 'dir'
        elif path.name.startswith('synapse.db'):
            seen[key] = 'database'  # its bytes change with every read (WAL)
        else:
            seen[key] = path.read_bytes()
    return seen


def assert_json_404(response: object, what: str) -> None:
    status = getattr(response, 'status_code', None)
    assert status == 404, getattr(response, 'text', '')[:300]
    body = response.json()  # type: ignore[attr-defined]
    assert body['error']['code'] == 'not_found'
    message = body['error']['message']
    assert message.startswith(f'No {what}'), message
    assert len(message) < 200, message[:300]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The test's SYNAPSE_HOME, with a file of the user's beside Synapse's own."""
    path = tmp_path / 'home'
    path.mkdir(exist_ok=True)
    (path / 'user-notes.txt').write_text('not Synapse')
    return path


def test_crafted_ids_are_404_and_touch_nothing(client: TestClient, home: Path) -> None:
    conversation_id, message_id = chat_with_file(client)
    before = snapshot(home)
    assert any('notes.txt' in key for key in before)
    for crafted in CRAFTED_IDS:
        base = '/api/conversations/' + crafted
        assert_json_404(client.delete(base), 'conversation')
        assert snapshot(home) == before, crafted[:20]
        assert_json_404(client.get(base), 'conversation')
        assert_json_404(client.patch(base, json={'title': 'renamed'}), 'conversation')
        assert_json_404(client.get('/api/tool-invocations/' + crafted), 'tool invocation')
        assert_json_404(client.get(f'/api/attachments/{crafted}/0'), 'attachment')
        assert snapshot(home) == before, crafted[:20]
    thread = client.get(f'/api/conversations/{conversation_id}')
    assert thread.status_code == 200 and thread.json()['conversation']['title'] != 'renamed'
    attachment = client.get(thread.json()['messages'][0]['attachments'][0]['url'])
    assert attachment.status_code == 200 and attachment.content == b'my notes'
    assert message_id == thread.json()['messages'][0]['id']


def test_a_real_delete_still_removes_its_own_files(client: TestClient, home: Path) -> None:
    kept_id, _ = chat_with_file(client, 'kept.txt')
    gone_id, _ = chat_with_file(client, 'gone.txt')
    deleted = client.delete(f'/api/conversations/{gone_id}')
    assert deleted.status_code == 200 and deleted.json()['deleted']['files'] == 1
    assert not (home / 'attachments' / gone_id).exists()
    assert (home / 'attachments' / kept_id).is_dir()
    assert (home / 'user-notes.txt').read_text() == 'not Synapse'
    assert client.delete(f'/api/conversations/{gone_id}').status_code == 404


def test_a_valid_id_without_a_row_removes_no_folder(client: TestClient, home: Path) -> None:
    # A folder named like an id that no conversation owns (a crash's leftover) is only `clear`'s.
    chat_with_file(client)
    stray = home / 'attachments' / new_id()
    stray.mkdir()
    (stray / 'x.txt').write_text('x')
    assert_json_404(client.delete(f'/api/conversations/{stray.name}'), 'conversation')
    assert (stray / 'x.txt').exists()


def test_crafted_conversation_id_in_the_chat_form_is_404(client: TestClient, home: Path) -> None:
    chat_with_file(client)
    before = snapshot(home)
    for crafted in ['..', '.', '%2e%2e', '%252e%252e', '../attachments', 'x' * 10_000, 'nope']:
        response = client.post(
            f'/api/agents/{DEMO}support-agent/chat',
            data={'message': 'again', 'conversation_id': crafted},
            files=[('attachments', ('more.txt', b'more', 'text/plain'))],
        )
        assert_json_404(response, 'conversation')
        assert snapshot(home) == before, crafted[:20]


# -- SYNAPSE_HOME=. ----------------------------------------------------------------------


@pytest.fixture
def project(isolated_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, database_url: str) -> Path:
    """A project folder of the user's that is also SYNAPSE_HOME (`SYNAPSE_HOME=.`).

    It holds source files, its own `attachments/` with a user file, a folder that is not an id, a
    folder named like an id that is a symlink out, and a symlink out; `outside/` is beside it.
    """
    outside = tmp_path / 'outside'
    outside.mkdir()
    (outside / 'secret.txt').write_text('outside the project')
    (isolated_env / 'pyproject.toml').write_text('[project]\nname = "mine"\n')
    (isolated_env / 'src').mkdir()
    (isolated_env / 'src' / 'app.py').write_text('print("mine")\n')
    (isolated_env / '%2e%2e').write_text('a file with an odd name')
    own = isolated_env / 'attachments'
    (own / 'designs').mkdir(parents=True)
    (own / 'designs' / 'logo.svg').write_text('<svg/>')
    (own / 'readme.txt').write_text('my attachments folder')
    (own / 'outside-link').symlink_to(outside, target_is_directory=True)
    (own / new_id()).symlink_to(outside, target_is_directory=True)
    monkeypatch.setenv('SYNAPSE_HOME', '.')
    if not database_url.startswith('sqlite'):
        monkeypatch.setenv('SYNAPSE_DATABASE_URL', database_url)
    return isolated_env


@pytest.fixture
def project_client(project: Path) -> Iterator[TestClient]:
    """The app on the project's own store (SQLite in the project folder, or the PostgreSQL database)."""
    loaded = load_settings()
    assert loaded.settings.attachments_dir.resolve() == (project / 'attachments').resolve()
    store = open_store(loaded.settings)
    context = SynapseContext(
        loaded=loaded,
        store=store,
        targets=[DEMO_TARGET],
        catalog=Catalog([DEMO_TARGET], loaded.project_root),
    )
    try:
        with TestClient(create_app(context), base_url=LOCAL_URL, client=LOCAL_PEER) as client:
            yield client
    finally:
        store.close()


def user_files(project: Path) -> dict[str, bytes | str]:
    return {
        key: value
        for key, value in snapshot(project).items()
        if not key.startswith('synapse.db') and not _synapse_owned(project, key)
    }


def _synapse_owned(project: Path, key: str) -> bool:
    parts = Path(key).parts
    if len(parts) < 2 or parts[0] != 'attachments':
        return False
    entry = project / 'attachments' / parts[1]
    return not entry.is_symlink() and entry.is_dir() and parts[1] not in ('designs',)


def test_home_as_the_project_folder_loses_no_user_file(project: Path, project_client: TestClient) -> None:
    client = project_client
    outside_before = snapshot(project.parent / 'outside')
    first, _ = chat_with_file(client)
    chat_with_file(client, 'second.txt')
    mine = user_files(project)
    assert 'src/app.py' in mine and 'attachments/designs/logo.svg' in mine
    for crafted in ['%2e%2e', '%2e', '%252e%252e', '%252e', 'x' * 10_000, 'attachments', 'src']:
        assert_json_404(client.delete('/api/conversations/' + crafted), 'conversation')
    assert user_files(project) == mine
    assert client.delete(f'/api/conversations/{first}').status_code == 200
    assert user_files(project) == mine
    store: Store = client.app.state.synapse.store  # type: ignore[attr-defined]
    ConversationRepository(store).prune(1, now=datetime.now(UTC) + timedelta(days=2))
    assert store.counts()['conversations'] == 0
    assert user_files(project) == mine
    chat_with_file(client, 'third.txt')
    leftover = project / 'attachments' / new_id()
    (leftover / new_id()).mkdir(parents=True)
    (leftover / 'orphan.txt').write_text('a crash left this')
    assert client.post('/api/conversations/clear').json()['deleted']['files'] == 2
    assert not leftover.exists()
    assert user_files(project) == mine
    chat_with_file(client, 'fourth.txt')
    result = CliRunner().invoke(cli_app, ['clear', '--yes'])
    assert result.exit_code == 0 and 'Removed 1 conversations' in result.output, result.output
    result = CliRunner().invoke(cli_app, ['prune', '--days', '1', '--yes'])
    assert result.exit_code == 0, result.output
    assert user_files(project) == mine
    assert snapshot(project.parent / 'outside') == outside_before
    remaining = sorted(p.name for p in (project / 'attachments').iterdir())
    assert remaining == sorted(['designs', 'readme.txt', 'outside-link', *_id_links(project)])


def _id_links(project: Path) -> list[str]:
    return [
        p.name for p in (project / 'attachments').iterdir() if p.is_symlink() and p.name != 'outside-link'
    ]


# -- the dashboard's files ---------------------------------------------------------------

SPA_PATHS = [
    '/..%2f..%2fsecret.txt',
    '/%2e%2e/secret.txt',
    '/%2e%2e/%2e%2e/secret.txt',
    '/assets/..%2f..%2fsecret.txt',
    '/assets/%2e%2e/%2e%2e/secret.txt',
    '/assets/%252e%252e/%252e%252e/secret.txt',
    '/%2e%2e%5csecret.txt',
    '/assets/%5c..%5c..%5csecret.txt',
    '/assets/link/secret.txt',
    '/' + 'a' * 300 + '.js',
    '/assets/' + 'a' * 10_000,
    '/' + 'a' * 300,
    '/' + 'a/' * 3000 + 'b.js',
    '/.',
    '/..',
]


def test_the_dashboard_serves_nothing_outside_its_folder_and_never_fails(tmp_path: Path) -> None:
    from fastapi import FastAPI

    from synapse_agents.web.spa import mount_spa

    static = tmp_path / 'static'
    (static / 'assets').mkdir(parents=True)
    (static / 'index.html').write_text('<html><head></head><body>dashboard</body></html>')
    (static / 'assets' / 'app.js').write_text('console.log(1)')
    (tmp_path / 'secret.txt').write_text('top secret')
    (static / 'assets' / 'link').symlink_to(tmp_path, target_is_directory=True)
    app = FastAPI()
    mount_spa(app, static)
    with TestClient(app, base_url=LOCAL_URL, raise_server_exceptions=False, client=LOCAL_PEER) as client:
        assert client.get('/assets/app.js').text == 'console.log(1)'
        for path in SPA_PATHS:
            response = client.get(path)
            assert response.status_code in (200, 404), (path[:40], response.status_code)
            assert 'top secret' not in response.text, path[:40]
            assert response.status_code == 404 or 'dashboard' in response.text, path[:40]
