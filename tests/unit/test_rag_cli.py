"""`synapse rag` through Typer's runner, on every selected database: add, index (here, and queued),
status with failed files and stale chunks, search, reembed, remove; refusals in one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, update
from typer.testing import CliRunner, Result

from synapse_agents.cli import command_line
from synapse_agents.retrieval.jobs import KIND
from synapse_agents.retrieval.tables import RagChunk
from synapse_agents.store import Store
from synapse_agents.tasks.tables import AgentTask

runner = CliRunner()


def invoke(*args: str) -> Result:
    result = runner.invoke(command_line(), list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def ok(*args: str) -> str:
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return result.stdout


def as_json(*args: str) -> Any:
    return json.loads(ok(*args, '--json'))


def refused(args: tuple[str, ...], expected: str) -> None:
    result = invoke(*args)
    assert result.exit_code == 1, result.output
    assert result.stdout == ''
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith('Error: ') and expected in result.stderr, result.stderr


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch, store: Store) -> None:
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
    monkeypatch.setenv('COLUMNS', '200')


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / 'docs'
    root.mkdir()
    (root / 'garden.md').write_text('# Garden\n\nWater the tomatoes every morning in summer.')
    (root / 'taxes.txt').write_text('File the tax return before the end of April.')
    (root / 'broken.docx').write_bytes(b'not a docx')
    return root


def test_add_index_status_search_remove(folder: Path, store: Store) -> None:
    source = as_json('rag', 'add', 'home', '--name', 'Home', '--path', str(folder), '--exclude', '*.tmp')
    assert (source['slug'], source['kind'], source['config']['exclude']) == ('home', 'folder', ['*.tmp'])
    outcome = as_json('rag', 'index', 'home')
    assert (outcome['status'], outcome['files'], outcome['indexed'], outcome['failed']) == ('done', 3, 2, 1)
    shown = ok('rag', 'index', 'home')
    assert 'home: done; 3 files: 0 indexed, 2 unchanged' in shown and 'failed: broken.docx' in shown
    status = as_json('rag', 'status', 'home')
    assert status['sources'][0]['document_count'] == 2 and status['sources'][0]['stale_chunks'] == 0
    assert [f['identifier'] for f in status['failed_files']] == ['broken.docx']
    table = ok('rag', 'status')
    assert 'home' in table and 'done' in table
    found = as_json('rag', 'search', 'home', 'when should plants get water', '-k', '1')
    assert found['ranked_by'] == 'similarity'
    assert found['results'][0]['chunk']['citation']['file'] == 'garden.md'
    assert 'garden.md' in ok('rag', 'search', 'home', 'tomatoes')
    # Chunks of another embedder are stale: status says so, reembed embeds them again.
    with store.write() as session:
        session.execute(update(RagChunk).values(embedder='old:model'))
    assert as_json('rag', 'status', 'home')['sources'][0]['stale_chunks'] == 2
    assert 'synapse rag reembed home' in ok('rag', 'status', 'home')
    assert as_json('rag', 'reembed', 'home')['reembedded'] == 2
    with store.read() as session:
        assert set(session.scalars(select(RagChunk.embedder))) == {'local:all-MiniLM-L6-v2-int8'}
    assert 'Removed source home.' in ok('rag', 'remove', 'home')
    assert as_json('rag', 'status')['sources'] == []
    assert (folder / 'garden.md').is_file()


def test_queue_puts_one_task_on_the_queue(folder: Path, store: Store) -> None:
    ok('rag', 'add', 'home', '--path', str(folder))
    task_id = as_json('rag', 'index', 'home', '--queue')['task_id']
    with store.read() as session:
        task = session.get(AgentTask, task_id)
        assert task is not None and task.agent_key == f'job:{KIND}' and task.status == 'queued'
    refused(('rag', 'index', 'home', '--queue'), 'queued already')


def test_refusals_are_one_line(folder: Path) -> None:
    refused(('rag', 'add', 'Not A Slug', '--path', str(folder)), 'slug')
    refused(('rag', 'add', 'x', '--path', str(folder / 'missing')), 'does not exist')
    refused(('rag', 'add', 'x', '--kind', 'carrier-pigeon'), 'carrier-pigeon')
    ok('rag', 'add', 'x', '--path', str(folder))
    refused(('rag', 'add', 'x', '--path', str(folder)), 'exists already')
    for command in ('index', 'status', 'remove', 'reembed'):
        refused(('rag', command, 'nope'), 'nope')
    refused(('rag', 'search', 'nope', 'query'), 'nope')
    refused(('rag', 'search', 'x', 'query', '-k', '0'), 'k')
    refused(('rag', 'add', 'y', '--path', str(folder), '--tenant', 'no-colon'), 'tenant')
