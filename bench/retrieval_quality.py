"""Parts 1 and 2 of `bench_retrieval.py`: a folder source indexed by the real indexer, and the
question set asked through `search`.

`index_folder` creates a `folder` source over a corpus folder (`sources.create`) and runs
`indexer.index_source` on it, timing the run; the embedder's own share of the run is read from the
ledger (each embedding call is a row of module `rag` with its duration). `copy_index` puts a
store's sources, files and chunks, vectors included, into another store (the pgvector one), and
makes its HNSW index as the indexer does. `ask` asks every question through `search` and scores
where the first chunk of a chapter that answers it comes: hit@1, hit@5, MRR@10.
"""

from __future__ import annotations

import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pluggy
from sqlalchemy import func, insert, select

from retrieval_set import QUESTIONS, Question

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))

from synapse_agents.accounting.tables import LlmCall
from synapse_agents.embeddings.local import MAX_TOKENS, model_files
from synapse_agents.retrieval import indexer, sources, vector_search
from synapse_agents.retrieval.embedding import RagEmbedder
from synapse_agents.retrieval.search import search
from synapse_agents.retrieval.tables import RagChunk, RagFile, RagSource
from synapse_agents.settings import Settings
from synapse_agents.store import Store
from synapse_agents.store.vectors import index_of

K = 10


@dataclass
class Indexed:
    """One indexing run: files, chunks, seconds, and the embedder's share of them."""

    files: int
    chunks: int
    seconds: float
    embed_seconds: float
    failed: int

    @property
    def chunks_per_second(self) -> float:
        return self.chunks / self.seconds

    @property
    def embed_chunks_per_second(self) -> float:
        return self.chunks / self.embed_seconds if self.embed_seconds else 0.0


def _embed_ms(store: Store) -> int:
    with store.read() as session:
        return int(session.scalar(select(func.sum(LlmCall.duration_ms)).where(LlmCall.module == 'rag')) or 0)


async def index_folder(
    store: Store, settings: Settings, manager: pluggy.PluginManager, rag: RagEmbedder, slug: str, folder: Path
) -> Indexed:
    """A folder source over `folder`, indexed once by the real indexer, timed."""
    row = sources.create(store, settings, manager, slug=slug, name=slug, kind='folder', path=str(folder))
    if rag.embedder is not None:
        await rag.embedder.embed_query(['warm up'])  # the model's session loads once, before the clock
    before = _embed_ms(store)
    began = time.perf_counter()
    outcome = await indexer.index_source(store, settings, manager, row.id, embedder=rag)
    seconds = time.perf_counter() - began
    if outcome.status != 'done' or outcome.failed:
        raise RuntimeError(
            f'indexing {slug} ended {outcome.status} with {outcome.failed} failed files: {outcome.errors[:3]}'
        )
    embed = (_embed_ms(store) - before) / 1000
    return Indexed(outcome.files, outcome.chunks, seconds, embed, outcome.failed)


def copy_index(source: Store, target: Store, settings: Settings, dimensions: int) -> None:
    """The sources, files and chunks of `source`, as they are, into `target`; its HNSW index made."""
    index = index_of(target.engine, settings.vector_store, table='rag_chunks')
    with source.read() as session:
        tables = [
            (table, [dict(r) for r in session.execute(select(table.__table__)).mappings()])
            for table in (RagSource, RagFile, RagChunk)
        ]
    with target.write() as session:
        for table, rows in tables:
            for start in range(0, len(rows), 2000):
                session.execute(insert(table), rows[start : start + 2000])
    vector_search.ensure_hnsw_index(target.engine, index, dimensions)


@dataclass(frozen=True)
class Lengths:
    """How long the chunks of a source are in the offline model's tokens, uncut."""

    chunks: int
    over: int
    """Chunks longer than the model reads (`MAX_TOKENS`): the rest of each is cut before encoding."""
    median: float
    longest: int
    cut_share: float
    """The share of all the chunks' tokens past the limit."""


def token_lengths(store: Store, slug: str) -> Lengths | None:
    """The chunks of `slug` counted in the `local` embedder's tokens (None without that model)."""
    files = model_files()
    if files is None:
        return None
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(files[1]))
    tokenizer.no_truncation()
    with store.read() as session:
        contents = list(
            session.scalars(
                select(RagChunk.content)
                .join(RagSource, RagSource.id == RagChunk.source_id)
                .where(RagSource.slug == slug)
            )
        )
    counts = [len(encoding.ids) for encoding in tokenizer.encode_batch(contents)]
    cut = sum(max(0, c - MAX_TOKENS) for c in counts)
    return Lengths(
        len(counts),
        sum(c > MAX_TOKENS for c in counts),
        statistics.median(counts),
        max(counts),
        cut / sum(counts),
    )


@dataclass
class Asked:
    """Where each question's first answering chunk came (1-based; None: not in the top k)."""

    ranks: list[int | None]
    ms: list[float]
    misses: list[tuple[Question, list[str]]]

    def hit_at(self, k: int) -> float:
        return sum(1 for r in self.ranks if r is not None and r <= k) / len(self.ranks)

    def mrr(self) -> float:
        return sum(1 / r for r in self.ranks if r is not None) / len(self.ranks)


async def ask(store: Store, settings: Settings, rag: RagEmbedder, slug: str) -> Asked:
    """Every question of the set through `search` over the source `slug`, k=10."""
    ranks: list[int | None] = []
    times: list[float] = []
    misses: list[tuple[Question, list[str]]] = []
    for question in QUESTIONS:
        began = time.perf_counter()
        answer = await search(store, settings, question.text, sources=[slug], k=K, embedder=rag)
        times.append((time.perf_counter() - began) * 1000)
        if answer.ranked_by != 'similarity':
            raise RuntimeError(f'search ranked by {answer.ranked_by}')
        files = [hit.chunk.file_identifier for hit in answer.results]
        wanted = question.files()
        rank = next((n + 1 for n, f in enumerate(files) if f in wanted), None)
        ranks.append(rank)
        if rank is None:
            misses.append((question, files[:3]))
    return Asked(ranks, times, misses)
