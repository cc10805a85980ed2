"""Indexing a retrieval source: incremental by content hash, loss-proof, one run at a time.

On SQLite (sqlite-vec), PostgreSQL without pgvector (exact in Python) and PostgreSQL with pgvector
(`vectors` marker), with the offline embedder; fakes only at the embedding model boundary
(pydantic-ai's `TestEmbeddingModel` as "another embedder", a model that fails).
"""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path

import pytest
from pydantic_ai.embeddings import Embedder
from pydantic_ai.embeddings.test import TestEmbeddingModel
from sqlalchemy import select, update

from embedding_fakes import FailingEmbeddings
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.errors import SourceConflict
from synapse_agents.plugins.defaults import default_manager
from synapse_agents.retrieval import sources
from synapse_agents.retrieval.claims import claim
from synapse_agents.retrieval.embedding import RagEmbedder
from synapse_agents.retrieval.indexer import Progress, index_source
from synapse_agents.retrieval.search import search
from synapse_agents.retrieval.tables import RagChunk, RagFile, RagSource
from synapse_agents.settings import Settings
from synapse_agents.store import Store
from synapse_agents.store.schema import utcnow

pytestmark = [pytest.mark.anyio, pytest.mark.vectors]
LOCAL = 'local:all-MiniLM-L6-v2-int8'


def folder(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / 'docs'
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding='utf-8')
    return root


def settings_for(tmp_path: Path, **values: object) -> Settings:
    return Settings(home=tmp_path / 'home', **values)  # type: ignore[arg-type]


def add(
    store: Store, settings: Settings, root: Path, slug: str = 'docs', tenant: str | None = None
) -> RagSource:
    return sources.create(
        store,
        settings,
        default_manager(),
        slug=slug,
        name=slug.title(),
        kind='folder',
        path=str(root),
        tenant=tenant,
    )


def chunks_of(store: Store, source_id: str) -> list[RagChunk]:
    with store.read() as session:
        rows = list(
            session.scalars(
                select(RagChunk)
                .where(RagChunk.source_id == source_id)
                .order_by(RagChunk.file_identifier, RagChunk.chunk_index)
            )
        )
        session.expunge_all()
    return rows


def rag_ledger(store: Store) -> list[LlmCall]:
    with store.read() as session:
        rows = list(session.scalars(select(LlmCall).where(LlmCall.module == 'rag')))
        session.expunge_all()
    return rows


async def test_a_folder_is_indexed_with_progress_citations_and_ledger_rows(
    store: Store, tmp_path: Path
) -> None:
    settings = settings_for(tmp_path)
    root = folder(
        tmp_path,
        {
            'pasta.md': '# Cooking\n\nBoil the spaghetti in salted water for nine minutes.',
            'money/report.txt': 'Quarterly revenue grew by ten percent over the last year.',
            'notes.rst': 'The office opens at eight in the morning.',
        },
    )
    source = add(store, settings, root, tenant='org:acme')
    seen: list[Progress] = []
    outcome = await index_source(store, settings, default_manager(), source.id, progress=seen.append)
    assert (outcome.status, outcome.files, outcome.indexed, outcome.failed) == ('done', 3, 3, 0)
    assert seen[-1] == Progress(3, 3, None)
    assert [p.processed for p in seen[:-1]] == [0, 1, 2]
    assert {p.current_file for p in seen[:-1]} == {'pasta.md', 'money/report.txt', 'notes.rst'}
    row = sources.get(store, 'docs')
    assert (row.status, row.document_count, row.chunk_count, row.embedder) == ('done', 3, 3, LOCAL)
    assert (row.processed_files, row.total_files, row.claim, row.current_file) == (3, 3, None, None)
    assert row.last_indexed_at is not None
    chunks = chunks_of(store, source.id)
    assert {c.tenant for c in chunks} == {'org:acme'}
    assert all(c.embedder == LOCAL and c.dimensions == 384 for c in chunks)
    pasta = next(c for c in chunks if c.file_identifier == 'pasta.md')
    assert pasta.meta['heading'] == 'Cooking' and pasta.meta['source'] == 'Docs'
    ledger = rag_ledger(store)
    assert ledger and {r.tenant for r in ledger} == {'org:acme'}
    assert all(r.cost == 0 and r.input_tokens > 0 for r in ledger)
    answer = await search(store, settings, 'how long do noodles cook', tenant='org:acme', k=1)
    assert answer.ranked_by == 'similarity'
    assert answer.results[0].as_json()['chunk']['citation'] == {
        'source': 'docs',
        'source_name': 'Docs',
        'file': 'pasta.md',
        'page': None,
        'heading': 'Cooking',
        'chunk_index': 0,
        'chunk_total': 1,
    }


async def test_unchanged_files_are_not_embedded_again_changed_ones_replaced_gone_ones_removed(
    store: Store, tmp_path: Path
) -> None:
    settings = settings_for(tmp_path)
    root = folder(
        tmp_path, {'a.txt': 'Alpha text about apples.', 'b.txt': 'Beta text about bananas.', 'c.txt': 'C.'}
    )
    source = add(store, settings, root)
    await index_source(store, settings, default_manager(), source.id)
    before = {c.file_identifier: c.id for c in chunks_of(store, source.id)}
    calls = len(rag_ledger(store))
    (root / 'b.txt').write_text('Beta text now about blueberries.', encoding='utf-8')
    (root / 'c.txt').unlink()
    outcome = await index_source(store, settings, default_manager(), source.id)
    assert (outcome.unchanged, outcome.indexed, outcome.removed) == (1, 1, 1)
    after = {c.file_identifier: c for c in chunks_of(store, source.id)}
    assert set(after) == {'a.txt', 'b.txt'}
    assert after['a.txt'].id == before['a.txt']  # not touched
    assert after['b.txt'].id != before['b.txt'] and 'blueberries' in after['b.txt'].content
    assert len(rag_ledger(store)) == calls + 1  # only the changed file was embedded
    with store.read() as session:
        assert sorted(session.scalars(select(RagFile.identifier).where(RagFile.source_id == source.id))) == [
            'a.txt',
            'b.txt',
        ]
    assert sources.get(store, 'docs').document_count == 2


async def test_a_failing_file_is_recorded_and_the_rest_indexed_its_old_version_kept(
    store: Store, tmp_path: Path
) -> None:
    settings = settings_for(tmp_path, rag_max_file_bytes=200)
    root = folder(
        tmp_path, {'good.md': 'A good file about gardens.', 'later.md': 'First version about lakes.'}
    )
    (root / 'broken.pdf').write_bytes(b'not a pdf at all')
    (root / 'big.txt').write_text('x' * 500, encoding='utf-8')
    source = add(store, settings, root)
    outcome = await index_source(store, settings, default_manager(), source.id)
    assert (outcome.status, outcome.indexed, outcome.failed) == ('done', 2, 2)
    failed = {f.identifier: f.error for f in sources.files(store, 'docs', 'failed')}
    assert set(failed) == {'broken.pdf', 'big.txt'}
    assert '500 bytes' in str(failed['big.txt'])
    row = sources.get(store, 'docs')
    assert row.status == 'done' and row.last_error is not None and '2 file(s) failed' in row.last_error
    # A file indexed before that now fails keeps its last good version searchable.
    (root / 'later.md').write_bytes(b'y' * 300)
    await index_source(store, settings, default_manager(), source.id)
    kept = [c for c in chunks_of(store, source.id) if c.file_identifier == 'later.md']
    assert [c.content for c in kept] == ['First version about lakes.']
    assert {f.identifier for f in sources.files(store, 'docs', 'failed')} == {
        'broken.pdf',
        'big.txt',
        'later.md',
    }


async def test_an_embedding_failure_fails_the_file_and_keeps_its_old_chunks(
    store: Store, tmp_path: Path
) -> None:
    settings = settings_for(tmp_path)
    root = folder(tmp_path, {'a.txt': 'Original words about rivers.'})
    source = add(store, settings, root)
    await index_source(store, settings, default_manager(), source.id)
    (root / 'a.txt').write_text('New words about mountains.', encoding='utf-8')
    down = RagEmbedder(Embedder(FailingEmbeddings()))
    outcome = await index_source(store, settings, default_manager(), source.id, embedder=down)
    assert outcome.failed == 1 and 'unreachable' in outcome.errors[0]
    assert [c.content for c in chunks_of(store, source.id)] == ['Original words about rivers.']


async def test_a_vanished_folder_fails_the_source_and_loses_nothing(store: Store, tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    root = folder(tmp_path, {'a.txt': 'Kept words.'})
    source = add(store, settings, root)
    await index_source(store, settings, default_manager(), source.id)
    (root / 'a.txt').unlink()
    root.rmdir()
    outcome = await index_source(store, settings, default_manager(), source.id)
    row = sources.get(store, 'docs')
    assert outcome.status == 'failed' and row.status == 'failed' and row.claim is None
    assert 'does not exist' in str(row.last_error)
    assert [c.content for c in chunks_of(store, source.id)] == ['Kept words.']


async def test_one_run_at_a_time_and_a_stale_claim_is_taken_over(store: Store, tmp_path: Path) -> None:
    settings = settings_for(tmp_path, task_stale_seconds=60)
    root = folder(tmp_path, {'a.txt': 'Words.'})
    source = add(store, settings, root)
    token = claim(store, source.id, 60)
    assert token is not None
    assert claim(store, source.id, 60) is None
    with pytest.raises(SourceConflict):
        await index_source(store, settings, default_manager(), source.id)
    assert sources.source_json(sources.get(store, 'docs'), 60)['status'] == 'indexing'
    # The run that held it died: its heartbeat grows old, and the next run takes the source over.
    with store.write() as session:
        session.execute(
            update(RagSource)
            .where(RagSource.id == source.id)
            .values(heartbeat_at=utcnow() - timedelta(seconds=61))
        )
    shown = sources.progress_json(sources.get(store, 'docs'), 60)
    assert shown['status'] == 'failed' and 'stopped without finishing' in shown['last_error']
    outcome = await index_source(store, settings, default_manager(), source.id)
    assert outcome.status == 'done' and outcome.indexed == 1
    assert sources.get(store, 'docs').claim is None


async def test_another_embedder_leaves_chunks_stale_until_reembed(store: Store, tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    root = folder(tmp_path, {'a.txt': 'Apples are red.', 'b.txt': 'Bananas are yellow.'})
    source = add(store, settings, root)
    await index_source(store, settings, default_manager(), source.id)
    other = RagEmbedder(Embedder(TestEmbeddingModel('other', dimensions=8)))
    plain = await index_source(store, settings, default_manager(), source.id, embedder=other)
    assert (plain.unchanged, plain.stale_chunks, plain.embedder) == (2, 2, 'test:other')
    assert sources.stale_chunks(store, source.id, 'test:other') == 2
    found = await search(store, settings, 'apples', embedder=other)
    assert found.results == []  # only chunks of the current embedder are searched
    redone = await index_source(store, settings, default_manager(), source.id, embedder=other, reembed=True)
    assert (redone.reembedded, redone.stale_chunks) == (2, 0)
    assert {(c.embedder, c.dimensions) for c in chunks_of(store, source.id)} == {('test:other', 8)}
    assert len((await search(store, settings, 'apples', embedder=other, k=5)).results) == 2


async def test_without_an_embedder_chunks_are_kept_and_searched_by_text(store: Store, tmp_path: Path) -> None:
    settings = settings_for(tmp_path, embedder='off')
    root = folder(
        tmp_path,
        {'a.txt': 'The invoice is due on Friday.', 'b.txt': 'Lunch is served at noon. Invoice desk closed.'},
    )
    source = add(store, settings, root)
    outcome = await index_source(store, settings, default_manager(), source.id)
    assert outcome.indexed == 2 and outcome.embedder is None
    assert {(c.embedder, c.embedding is None) for c in chunks_of(store, source.id)} == {(None, True)}
    assert rag_ledger(store) == []
    answer = await search(store, settings, 'invoice due Friday', k=5)
    assert answer.ranked_by == 'text' and answer.embedder is None
    assert [h.chunk.file_identifier for h in answer.results] == ['a.txt', 'b.txt']
    assert answer.results[0].score == 1.0
    # Turning the offline embedder on: `reembed` gives the kept chunks vectors.
    on = settings_for(tmp_path)
    redone = await index_source(store, on, default_manager(), source.id, reembed=True)
    assert redone.reembedded == 2
    assert (await search(store, on, 'when must the bill be paid', k=1)).results[
        0
    ].chunk.file_identifier == 'a.txt'


async def test_deleting_a_source_stops_its_run_and_leaves_nothing(store: Store, tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    root = folder(tmp_path, {f'{n}.txt': f'File number {n}.' for n in range(4)})
    source = add(store, settings, root)

    def delete_midway(progress: Progress) -> None:
        if progress.processed == 2 and progress.current_file is not None:
            sources.delete(store, settings, 'docs')

    outcome = await index_source(store, settings, default_manager(), source.id, progress=delete_midway)
    assert outcome.status == 'lost' and outcome.indexed == 2
    assert chunks_of(store, source.id) == []
    with store.read() as session:
        assert session.scalars(select(RagFile).where(RagFile.source_id == source.id)).all() == []
    assert root.is_dir() and len(list(root.iterdir())) == 4


def test_of_several_claims_at_once_exactly_one_wins(store: Store, tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    source = add(store, settings, folder(tmp_path, {'a.txt': 'Words.'}))
    won: list[str | None] = []
    threads = [threading.Thread(target=lambda: won.append(claim(store, source.id, 60))) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(won) == 6 and len([t for t in won if t is not None]) == 1
    assert sources.get(store, 'docs').claim in won
