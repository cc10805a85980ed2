"""Attachments cannot escape their folder, and are never served as something a browser runs.

Hostile file names are stored under `SYNAPSE_HOME/attachments/<conversation>/<message>/` only;
`GET /api/attachments/{message_id}/{index}` answers 4xx JSON for crafted ids and indexes, serves
nothing but the message's own files even when its stored path is tampered with in the database,
and serves active content as a download. Runs on every selected database.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from chat_helpers import agent_catalog, decode
from synapse_agents.conversations.tables import Message
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.store import Store

BOUNDARY = 'synapse-test-boundary'


@pytest.fixture
def chat(client: TestClient, context: SynapseContext) -> TestClient:
    context.catalog = agent_catalog()
    return client


def multipart(files: list[tuple[bytes, bytes, bytes]], message: bytes = b'files') -> bytes:
    """A multipart body written by hand, so file names reach the server byte for byte.

    `files` holds (file name, content type, data) triples.
    """
    parts = [
        b'--%s\r\nContent-Disposition: form-data; name="message"\r\n\r\n%s\r\n' % (BOUNDARY.encode(), message)
    ]
    for name, media_type, data in files:
        parts.append(
            b'--%s\r\nContent-Disposition: form-data; name="attachments"; filename="%s"\r\n'
            b'Content-Type: %s\r\n\r\n%s\r\n' % (BOUNDARY.encode(), name, media_type, data)
        )
    return b''.join(parts) + b'--%s--\r\n' % BOUNDARY.encode()


def upload(chat: TestClient, files: list[tuple[bytes, bytes, bytes]]) -> tuple[str, dict[str, Any]]:
    """Send files to `chat_agents.echo`; the conversation id and the stored user message."""
    response = chat.post(
        '/api/agents/chat_agents.echo/chat',
        content=multipart(files),
        headers={'content-type': f'multipart/form-data; boundary={BOUNDARY}'},
    )
    assert response.status_code == 200, response.text
    conversation_id = decode(response.text)[0]['messageMetadata']['conversation_id']
    user = chat.get(f'/api/conversations/{conversation_id}').json()['messages'][0]
    return conversation_id, user


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob('*') if p.is_file() or p.is_symlink())


HOSTILE_NAMES = [
    (b'../../etc/passwd', 'passwd'),
    (b'/etc/passwd', 'passwd'),
    (b'..\\..\\windows\\system32\\config.sys', 'config.sys'),
    (b'C:\\boot.ini', 'boot.ini'),
    (b'..', 'file'),
    (b'.', 'file'),
    (b'', 'file'),
    (b'.bashrc', 'bashrc'),
    (b'-rf .txt', 'rf_.txt'),
    (b'evil\x00.txt', 'evil_.txt'),
    (b'a' * 4000 + b'.pdf', 'a' * 116 + '.pdf'),
    ('résumé 📄.pdf'.encode(), 'resume_.pdf'),
    ('日本語.txt'.encode(), 'file.txt'),
    (b'<script>alert(1)</script>.html', 'script_.html'),  # '/' starts the base name
    (b'%2e%2e%2fsecret', '2e_2e_2fsecret'),
]


def test_hostile_file_names_stay_in_the_message_folder(chat: TestClient, store: Store) -> None:
    files = [(name, b'text/plain', b'data %d' % i) for i, (name, _) in enumerate(HOSTILE_NAMES)]
    chat.app.state.synapse.settings.max_attachments = len(files)  # type: ignore[attr-defined]
    conversation_id, user = upload(chat, files)
    folder = store.attachments_dir / conversation_id / user['id']
    stored = files_under(store.attachments_dir)
    assert stored == sorted(folder / f'{i}-{name}' for i, (_, name) in enumerate(HOSTILE_NAMES))
    assert [a['name'] for a in user['attachments']] == [name for _, name in HOSTILE_NAMES]
    home = store.attachments_dir.parent
    assert sorted(p.name for p in home.iterdir()) == ['attachments', *_database_files(home)]
    for attachment in user['attachments']:
        served = chat.get(attachment['url'])
        assert served.status_code == 200
        assert served.content == b'data %d' % attachment['index']


def _database_files(home: Path) -> list[str]:
    return sorted(p.name for p in home.iterdir() if p.name.startswith('synapse.db'))


@pytest.mark.parametrize(
    ('message_id', 'index', 'status'),
    [
        ('%2e%2e', '0', 404),
        ('..%2f..%2fetc', '0', 404),
        ('{message}', '-1', 404),
        ('{message}', '1', 404),
        ('{message}', '99999999999999999999999999', 404),
        ('{message}', 'abc', 422),
        ('{message}', '0.5', 422),
        ('{message}', '%2e%2e', 422),
        ('{assistant}', '0', 404),
        ('{other}', '1', 404),
        ('missing', '0', 404),
    ],
)
def test_crafted_ids_and_indexes_are_json_errors(
    chat: TestClient, message_id: str, index: str, status: int
) -> None:
    conversation_id, user = upload(chat, [(b'only.txt', b'text/plain', b'only')])
    _, other = upload(chat, [(b'a.txt', b'text/plain', b'a'), (b'b.txt', b'text/plain', b'b')])
    assistant = chat.get(f'/api/conversations/{conversation_id}').json()['messages'][1]['id']
    ids = {'message': user['id'], 'assistant': assistant, 'other': user['id']}
    # `{other}` asks this message for the second file that only the other message has.
    assert len(other['attachments']) == 2
    response = chat.get(f'/api/attachments/{message_id.format(**ids)}/{index}')
    assert response.status_code == status
    assert response.headers['content-type'] == 'application/json'
    assert set(response.json()['error']) >= {'code', 'message'}


def tamper(store: Store, message_id: str, **changes: Any) -> None:
    """Rewrite the first attachment reference of a message row, as someone with the database could."""
    with store.write() as session:
        row = session.get(Message, message_id)
        assert row is not None
        references = [{**row.attachments[0], **changes}, *row.attachments[1:]]
        session.execute(update(Message).where(Message.id == message_id).values(attachments=references))


def test_a_tampered_path_never_leaves_the_message_folder(
    chat: TestClient, store: Store, tmp_path: Path
) -> None:
    secret = tmp_path / 'secret.txt'
    secret.write_text('secret')
    other_conversation, other = upload(chat, [(b'theirs.txt', b'text/plain', b'theirs')])
    conversation_id, user = upload(chat, [(b'mine.txt', b'text/plain', b'mine')])
    own = f'{conversation_id}/{user["id"]}'
    (store.attachments_dir / own / '1-link.txt').symlink_to(secret)
    tampered: list[Any] = [
        '../secret.txt',
        '../../secret.txt',
        str(secret),
        f'{own}/../../../../secret.txt',
        f'{own}/1-link.txt',  # a symlink out of the folder
        f'{other_conversation}/{other["id"]}/0-theirs.txt',  # another conversation's file
        f'{own}/../{other["id"]}/0-theirs.txt',
        own,  # a folder
        f'{own}/{"x" * 5000}',
        '',
        '.',
        None,
        ['a', 'list'],
        42,
    ]
    if store.dialect == 'sqlite':
        tampered.append(f'{own}/0-mine.txt\x00.png')  # PostgreSQL's JSON refuses a NUL character
    for path in tampered:
        tamper(store, user['id'], path=path)
        response = chat.get(f'/api/attachments/{user["id"]}/0')
        assert response.status_code == 404, path
        assert response.json()['error']['code'] == 'not_found'
        assert response.headers['content-type'] == 'application/json'

    # A tampered name or media type is sanitised when served.
    tamper(store, user['id'], path=f'{own}/0-mine.txt', name='a"b\r\nX-Evil: 1.txt', media_type='text/html')
    response = chat.get(f'/api/attachments/{user["id"]}/0')
    assert response.content == b'mine' and 'x-evil' not in response.headers
    assert response.headers['content-disposition'] == 'attachment; filename="a_b_X-Evil_1.txt"'
    assert response.headers['content-type'] == 'application/octet-stream'


@pytest.mark.parametrize(
    'attachments',
    [[], ['not a reference'], [{'index': '0', 'path': 'x'}], [{'index': True}], {'index': 0}, 'text', 7],
    ids=['empty', 'string-item', 'string-index', 'bool-index', 'object', 'string', 'number'],
)
def test_tampered_references_are_not_server_errors(chat: TestClient, store: Store, attachments: Any) -> None:
    conversation_id, user = upload(chat, [(b'mine.txt', b'text/plain', b'mine')])
    with store.write() as session:
        session.execute(update(Message).where(Message.id == user['id']).values(attachments=attachments))
    response = chat.get(f'/api/attachments/{user["id"]}/0')
    assert response.status_code == 404
    assert response.json()['error']['code'] == 'not_found'
    thread = chat.get(f'/api/conversations/{conversation_id}')
    assert thread.status_code == 200
    assert thread.json()['messages'][0]['attachments'] == []
    again = chat.post(
        '/api/agents/chat_agents.echo/chat', data={'message': 'again', 'conversation_id': conversation_id}
    )
    assert 'prompts=2' in again.text  # the replay reads no file for a broken reference


@pytest.mark.parametrize(
    ('media_type', 'served', 'disposition'),
    [
        (b'text/plain', 'text/plain; charset=utf-8', 'inline'),
        (b'image/png', 'image/png', 'inline'),
        (b'IMAGE/PNG', 'image/png', 'inline'),
        (b'application/pdf', 'application/pdf', 'inline'),
        (b'audio/mpeg', 'audio/mpeg', 'inline'),
        (b'text/html', 'application/octet-stream', 'attachment'),
        (b'TEXT/HTML', 'application/octet-stream', 'attachment'),
        (b'image/svg+xml', 'application/octet-stream', 'attachment'),
        (b'application/xhtml+xml', 'application/octet-stream', 'attachment'),
        (b'text/xml', 'application/octet-stream', 'attachment'),
        (b'application/xml', 'application/octet-stream', 'attachment'),
        (b'text/javascript', 'application/octet-stream', 'attachment'),
        (b'application/javascript', 'application/octet-stream', 'attachment'),
        (b'video/../../text/html', 'application/octet-stream', 'attachment'),
        (b'audio/x;text/html', 'application/octet-stream', 'attachment'),
        (b'image/png; charset=utf-7', 'image/png', 'inline'),
        (b'application/octet-stream', 'application/octet-stream', 'attachment'),
    ],
)
def test_served_types_are_safe(chat: TestClient, media_type: bytes, served: str, disposition: str) -> None:
    _, user = upload(chat, [(b'we ird<>.bin', media_type, b'<script>alert(1)</script>')])
    response = chat.get(user['attachments'][0]['url'])
    assert response.status_code == 200
    assert response.headers['content-type'] == served
    assert response.headers['content-disposition'] == f'{disposition}; filename="we_ird_.bin"'
    assert response.headers['x-content-type-options'] == 'nosniff'
    assert "default-src 'none'" in response.headers['content-security-policy']
    assert 'sandbox' in response.headers['content-security-policy']
