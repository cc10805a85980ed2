"""Schema-driven values: whatever the prompt, the demo model's arguments and outputs validate."""

from __future__ import annotations

import datetime as dt
import enum
import uuid
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field, TypeAdapter

from synapse_agents.demo._arguments import ArgumentBuilder
from synapse_agents.demo._patterns import sample_for_pattern
from synapse_agents.demo._prompt import PromptFacts


class Colour(enum.Enum):
    RED = 'red'
    GREEN = 'green'


class Cat(BaseModel):
    kind: Literal['cat'] = 'cat'
    lives: int = Field(ge=1, le=9)


class Dog(BaseModel):
    kind: Literal['dog'] = 'dog'
    good: bool


class Node(BaseModel):
    label: str
    children: list[Node] = []


class Everything(BaseModel):
    when: dt.date
    at: dt.datetime
    clock: dt.time
    duration: dt.timedelta
    ident: uuid.UUID
    colour: Colour
    pet: Annotated[Cat | Dog, Field(discriminator='kind')]
    tree: Node
    counts: dict[str, int]
    pair: tuple[int, str]
    code: Annotated[str, Field(pattern=r'^[A-Z]{3}-\d{3}$')]
    even: Annotated[int, Field(multiple_of=2, ge=0, le=100)]
    ratio: float = Field(gt=0, lt=1)
    maybe: Cat | None
    tags: set[str]
    short: str = Field(min_length=5, max_length=8)
    website: str = Field(json_schema_extra={'format': 'uri'})
    numbers: list[float] = Field(min_length=2, max_length=3)
    flag: bool = False
    anything: object
    level: Literal[1, 2, 3]


PROMPTS = [
    '',
    'hi',
    'order 12345 x 99 units',
    '#777 by sea -3',
    '"a" "b" "c" 2.5 true',
    'é ü 😀 ' * 20,
    'ABC-123 on 2024-05-01 red dog 1e9 http://x.y/z',
    '-5 -6 -7 1000000 0.5',
    'Grace Hopper <grace@navy.mil> +1 202 555 0147, green, not flagged',
]


@pytest.mark.parametrize('prompt', PROMPTS)
@pytest.mark.parametrize('fill_optional', [False, True])
def test_values_validate_against_the_schema(prompt: str, fill_optional: bool) -> None:
    adapter = TypeAdapter(Everything)
    value = ArgumentBuilder(
        PromptFacts.read(prompt), adapter.json_schema(), fill_optional=fill_optional
    ).build()
    adapter.validate_python(value)


def build(model: Any, prompt: str, *, fill_optional: bool = False) -> dict[str, Any]:
    schema = TypeAdapter(model).json_schema()
    return ArgumentBuilder(PromptFacts.read(prompt), schema, fill_optional=fill_optional).build()


def test_values_come_from_the_prompt() -> None:
    value = build(Everything, 'ABC-123 on 2024-05-01, a green dog, see https://example.org/x')
    assert value['code'] == 'ABC-123'
    assert value['when'] == '2024-05-01'
    assert value['colour'] == 'green'
    assert value['pet']['kind'] == 'dog'
    assert value['website'] == 'https://example.org/x'


def test_optional_parameters_only_with_evidence() -> None:
    class Search(BaseModel):
        query: str
        limit: int = 3
        include_archived: bool = False
        sort: Literal['newest', 'oldest'] | None = None

    assert build(Search, 'find "invoices"') == {'query': 'invoices'}
    assert build(Search, 'find "invoices", limit 7, oldest first, include archived') == {
        'query': 'invoices',
        'limit': 7,
        'include_archived': True,
        'sort': 'oldest',
    }
    assert build(Search, 'find invoices without archived ones') == {
        'query': 'invoices without archived ones',
        'include_archived': False,
    }


def test_unique_items_honour_min_items() -> None:
    class Sets(BaseModel):
        words: set[str] = Field(min_length=3)
        numbers: Annotated[list[int], Field(min_length=2, json_schema_extra={'uniqueItems': True})]

    value = build(Sets, 'apples')
    assert TypeAdapter(Sets).validate_python(value).words == {'apples', 'apples 2', 'apples 3'}
    assert len(set(value['numbers'])) == 2


def test_numbers_are_clamped_to_bounds() -> None:
    class Bounded(BaseModel):
        small: int = Field(ge=1, le=5)
        big: float = Field(gt=10)

    assert build(Bounded, 'take 99 and 3') == {'small': 5, 'big': 10.000001}


def test_facts_read_ids_emails_names_numbers() -> None:
    facts = PromptFacts.read(
        'Jane Doe (jane@acme.io) asks about order #4521, A-1001 and INV-2024-003 for 12.5 EUR'
    )
    assert facts.ids == ['A-1001', 'INV-2024-003', '4521']
    assert facts.emails == ['jane@acme.io']
    assert facts.names == ['Jane Doe']
    assert facts.numbers == ['12.5']


@pytest.mark.parametrize(
    ('pattern', 'expected'),
    [
        (r'^[A-Z]{3}-\d{3}$', 'AAA-777'),
        (r'^\d{5}(-\d{4})?$', '77777'),
        (r'^(foo|bar)+$', 'foo'),
        (r'^#[0-9a-fA-F]{6}$', '#000000'),
        (r'^v\d+\.\d+\.\d+$', 'v7.7.7'),
        (r'(?=x)y', None),
    ],
)
def test_pattern_samples(pattern: str, expected: str | None) -> None:
    assert sample_for_pattern(pattern) == expected
