"""A labelled set for the PII detector: Faker sentences in six locales with every value's span.

Each `Sample` is a sentence in its locale's language carrying an e-mail, a phone, an IBAN, a card, an
IP address, a national identity number and a person's name, with where each is (`Label`). Values
come from Faker (`en_US`, `en_GB`, `es_ES`, `fr_FR`, `de_DE`, `it_IT`), except two national numbers
Faker cannot give: a German Steuer-ID (Faker has no generator) and a British NINO (Faker's all start
with `ZZ`, a prefix never issued); those two are made here to their official format and check digit.
`clean_sentences` are ordinary sentences with dates, amounts, versions and order numbers and no
personal data: what a detector must leave alone.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from faker import Faker

LOCALES = ('en_US', 'en_GB', 'es_ES', 'fr_FR', 'de_DE', 'it_IT')
ID_ENTITY = {
    'en_US': 'US_SSN',
    'en_GB': 'UK_NINO',
    'es_ES': 'ES_NIF',
    'fr_FR': 'FR_NIR',
    'de_DE': 'DE_TAX_ID',
    'it_IT': 'IT_FISCAL_CODE',
}

TEMPLATES = {
    'en': [
        'Hi, I am {PERSON}. Reach me at {EMAIL_ADDRESS} or {PHONE_NUMBER}; my ID is {ID}.',
        'Refund card {CREDIT_CARD} to IBAN {IBAN_CODE} for {PERSON} (login from {IP_ADDRESS}).',
    ],
    'es': [
        'Hola, soy {PERSON}. Escríbeme a {EMAIL_ADDRESS} o llama al {PHONE_NUMBER}; mi documento es {ID}.',
        'Devolved la tarjeta {CREDIT_CARD} a la cuenta {IBAN_CODE} de {PERSON} (acceso desde {IP_ADDRESS}).',
    ],
    'fr': [
        'Bonjour, je suis {PERSON}. Écrivez à {EMAIL_ADDRESS} ou appelez le {PHONE_NUMBER} ; '
        'mon NIR est {ID}.',
        'Remboursez la carte {CREDIT_CARD} sur le compte {IBAN_CODE} de {PERSON} '
        '(connexion depuis {IP_ADDRESS}).',
    ],
    'de': [
        'Hallo, ich bin {PERSON}. Schreiben Sie an {EMAIL_ADDRESS} oder rufen Sie {PHONE_NUMBER} an; '
        'Steuer-ID {ID}.',
        'Erstatten Sie Karte {CREDIT_CARD} auf das Konto {IBAN_CODE} von {PERSON} '
        '(Anmeldung von {IP_ADDRESS}).',
    ],
    'it': [
        'Ciao, sono {PERSON}. Scrivimi a {EMAIL_ADDRESS} o chiama il {PHONE_NUMBER}; codice fiscale {ID}.',
        'Rimborsate la carta {CREDIT_CARD} sul conto {IBAN_CODE} di {PERSON} (accesso da {IP_ADDRESS}).',
    ],
}

CLEAN = [
    'The meeting moved to {date} at {hour}:30 in room {room}; bring the {year} budget.',
    'Order {order} of {date} costs {amount} EUR, {pct}% more than last year.',
    'Version {major}.{minor}.{patch} fixed {count} bugs; see section {major}.{minor}, page {page}.',
    'We shipped {count} boxes on {date}; the next {count2} leave in {days} days.',
    'The score was {a} to {b} after {count} minutes, with {pct}% possession.',
]


@dataclass(frozen=True)
class Label:
    """One value in a sample: `text[start:end]`, of `entity`."""

    start: int
    end: int
    entity: str
    value: str


@dataclass(frozen=True)
class Sample:
    locale: str
    text: str
    labels: tuple[Label, ...]


def _steuer_id(rng: random.Random) -> str:
    """A Steuer-ID: 11 digits, first not 0, one digit of the first ten twice, ISO 7064 MOD 11,10."""
    while True:
        digits = [rng.randint(1, 9)] + [rng.randint(0, 9) for _ in range(9)]
        if max(digits.count(d) for d in set(digits)) <= 3 and len(set(digits)) < 10:
            break
    product = 10
    for digit in digits:
        total = (digit + product) % 10 or 10
        product = (total * 2) % 11
    check = (11 - product) % 10
    return ''.join(map(str, digits)) + str(check)


def _nino(rng: random.Random) -> str:
    first = rng.choice('ABCEGHJKLMNOPRSTWXYZ')
    second = rng.choice('ABCEGHJKLMNPRSTWXYZ')
    while first + second in {'BG', 'GB', 'NK', 'KN', 'NT', 'TN', 'ZZ'}:
        second = rng.choice('ABCEGHJKLMNPRSTWXYZ')
    numbers = ' '.join(f'{rng.randint(0, 99):02d}' for _ in range(3))
    return f'{first}{second} {numbers} {rng.choice("ABCD")}'


def _national_id(fake: Faker, locale: str, rng: random.Random, index: int) -> tuple[str, str]:
    """A national number of the locale and its entity (Spain's alternate DNI/NIF and NIE)."""
    if locale == 'de_DE':
        return _steuer_id(rng), 'DE_TAX_ID'
    if locale == 'en_GB':
        return _nino(rng), 'UK_NINO'
    if locale == 'es_ES':
        return (str(fake.nie()), 'ES_NIE') if index % 4 == 2 else (str(fake.nif()), 'ES_NIF')
    return str(fake.ssn()), ID_ENTITY[locale]


def samples(per_locale: int, seed: int = 32) -> list[Sample]:
    """`per_locale` labelled sentences in each locale (reproducible for a `seed`)."""
    made: list[Sample] = []
    for locale in LOCALES:
        fake = Faker(locale)
        fake.seed_instance(seed)
        rng = random.Random(f'{seed}-{locale}')
        templates = TEMPLATES[locale[:2]]
        for index in range(per_locale):
            national, id_entity = _national_id(fake, locale, rng, index)
            values = {
                'PERSON': fake.name(),
                'EMAIL_ADDRESS': fake.email(),
                'PHONE_NUMBER': fake.phone_number(),
                'ID': national,
                'CREDIT_CARD': fake.credit_card_number(),
                'IBAN_CODE': fake.iban(),
                'IP_ADDRESS': fake.ipv4() if index % 4 else fake.ipv6(),
            }
            made.append(_filled(locale, templates[index % len(templates)], values, id_entity))
    return made


def _filled(locale: str, template: str, values: dict[str, str], id_entity: str) -> Sample:
    text, labels, rest = '', [], template
    while '{' in rest:
        before, _, after = rest.partition('{')
        slot, _, rest = after.partition('}')
        text += before
        value = values[slot]
        entity = id_entity if slot == 'ID' else slot
        labels.append(Label(len(text), len(text) + len(value), entity, value))
        text += value
    return Sample(locale, text + rest, tuple(labels))


def clean_sentences(count: int, seed: int = 32) -> list[str]:
    """`count` ordinary sentences with numbers and no personal data."""
    rng = random.Random(seed)
    made = []
    for index in range(count):
        month = rng.choice(['March', 'June', 'October'])
        made.append(
            CLEAN[index % len(CLEAN)].format(
                date=f'{rng.randint(1, 28)} {month} {rng.randint(2019, 2026)}',
                hour=rng.randint(8, 18),
                room=rng.randint(1, 400),
                year=rng.randint(2019, 2027),
                order=rng.randint(10_000, 999_999),
                amount=f'{rng.randint(10, 9_999)}.{rng.randint(0, 99):02d}',
                pct=rng.randint(1, 99),
                major=rng.randint(1, 12),
                minor=rng.randint(0, 40),
                patch=rng.randint(0, 30),
                count=rng.randint(2, 500),
                count2=rng.randint(2, 500),
                page=rng.randint(1, 900),
                days=rng.randint(2, 30),
                a=rng.randint(0, 9),
                b=rng.randint(0, 9),
            )
        )
    return made
