"""`/api/rag` over HTTP: sources created, changed and deleted; indexing queued and run on the
in-process task worker with its progress; failed files, documents, chunks opened from a citation;
uploads; search by tenant. Bad input is a 4xx JSON error, never a 500."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chat_helpers import LOCAL_PEER, LOCAL_URL
from synapse_agents.runtime.root import SynapseRuntime
from synapse_agents.store import Store
from synapse_agents.web.app import create_app


@pytest.fixture
def worker(context: SynapseRuntime) -> Iterator[TestClient]:
    """The app as `synapse serve` opens it: its in-process worker runs the queued indexing."""
    context.maintenance = True
    with TestClient(create_app(context), base_url=LOCAL_URL, client=LOCAL_PEER) as client:
        yield client


def docs(tmp_path: Path) -> Path:
    root = tmp_path / 'docs'
    (root / 'guides').mkdir(parents=True)
    (root / 'pasta.md').write_text('# Cooking\n\nBoil the spaghetti for nine minutes in salted water.')
    (root / 'guides' / 'office.txt').write_text('The office opens at eight and closes at six.')
    (root / 'broken.pdf').write_bytes(b'this is no pdf')
    return root


def indexed(client: TestClient, slug: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    progress: dict[str, Any] = {}
    while time.monotonic() < deadline:
        progress = client.get(f'/api/rag/sources/{slug}/progress').json()
        if progress['status'] in ('done', 'failed'):
            return progress
        time.sleep(0.1)
    raise AssertionError(f'{slug} was not indexed: {progress}')


def test_a_folder_source_is_created_indexed_searched_and_deleted(worker: TestClient, tmp_path: Path) -> None:
    root = docs(tmp_path)
    created = worker.post(
        '/api/rag/sources', json={'slug': 'handbook', 'name': 'Handbook', 'kind': 'folder', 'path': str(root)}
    )
    assert created.status_code == 201, created.text
    source = created.json()
    assert (source['status'], source['config']['path'], source['tenant'], source['active']) == (
        'pending',
        str(root),
        None,
        True,
    )
    assert [s['slug'] for s in worker.get('/api/rag/sources').json()['sources']] == ['handbook']
    queued = worker.post('/api/rag/sources/handbook/index', json={'reembed': False})
    assert queued.status_code == 202 and queued.json()['task_id']
    progress = indexed(worker, 'handbook')
    assert progress['status'] == 'done'
    assert (progress['processed_files'], progress['total_files'], progress['document_count']) == (3, 3, 2)
    assert progress['current_file'] is None and progress['last_indexed_at'] is not None
    failed = worker.get('/api/rag/sources/handbook/files', params={'status': 'failed'}).json()['files']
    assert [f['identifier'] for f in failed] == ['broken.pdf'] and 'PDF' in failed[0]['error']
    everything = worker.get('/api/rag/sources/handbook/files').json()['files']
    assert {f['identifier']: f['status'] for f in everything} == {
        'broken.pdf': 'failed',
        'guides/office.txt': 'indexed',
        'pasta.md': 'indexed',
    }
    page = worker.get('/api/rag/sources/handbook/documents', params={'limit': 1}).json()
    assert page['total'] == 2 and len(page['chunks']) == 1
    found = worker.get(
        '/api/rag/search', params={'source': 'handbook', 'q': 'how long to cook noodles', 'k': 1}
    )
    assert found.status_code == 200, found.text
    answer = found.json()
    assert answer['ranked_by'] == 'similarity' and answer['embedder']
    top = answer['results'][0]
    assert top['chunk']['citation'] == {
        'source': 'handbook',
        'source_name': 'Handbook',
        'file': 'pasta.md',
        'page': None,
        'heading': 'Cooking',
        'chunk_index': 0,
        'chunk_total': 1,
    }
    assert worker.get(f'/api/rag/chunks/{top["chunk"]["id"]}').json() == top['chunk']
    assert worker.delete('/api/rag/sources/handbook').status_code == 204
    assert worker.get('/api/rag/sources/handbook').status_code == 404
    assert worker.get(f'/api/rag/chunks/{top["chunk"]["id"]}').status_code == 404
    assert (root / 'pasta.md').is_file()  # the user's folder is never touched


def test_refusals_are_json_errors(client: TestClient, tmp_path: Path) -> None:
    root = docs(tmp_path)
    body = {'slug': 'a', 'name': 'A', 'kind': 'folder', 'path': str(root)}
    assert client.post('/api/rag/sources', json=body).status_code == 201
    taken = client.post('/api/rag/sources', json=body)
    assert taken.status_code == 409 and taken.json()['error']['code'] == 'conflict'
    for bad in (
        {**body, 'slug': 'Bad Slug'},
        {**body, 'slug': 'b', 'path': str(tmp_path / 'missing')},
        {**body, 'slug': 'b', 'kind': 'nothing-like-it'},
        {**body, 'slug': 'b', 'surprise': 1},
        {**body, 'slug': 'b', 'tenant': 'no-colon'},
        {'slug': 'b', 'kind': 'folder', 'path': str(root)},
    ):
        answer = client.post('/api/rag/sources', json=bad)
        assert answer.status_code == 422, (bad, answer.text)
        assert answer.json()['error']['message']
    for path in ('/api/rag/sources/nope', '/api/rag/sources/nope/progress', '/api/rag/sources/nope/files'):
        assert client.get(path).status_code == 404
    assert client.get('/api/rag/chunks/not-an-id').status_code == 404
    assert client.get('/api/rag/search', params={'q': 'x', 'source': 'nope'}).status_code == 404
    assert client.get('/api/rag/search', params={'q': 'x', 'k': 0}).status_code == 422
    # Queued once (no worker runs it here): asking again while it waits is a conflict.
    assert client.post('/api/rag/sources/a/index').status_code == 202
    assert client.get('/api/rag/sources/a').json()['status'] == 'pending'
    again = client.post('/api/rag/sources/a/index', json={'reembed': True})
    assert again.status_code == 409
    # An upload to a folder source is refused.
    assert client.post('/api/rag/sources/a/files', files={'files': ('x.txt', b'x')}).status_code == 422


def test_patch_changes_a_source_and_checks_its_config(client: TestClient, tmp_path: Path) -> None:
    root = docs(tmp_path)
    client.post('/api/rag/sources', json={'slug': 'a', 'name': 'A', 'kind': 'folder', 'path': str(root)})
    changed = client.patch(
        '/api/rag/sources/a', json={'name': 'Renamed', 'active': False, 'include': ['**/*.md']}
    )
    assert changed.status_code == 200, changed.text
    body = changed.json()
    assert (body['name'], body['active'], body['config']['include']) == ('Renamed', False, ['**/*.md'])
    assert client.patch('/api/rag/sources/a', json={'path': str(tmp_path / 'gone')}).status_code == 422
    assert client.patch('/api/rag/sources/a', json={'name': None}).status_code == 422
    assert client.patch('/api/rag/sources/nope', json={'name': 'x'}).status_code == 404


def test_uploads_are_saved_indexed_removed_and_deleted_with_the_source(
    worker: TestClient, context: SynapseRuntime, store: Store
) -> None:
    source = worker.post('/api/rag/sources', json={'slug': 'up', 'name': 'Uploads', 'kind': 'upload'}).json()
    files = [
        ('files', ('../../notes.md', b'# Notes\n\nThe wifi password is on the fridge.', 'text/markdown')),
        ('files', ('plan.txt', b'The plan is to ship on Tuesday.', 'text/plain')),
    ]
    saved = worker.post('/api/rag/sources/up/files', files=files)
    assert saved.status_code == 201, saved.text
    assert saved.json()['files'] == [
        {'identifier': 'notes.md', 'size': 44},
        {'identifier': 'plan.txt', 'size': 31},
    ]
    folder = context.settings.home / 'rag' / source['id']
    assert sorted(p.name for p in folder.iterdir()) == ['notes.md', 'plan.txt']
    for bad in ('.hidden.txt', 'up/..', 'x' * 250 + '.txt', 'program.exe'):
        refused = worker.post('/api/rag/sources/up/files', files={'files': (bad, b'x')})
        assert refused.status_code == 422, (bad, refused.text)
    too_big = worker.post(
        '/api/rag/sources/up/files',
        files={'files': ('big.txt', b'x' * (context.settings.rag_max_file_bytes + 1))},
    )
    assert too_big.status_code == 413
    worker.post('/api/rag/sources/up/index')
    assert indexed(worker, 'up')['document_count'] == 2
    found = worker.get('/api/rag/search', params={'source': 'up', 'q': 'wifi password', 'k': 1}).json()
    assert found['results'][0]['chunk']['citation']['file'] == 'notes.md'
    assert worker.delete('/api/rag/sources/up/files', params={'identifier': 'notes.md'}).status_code == 204
    assert worker.delete('/api/rag/sources/up/files', params={'identifier': 'notes.md'}).status_code == 404
    assert worker.delete('/api/rag/sources/up/files', params={'identifier': '../x'}).status_code == 404
    left = worker.get('/api/rag/sources/up/documents').json()
    assert [c['citation']['file'] for c in left['chunks']] == ['plan.txt']
    assert worker.delete('/api/rag/sources/up').status_code == 204
    assert not folder.exists()


def test_a_tenants_source_is_seen_only_with_that_tenant(worker: TestClient, tmp_path: Path) -> None:
    root = docs(tmp_path)
    body = {'name': 'A', 'kind': 'folder', 'path': str(root)}
    worker.post('/api/rag/sources', json={**body, 'slug': 'mine', 'tenant': 'org:acme'})
    worker.post('/api/rag/sources', json={**body, 'slug': 'shared'})
    for slug in ('mine', 'shared'):
        worker.post(f'/api/rag/sources/{slug}/index')
        indexed(worker, slug)

    def sources_seen(**params: str) -> set[str]:
        answer = worker.get('/api/rag/search', params={'q': 'office hours', 'k': 20, **params})
        assert answer.status_code == 200, answer.text
        return {r['chunk']['source'] for r in answer.json()['results']}

    assert sources_seen() == {'shared'}
    assert sources_seen(tenant='org:acme') == {'mine', 'shared'}
    assert sources_seen(tenant='org:other') == {'shared'}
    assert (
        worker.get('/api/rag/search', params={'q': 'x', 'source': 'mine', 'tenant': 'org:other'}).status_code
        == 404
    )
