"""Eval datasets in the store and in files: two changes made at once on one version cannot both land,
a file round trip loses nothing, and Synapse's evaluators judge what a run did."""

from __future__ import annotations

import threading
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic_evals.evaluators import EvaluatorContext

from synapse_agents.errors import EvalConflict
from synapse_agents.evals import book
from synapse_agents.evals.cases import checked, file_text, parse_file
from synapse_agents.evals.evaluators import COST, TOOL_CALLS, MatchesSchema, MaxCost, ToolCalled
from synapse_agents.store import Store


def case(name: str, message: str = 'hello') -> dict[str, Any]:
    return {'name': name, 'inputs': {'message': message}, 'evaluators': [{'Contains': 'x'}]}


def test_two_changes_on_one_version_one_lands_the_other_is_refused(store: Store) -> None:
    book.create(store, 'race', 'Race', cases=[case('a')])
    barrier = threading.Barrier(2)
    outcomes: list[object] = []

    def add(name: str) -> None:
        current = book.read(store, 'race')
        barrier.wait()
        try:
            outcomes.append(
                book.change_with_cases(store, current, [*current.cases, case(name)], 'case added')
            )
        except EvalConflict as conflict:
            outcomes.append(conflict)

    threads = [threading.Thread(target=add, args=(name,)) for name in ('b', 'c')]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    landed = [o for o in outcomes if isinstance(o, book.DatasetVersion)]
    refused = [o for o in outcomes if isinstance(o, EvalConflict)]
    assert len(landed) == 1 and len(refused) == 1
    now = book.read(store, 'race')
    assert now.version == 2 and [c['name'] for c in now.cases] == ['a', landed[0].cases[-1]['name']]
    assert [v.version for v in book.versions(store, 'race')] == [2, 1]


texts = st.text(st.characters(codec='utf-8', exclude_characters='\x00'), min_size=1, max_size=30)
evaluators = st.lists(
    st.one_of(
        st.builds(lambda t: {'Contains': t}, texts),
        st.builds(lambda t: {'ToolCalled': t}, texts),
        st.builds(lambda n, a: {'ToolCalled': {'tool': n, 'arguments': {'id': a}}}, texts, st.integers()),
        st.builds(lambda d: {'MaxCost': str(d)}, st.decimals(min_value=0, max_value=100, places=4)),
        st.just('EqualsExpected'),
        st.builds(lambda s: {'MaxDuration': s}, st.floats(min_value=0.1, max_value=100)),
    ),
    max_size=4,
)
cases = st.lists(
    st.builds(
        lambda m, out, ev: {'inputs': {'message': m}, 'expected_output': out, 'evaluators': ev},
        texts.filter(lambda t: t.strip() != ''),
        st.one_of(st.none(), texts, st.integers(), st.dictionaries(texts, texts, max_size=3)),
        evaluators,
    ),
    max_size=5,
).map(lambda cs: [{'name': f'case {i}', **c} for i, c in enumerate(cs)])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases=cases)
def test_a_dataset_file_reads_back_as_it_was_written(cases: list[dict[str, Any]]) -> None:
    first = checked(cases)
    for fmt in ('json', 'yaml'):
        raw = parse_file(file_text(first.cases, first.evaluators, fmt), fmt)
        again = checked(raw['cases'], raw.get('evaluators'))
        assert again == first


def context(output: object = None, **attributes: Any) -> EvaluatorContext[object, object, object]:
    return EvaluatorContext(
        name='c',
        inputs={},
        metadata=None,
        expected_output=None,
        output=output,
        duration=0.1,
        _span_tree=None,  # type: ignore[arg-type]
        attributes=attributes,
        metrics={},
    )


@pytest.mark.parametrize(
    ('evaluator', 'calls', 'passed'),
    [
        (ToolCalled('lookup'), [{'name': 'lookup', 'arguments': {'id': 7}}], True),
        (ToolCalled('lookup'), [{'name': 'other', 'arguments': {}}], False),
        (ToolCalled('lookup', {'id': 7}), [{'name': 'lookup', 'arguments': {'id': 7, 'full': True}}], True),
        (ToolCalled('lookup', {'id': 7}), [{'name': 'lookup', 'arguments': {'id': 8}}], False),
        (
            ToolCalled('lookup', {'q': {'a': 1}}),
            [{'name': 'lookup', 'arguments': {'q': {'a': 1, 'b': 2}}}],
            True,
        ),
        (ToolCalled('lookup'), [], False),
    ],
)
def test_tool_called(evaluator: ToolCalled, calls: list[dict[str, Any]], passed: bool) -> None:
    result = evaluator.evaluate(context(**{TOOL_CALLS: calls}))
    assert result.value is passed and result.reason


def test_max_cost_and_matches_schema() -> None:
    assert MaxCost('0.01').evaluate(context(**{COST: str(Decimal('0.009'))})).value is True
    assert MaxCost(0.01).evaluate(context(**{COST: '0.0101'})).value is False
    unknown = MaxCost(1).evaluate(context(**{COST: None}))
    assert unknown.value is False and 'not known' in (unknown.reason or '')
    schema = {'type': 'object', 'required': ['total'], 'properties': {'total': {'type': 'number'}}}
    assert MatchesSchema(schema).evaluate(context({'total': 3})).value is True
    wrong = MatchesSchema(schema).evaluate(context({'total': 'three'}))
    assert wrong.value is False and wrong.reason and wrong.reason.startswith('total:')
