"""Part 1 of `bench_memory.py`, recall and leaks: the labelled set (`memory_set`) written as memories
and its questions asked on every store.

`write_set` writes every sentence through `Recall.remember` and keeps the axes each memory was
written with; `copy_memories` puts the same rows and vectors into another store (the PostgreSQL
ones). `probes` are the questions to ask: each from its fact's own scope, again from another tenant
and, for a personal fact, by a colleague. `search_all` asks them through `Recall.search` and counts
the leaks (a result of another tenant, or that applies to another person); `exact_and_recency` ranks
the own-scope ones by exact cosine in numpy over the same vectors and by recency (the scope's newest
5 and 10); `recall_at` scores a ranking. `Backend` is a store with its `Recall`; `analyze` gives
PostgreSQL's planner statistics after a bulk load (here and in `memory_scale`).
"""

from __future__ import annotations

import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sqlalchemy import insert, select, text

from memory_set import SEED, LabelledSet, Planted

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))

from synapse_agents.accounting.tables import LlmCall
from synapse_agents.memory import book
from synapse_agents.memory.recall import Recall
from synapse_agents.memory.tables import Memory, MemoryVector
from synapse_agents.scope import Scope
from synapse_agents.store import Store
from synapse_agents.store.vectors import index_of


@dataclass
class Backend:
    """A store the bench searches, with its Recall."""

    name: str
    short: str
    """For the narrow tables."""
    store: Store
    recall: Recall


@dataclass
class Written:
    """What `remember` wrote for the labelled set."""

    labels: dict[str, tuple[str, str | None]]
    """Memory id -> (tenant, applies_to), from what the bench asked to write."""
    steps: dict[str, int]
    """Memory id -> the step of the turn it was said in."""
    contents: dict[str, str]
    offered: int
    calls: int
    seconds: float
    embed_ms: list[int]
    tokens: int


async def write_set(recall: Recall, data: LabelledSet) -> Written:
    """Every sentence of every turn as a memory, one `remember` call a turn, in time order."""
    labels: dict[str, tuple[str, str | None]] = {}
    steps: dict[str, int] = {}
    contents: dict[str, str] = {}
    by_content: dict[tuple[str, str | None, str], str] = {}
    offered = 0
    started = time.perf_counter()
    for turn in data.turns:
        inputs = [
            book.MemoryInput(
                tenant=turn.tenant,
                content=sentence,
                applies_to=turn.person if personal else None,
                source='distilled',
                created_by=turn.person,
            )
            for sentence, personal in turn.sentences
        ]
        offered += len(inputs)
        for row in await recall.remember(inputs, user=turn.person):
            labels[row.id] = (row.tenant, row.applies_to)
            steps[row.id] = turn.step
            contents[row.id] = row.content
            by_content[(row.tenant, row.applies_to, row.content)] = row.id
    seconds = time.perf_counter() - started
    for fact in data.planted:
        found = by_content.get((fact.tenant, fact.applies_to, fact.statement))
        if found is None:
            raise RuntimeError(f'planted fact not written (deduplicated?): {fact.statement!r}')
        fact.memory_id = found
    with recall.store.read() as session:
        ledger = list(
            session.execute(
                select(LlmCall.duration_ms, LlmCall.input_tokens).where(LlmCall.module == 'embed')
            )
        )
    return Written(
        labels,
        steps,
        contents,
        offered,
        len(data.turns),
        seconds,
        [int(ms or 0) for ms, _ in ledger],
        sum(int(t or 0) for _, t in ledger),
    )


def scope_of(tenant: str, person: str) -> Scope:
    kind, ident = tenant.split(':', 1)
    _, who = person.split(':', 1)
    return Scope(tenant=(kind, ident), actor=('user', who))


@dataclass
class Probe:
    fact: Planted
    tenant: str
    asker: str
    own: bool
    """The fact's own scope (counts for recall), or a probe from outside (counts for leaks only)."""


def probes(data: LabelledSet) -> list[Probe]:
    rng = random.Random(SEED + 1)
    found: list[Probe] = []
    tenants = list(data.people)
    for fact in data.planted:
        found.append(Probe(fact, fact.tenant, fact.asker, True))
        other = rng.choice([t for t in tenants if t != fact.tenant])
        found.append(Probe(fact, other, rng.choice(data.people[other]), False))
        if fact.applies_to is not None:
            colleague = rng.choice([p for p in data.people[fact.tenant] if p != fact.applies_to])
            found.append(Probe(fact, fact.tenant, colleague, False))
    return found


@dataclass
class Searched:
    top: dict[int, list[str]]
    """Index of an own probe -> the ids search ranked, best first."""
    leaks: int
    results: int
    searches: int
    ms: list[float]


def _leak(labels: dict[str, tuple[str, str | None]], memory: Memory, tenant: str, asker: str) -> bool:
    stored_tenant, stored_applies = labels[memory.id]
    if (stored_tenant, stored_applies) != (memory.tenant, memory.applies_to):
        raise RuntimeError(f'memory {memory.id} came back with other axes than it was written with')
    return stored_tenant != tenant or stored_applies not in (None, asker)


async def search_all(
    recall: Recall, all_probes: list[Probe], labels: dict[str, tuple[str, str | None]]
) -> Searched:
    top: dict[int, list[str]] = {}
    leaks = results = 0
    times: list[float] = []
    for index, probe in enumerate(all_probes):
        started = time.perf_counter()
        answer = await recall.search(scope_of(probe.tenant, probe.asker), probe.fact.question, 10)
        times.append((time.perf_counter() - started) * 1000)
        if answer.ranked_by != 'similarity':
            raise RuntimeError(f'search ranked by {answer.ranked_by}, not by similarity')
        results += len(answer.results)
        leaks += sum(_leak(labels, f.memory, probe.tenant, probe.asker) for f in answer.results)
        if probe.own:
            top[index] = [f.memory.id for f in answer.results]
    return Searched(top, leaks, results, len(all_probes), times)


def _desc(memory_id: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in memory_id)


async def exact_and_recency(
    recall: Recall, all_probes: list[Probe], labels: dict[str, tuple[str, str | None]]
) -> tuple[dict[int, list[str]], dict[int, tuple[set[str], set[str]]]]:
    """Exact cosine in numpy over every vector of the asker's scope, and the scope's newest 5 / 10."""
    assert recall.embedder is not None
    with recall.store.read() as session:
        pairs = list(session.execute(select(MemoryVector.memory_id, MemoryVector.embedding)))
    ids = [memory_id for memory_id, _ in pairs]
    matrix = np.vstack([np.asarray(v, dtype=np.float32) for _, v in pairs])
    norms = np.linalg.norm(matrix, axis=1)
    exact: dict[int, list[str]] = {}
    newest: dict[int, tuple[set[str], set[str]]] = {}
    for index, probe in enumerate(all_probes):
        if not probe.own:
            continue
        query = np.asarray(
            (await recall.embedder.embed_query([probe.fact.question])).embeddings[0], np.float32
        )
        similarity = (matrix @ query) / (norms * float(np.linalg.norm(query)))
        visible = [
            n
            for n, i in enumerate(ids)
            if labels[i][0] == probe.tenant and labels[i][1] in (None, probe.asker)
        ]
        visible.sort(key=lambda n: (1.0 - float(similarity[n]), _desc(ids[n])))
        exact[index] = [ids[n] for n in visible[:10]]
        scope = scope_of(probe.tenant, probe.asker)
        five, ten = (book.newest_in_scope(recall.store, scope, k) for k in (5, 10))
        newest[index] = (
            {m.id for m in five.shared + five.personal},
            {m.id for m in ten.shared + ten.personal},
        )
    return exact, newest


def recall_at(
    top: dict[int, list[str]], all_probes: list[Probe], k: int, personal: bool | None = None
) -> float:
    """The share (%) of own probes whose fact is among the first `k` of `top`."""
    chosen = [i for i in top if personal is None or (all_probes[i].fact.applies_to is not None) == personal]
    hits = sum(all_probes[i].fact.memory_id in top[i][:k] for i in chosen)
    return 100.0 * hits / len(chosen)


def copy_memories(source: Store, target: Store) -> None:
    """The memories and vectors of `source`, as they are, into `target` (the labelled set on PostgreSQL)."""
    index_of(target.engine)
    with source.read() as session:
        memories = [dict(r) for r in session.execute(select(Memory.__table__)).mappings()]
        vectors = [dict(r) for r in session.execute(select(MemoryVector.__table__)).mappings()]
    with target.write() as session:
        session.execute(insert(Memory), memories)
        session.execute(insert(MemoryVector), vectors)
    analyze(target)


def analyze(store: Store) -> None:
    """Statistics for PostgreSQL's planner after a bulk load (what autovacuum would soon do)."""
    if store.dialect == 'postgresql':
        with store.engine.connect() as connection:
            connection.execute(text('ANALYZE memories; ANALYZE memory_vectors'))
            connection.commit()
