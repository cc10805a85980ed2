"""The labelled long-conversation set of `bench_memory.py`: who says what, and the facts search must find.

`generate` builds it from `SEED`, the same every run: 3 tenants (`TENANTS`) of 4 people (`PEOPLE`),
one conversation each (the first of `long_turns` turns, the others of `short_turns`), their turns
interleaved in time. A turn is a greeting (or none), 3 to 5 sentences of chit-chat, each shared or
personal (a template filled at random from `SLOTS`), and the assistant's reply. Planted among those
sentences, facts: `SHARED_PER_TENANT` shared ones in each tenant ("The Lisbon office closes at
17:00.", a different value in each tenant) and `PERSONAL_PER_PERSON` personal ones for each person
("I prefer invoices as PDF."; colleagues have the same kind of fact with other values). Each planted
fact has a question that paraphrases it ("When does our Portugal branch shut for the day?") and who
asks it from its own scope: a person of the tenant for a shared fact, the person for a personal one.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass, field

SEED = 20261204
TENANTS = ('acme', 'globex', 'initech')
PEOPLE = ('ana', 'ben', 'chloe', 'dev')
SHARED_PER_TENANT = 12
PERSONAL_PER_PERSON = 6


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
