"""The workflow definition format: shape and path checks, paths walked through output schemas, paths
resolved on a run's document, a step's message and its output."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

from synapse_agents.errors import WorkflowInvalid
from synapse_agents.workflows.definition import (
    PathMissing,
    check_schemas,
    message_of,
    output_of,
    parse,
    resolve,
)


class Item(BaseModel):
    sku: str
    count: int


class Order(BaseModel):
    id: str
    items: list[Item]
    note: str | None = None


ORDER = Order.model_json_schema()


def problems(raw: Any) -> dict[str, str]:
    with pytest.raises(WorkflowInvalid) as caught:
        parse(raw)
    return dict(caught.value.problems)


def test_the_shape_and_the_names_are_checked() -> None:
    assert problems([]) == {'definition': 'an object with version, steps and outputs'}
    assert set(problems({'steps': []})) == {'definition.steps'}
    found = problems(
        {
            'version': 2,
            'steps': [
                {'name': '1st', 'agent_name': 'a'},
                {'name': 'ok', 'agent_name': '', 'extra': 1},
                {'name': 'ok', 'agent_name': 'b', 'input_mapping': []},
            ],
            'outputs': 'x',
            'more': True,
        }
    )
    assert set(found) == {
        'definition.more',
        'definition.version',
        'definition.steps.0.name',
        'definition.steps.1.extra',
        'definition.steps.1.agent_name',
        'definition.steps.2.name',
        'definition.steps.2.input_mapping',
        'definition.steps.2.output_key',
        'definition.outputs',
    }
    assert found['definition.steps.2.name'] == "step 'ok' is named twice"


def test_a_path_reaches_the_input_or_an_earlier_step_only() -> None:
    found = problems(
        {
            'steps': [
                {
                    'name': 'a',
                    'agent_name': 'x',
                    'input_mapping': {
                        'self': '$.steps.a.output',
                        'nested': {'list': ['$.other', 'plain text']},
                    },
                },
                {
                    'name': 'b',
                    'agent_name': 'x',
                    'input_mapping': {'bad': '$.steps.[', 'ok': '$.steps.a.output.x'},
                },
            ],
            'outputs': {'fine': '$.steps.b.output', 'input': '$.input.anything[*]'},
        }
    )
    assert set(found) == {
        'definition.steps.0.input_mapping.self',
        'definition.steps.0.input_mapping.nested.list.0',
        'definition.steps.1.input_mapping.bad',
    }
    assert 'not a step before this one' in found['definition.steps.0.input_mapping.self']
    assert 'points at nothing' in found['definition.steps.0.input_mapping.nested.list.0']
    assert 'is not a JSONPath expression' in found['definition.steps.1.input_mapping.bad']


def test_step_paths_are_walked_through_the_output_schemas() -> None:
    definition = parse(
        {
            'steps': [
                {'name': 'order', 'agent_name': 'x'},
                {
                    'name': 'text',
                    'agent_name': 'y',
                    'input_mapping': {
                        'sku': '$.steps.order.output.items[0].sku',
                        'every': '$.steps.order.output.items[*].nothing',
                        'note': '$.steps.order.output.note',
                        'wrong': '$.steps.order.output.items[0].colour',
                        'index': '$.steps.order.output.id[0]',
                    },
                },
            ],
            'outputs': {'answer': '$.steps.text.output.answer', 'deeper': '$.steps.text.output.answer.x'},
        }
    )
    found = dict(check_schemas(definition, {'order': ORDER, 'text': {'type': 'string'}}))
    assert set(found) == {
        'definition.steps.1.input_mapping.wrong',
        'definition.steps.1.input_mapping.index',
        'definition.outputs.deeper',
    }, 'a wildcard stops the walk; a nullable field (anyOf) resolves'
    assert (
        "'colour' is not a field of the output (its fields: count, sku)"
        in found['definition.steps.1.input_mapping.wrong']
    )
    assert '[0] indexes a string' in found['definition.steps.1.input_mapping.index']
    assert check_schemas(definition, {'order': None, 'text': None}) == [], 'unknown schemas are not walked'


def test_paths_resolve_on_the_run_document() -> None:
    document = {
        'input': {'q': 'why?'},
        'steps': {'order': {'output': {'items': [{'sku': 'A'}, {'sku': 'B'}]}}},
    }
    mapping = {'one': '$.steps.order.output.items[1].sku', 'all': '$.steps.order.output.items[*].sku', 'n': 3}
    assert resolve(mapping, document, 'm') == {'one': 'B', 'all': ['A', 'B'], 'n': 3}
    assert resolve('$.steps.order.output.items[*].price', document, 'm') == [], 'a wildcard may match nothing'
    with pytest.raises(PathMissing, match=r"m: '\$.input.missing' matched nothing"):
        resolve('$.input.missing', document, 'm')


def test_a_step_message_and_output() -> None:
    raw = {
        'steps': [
            {'name': 'a', 'agent_name': 'x'},
            {'name': 'b', 'agent_name': 'x', 'input_mapping': {'message': '$.input.text'}},
            {'name': 'c', 'agent_name': 'x', 'input_mapping': {'z': 1, 'a': '$.input.text'}},
        ]
    }
    first, second, third = parse(raw).steps
    assert message_of(first, {'input': 'plain'}) == 'plain'
    assert message_of(first, {'input': {'message': 'only'}}) == 'only'
    assert json.loads(message_of(first, {'input': {'message': 'm', 'x': 1}})) == {'message': 'm', 'x': 1}
    assert message_of(second, {'input': {'text': 'hello'}}) == 'hello'
    assert message_of(third, {'input': {'text': 'hello'}}) == '{"a": "hello", "z": 1}', 'keys sorted'
    assert output_of('text') == {'answer': 'text'}
    assert output_of(Item(sku='A', count=2)) == {'sku': 'A', 'count': 2}
    assert output_of([1, 2]) == [1, 2]
    assert parse(raw).steps[0].output_key == 'a', 'output_key defaults to the name'
