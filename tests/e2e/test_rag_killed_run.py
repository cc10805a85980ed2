"""A killed indexing run loses nothing, and the next run takes its claim over.

A folder is indexed, then every file in it changes, and a real `synapse rag index` (another process)
re-indexes it until it is killed with SIGKILL in the middle. Afterwards every file indexed before is
still searchable, each in one whole version (old or new, never a mix, never none); a new run is
refused while the dead run's claim is fresh, takes it over once it is stale, and completes.
"""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import anyio
import pytest
from sqlalchemy import select

from synapse_agents.errors import SourceConflict
from synapse_agents.plugins.defaults import default_manager
from synapse_agents.retrieval import sources
from synapse_agents.retrieval.indexer import index_source
from synapse_agents.retrieval.search import search
from synapse_agents.retrieval.tables import RagChunk
from synapse_agents.settings import Settings
from synapse_agents.store import Store

pytestmark = pytest.mark.slow

FILES = 24


def write_version(root: Path, version: str) -> None:
    for n in range(FILES):
        paragraphs = [
            f'Document {n}, {version} version, paragraph {p}: '
            + ' '.join(f'word{n}x{p}x{w}' for w in range(60))
            for p in range(3)
        ]
        (root / f'doc{n:02d}.md').write_text('\n\n'.join(paragraphs), encoding='utf-8')


def versions_by_file(store: Store, source_id: str) -> dict[str, set[str]]:
    """The content hashes of each file's chunks (one per file when no version is mixed)."""
    found: dict[str, set[str]] = defaultdict(set)
    with store.read() as session:
        for identifier, digest in session.execute(
            select(RagChunk.file_identifier, RagChunk.content_hash).where(RagChunk.source_id == source_id)
        ):
            found[identifier].add(digest)
    return found


def test_a_run_killed_mid_reindex_loses_no_file_and_the_next_run_takes_over(
    store: Store, database_url: str, isolated_env: Path, tmp_path: Path
) -> None:
    home = tmp_path / 'home'
    settings = Settings(home=home, database_url=database_url)
    root = tmp_path / 'docs'
    root.mkdir()
    write_version(root, 'old')
    source = sources.create(
        store, settings, default_manager(), slug='docs', name='Docs', kind='folder', path=str(root)
    )
    first = anyio.run(lambda: index_source(store, settings, default_manager(), source.id))
    assert (first.indexed, first.failed) == (FILES, 0)
    old = versions_by_file(store, source.id)
    before = set(old)
    assert len(before) == FILES

    write_version(root, 'new')
    env = {**os.environ, 'SYNAPSE_HOME': str(home), 'SYNAPSE_DATABASE_URL': database_url}
    process = subprocess.Popen(
        [sys.executable, '-m', 'synapse_agents', 'rag', 'index', 'docs'],
        env=env,
        cwd=isolated_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    try:
        while True:
            row = sources.get(store, 'docs')
            if row.claim is not None and row.processed_files >= 3:
                break
            assert process.poll() is None, 'the run ended before it could be killed'
            assert time.monotonic() < deadline, f'the run never got going: {row.status}'
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
    dead = sources.get(store, 'docs')
    assert dead.status == 'indexing' and dead.claim is not None  # it died holding the source
    assert 3 <= dead.processed_files < FILES

    # Every file indexed before is still there, each in one whole version, and found by search.
    versions = versions_by_file(store, source.id)
    assert set(versions) == before
    assert all(len(v) == 1 for v in versions.values()), versions
    replaced = sum(1 for name, v in versions.items() if v != old[name])
    assert 0 < replaced < FILES  # the kill came in the middle
    for identifier in sorted(before):
        answer = anyio.run(
            functools.partial(search, store, settings, 'document paragraph', file=identifier, k=1)
        )
        assert len(answer.results) == 1, identifier

    # A fresh claim is respected; a stale one is taken over and the run completes.
    with pytest.raises(SourceConflict):
        anyio.run(lambda: index_source(store, settings, default_manager(), source.id))
    time.sleep(1.2)
    impatient = Settings(home=home, database_url=database_url, task_stale_seconds=1)
    outcome = anyio.run(lambda: index_source(store, impatient, default_manager(), source.id))
    assert outcome.status == 'done' and outcome.failed == 0
    assert outcome.indexed + outcome.unchanged == FILES and outcome.indexed == FILES - replaced
    done = sources.get(store, 'docs')
    assert (done.status, done.claim, done.document_count) == ('done', None, FILES)
    final = versions_by_file(store, source.id)
    assert all(len(v) == 1 and v != old[name] for name, v in final.items()) and set(final) == before
    with store.read() as session:
        contents = list(session.scalars(select(RagChunk.content).where(RagChunk.source_id == source.id)))
    assert not any('old version' in c for c in contents)
