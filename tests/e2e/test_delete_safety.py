"""A real `synapse serve` whose home is the project folder deletes nothing but its own files.

The requests go over a plain socket, so the path reaches the server byte for byte: `..` and `.`
unnormalised, percent-encoded, double-encoded, 10,000 characters. Each is a 404 JSON error and
the project's own files, the database and the attachment all stay; `synapse clear --yes` then
removes the conversation's folder and nothing of the project's.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from chat_helpers import DEMO, decode
from synapse_agents.store.ids import new_id

RAW_TARGETS = [
    '/api/conversations/..',
    '/api/conversations/.',
    '/api/conversations/%2e%2e',
    '/api/conversations/%2e',
    '/api/conversations/%252e%252e',
    '/api/conversations/' + 'x' * 10_000,
    '/api/conversations/attachments',
    '/api/conversations/synapse.db',
]


def raw_request(url: str, method: str, target: str) -> tuple[int, dict[str, Any]]:
    """Send `METHOD target HTTP/1.1` as written (no client normalises it); the status and JSON body."""
    parts = urlsplit(url)
    host, port = parts.hostname or '127.0.0.1', parts.port or 80
    request = f'{method} {target} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n'
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(request.encode('ascii'))
        received = b''
        while chunk := sock.recv(65536):
            received += chunk
    head, _, body = received.partition(b'\r\n\r\n')
    status = int(head.split(b' ', 2)[1])
    return status, json.loads(body) if body else {}


def project_files(project: Path) -> dict[str, bytes | str]:
    """The project's own files (the server's log and Synapse's database and folders aside)."""
    seen: dict[str, bytes | str] = {}
    for path in sorted(project.rglob('*')):
        key = str(path.relative_to(project))
        parts = Path(key).parts
        if path.name.startswith(('synapse.db', 'serve-')):
            continue
        if parts[0] == 'attachments' and len(parts) > 1 and _synapse_folder(project, parts[1]):
            continue
        if path.is_symlink():
            seen[key] = f'-> {os.readlink(path)}'
        elif path.is_dir():
            seen[key] = 'dir'
        else:
            seen[key] = path.read_bytes()
    return seen


def _synapse_folder(project: Path, name: str) -> bool:
    entry = project / 'attachments' / name
    return len(name) == 36 and entry.is_dir() and not entry.is_symlink()


def make_project(project: Path, outside: Path) -> None:
    outside.mkdir()
    (outside / 'secret.txt').write_text('outside the project')
    (project / 'pyproject.toml').write_text('[project]\nname = "mine"\n')
    (project / 'app.py').write_text('print("mine")\n')
    own = project / 'attachments'
    (own / 'designs').mkdir(parents=True)
    (own / 'designs' / 'logo.svg').write_text('<svg/>')
    (own / 'readme.txt').write_text('my attachments folder')
    (own / 'outside-link').symlink_to(outside, target_is_directory=True)
    (own / new_id()).symlink_to(outside, target_is_directory=True)


def test_raw_dot_dot_deletes_nothing_on_a_real_server(
    live_server: Any, isolated_env: Path, tmp_path: Path
) -> None:
    project, outside = isolated_env, tmp_path / 'outside'
    make_project(project, outside)
    env = {'SYNAPSE_HOME': '.'}
    server = live_server(['--demo'], env=env)
    response = httpx.post(
        f'{server.url}/api/agents/{DEMO}support-agent/chat',
        data={'message': 'Here are my notes'},
        files=[('attachments', ('notes.txt', b'my notes', 'text/plain'))],
        timeout=30,
    )
    assert response.status_code == 200, response.text
    conversation_id = decode(response.text)[0]['messageMetadata']['conversation_id']
    assert (project / 'attachments' / conversation_id).is_dir()
    mine = project_files(project)
    assert 'app.py' in mine and 'attachments/designs/logo.svg' in mine
    for target in RAW_TARGETS:
        status, body = raw_request(server.url, 'DELETE', target)
        assert status == 404, (target[:40], body)
        assert body['error']['code'] == 'not_found', body
        assert len(body['error']['message']) < 200
        assert project_files(project) == mine, target[:40]
        assert (project / 'synapse.db').is_file(), target[:40]
    assert httpx.get(server.url + '/api/health').status_code == 200
    thread = httpx.get(f'{server.url}/api/conversations/{conversation_id}').json()
    attachment = httpx.get(server.url + thread['messages'][0]['attachments'][0]['url'])
    assert attachment.status_code == 200 and attachment.content == b'my notes'
    assert 'Traceback' not in server.output()
    cleared = subprocess.run(
        [sys.executable, '-m', 'synapse_agents', 'clear', '--yes'],
        cwd=project,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert cleared.returncode == 0 and 'Removed 1 conversations' in cleared.stdout, cleared.stderr
    assert not (project / 'attachments' / conversation_id).exists()
    assert project_files(project) == mine
    assert (outside / 'secret.txt').read_text() == 'outside the project'
