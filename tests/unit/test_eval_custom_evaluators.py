"""The pydantic-evals evaluators a project defines are found by discovery and named in datasets like
the built-in ones: checked when a dataset is saved, run by their own class, listed with their
arguments. A name no evaluator has stays a refusal naming the known ones."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from chat_helpers import LOCAL_PEER, LOCAL_URL
from eval_helpers import RECORDER, project, run_to_end
from synapse_agents.errors import EvalInvalid
from synapse_agents.evals import book, runs
from synapse_agents.evals.known import known_evaluators, of_snapshot
from synapse_agents.runtime.root import SynapseRuntime
from synapse_agents.store import Store
from synapse_agents.web.app import create_app

CHECKS = '''
from dataclasses import dataclass

from pydantic_evals.evaluators import EqualsExpected, EvaluationReason, Evaluator, EvaluatorContext


@dataclass
class ShortAnswer(Evaluator):
    """The answer is at most `max_words` words long.

    More about it.
    """

    max_words: int
    strict: bool = False

    def evaluate(self, ctx: EvaluatorContext) -> EvaluationReason:
        words = len(str(ctx.output).split())
        return EvaluationReason(words <= self.max_words, f'{words} words, at most {self.max_words}')


@dataclass
class Contains(Evaluator):  # pydantic-evals has one of this name: left out
    def evaluate(self, ctx: EvaluatorContext) -> bool:
        return True


class NotADataclass(Evaluator):
    def evaluate(self, ctx: EvaluatorContext) -> bool:
        return True
'''
"""A module of evaluators: it mentions no agent, and a folder scan imports it all the same."""

SHORT = [
    {'name': 'short', 'inputs': {'message': 'Hi'}, 'evaluators': [{'ShortAnswer': {'max_words': 5}}]},
    {
        'name': 'long',
        'inputs': {'message': 'Tell me everything about the order'},
        'evaluators': [{'ShortAnswer': {'max_words': 5}}],
    },
]


def test_discovery_finds_the_evaluators_a_project_defines(context: SynapseRuntime) -> None:
    files = {'{package}/agents.py': RECORDER, '{package}/checks.py': CHECKS}
    with project(context, files) as (package, _agents):
        assert context.catalog is not None
        found = context.catalog.scan().evaluators
        assert [(e.name, e.module, e.attribute) for e in found] == [
            ('ShortAnswer', f'{package}.checks', 'ShortAnswer'),
            ('Contains', f'{package}.checks', 'Contains'),
            ('NotADataclass', f'{package}.checks', 'NotADataclass'),
        ], 'the imported EqualsExpected and Evaluator are not its own'
        known = of_snapshot(context.catalog.scan())
    assert [cls.__name__ for cls in known.types][-1] == 'ShortAnswer'
    project_entries = {e.name: e for e in known.listing if e.source == 'project'}
    short = project_entries['ShortAnswer']
    assert short.problem is None and short.description == 'The answer is at most `max_words` words long.'
    assert short.arguments == [
        {'name': 'max_words', 'type': 'int', 'required': True},
        {'name': 'strict', 'type': 'bool', 'required': False, 'default': False},
    ]
    assert 'exists already' in (project_entries['Contains'].problem or '')
    assert 'not a dataclass' in (project_entries['NotADataclass'].problem or '')
    built_in = [(e.name, e.source) for e in known.listing if e.source != 'project']
    assert ('EqualsExpected', 'pydantic-evals') in built_in and ('ToolCalled', 'synapse') in built_in
    assert ('LLMJudge', 'synapse') in built_in and ('LLMJudge', 'pydantic-evals') not in built_in


def test_a_dataset_names_a_project_evaluator_and_the_run_uses_its_class(
    context: SynapseRuntime, store: Store
) -> None:
    with pytest.raises(EvalInvalid, match=r"unknown evaluator 'ShortAnswer'; the known ones: .*ToolCalled"):
        book.create(store, 'short', 'Short', cases=SHORT)
    files = {'{package}/agents.py': RECORDER, '{package}/checks.py': CHECKS}
    with project(context, files) as (package, _agents):
        types = of_snapshot(context.catalog.scan() if context.catalog else None).types
        book.create(store, 'short', 'Short', cases=SHORT, types=types)
        run = run_to_end(context, runs.create_run(store, 'short', f'{package}.agents.recorder').id)
    assert (run.status, run.passed, run.failed, run.errored) == ('succeeded', 1, 1, 0)
    by_name = {row.case_name: row for row in runs.results(store, run.id)}
    assert by_name['short'].assertions['ShortAnswer'] == {'value': True, 'reason': '3 words, at most 5'}
    assert by_name['long'].assertions['ShortAnswer'] == {'value': False, 'reason': '8 words, at most 5'}


def test_the_api_lists_and_checks_with_the_projects_evaluators(context: SynapseRuntime) -> None:
    files = {'{package}/agents.py': RECORDER, '{package}/checks.py': CHECKS}
    with (
        project(context, files),
        TestClient(create_app(context), base_url=LOCAL_URL, client=LOCAL_PEER) as client,
    ):
        listed = client.get('/api/evals/evaluators').json()['evaluators']
        names = [(e['name'], e['source'], e['problem'] is None) for e in listed]
        assert ('ShortAnswer', 'project', True) in names and ('Contains', 'project', False) in names
        assert names.index(('Equals', 'pydantic-evals', True)) < names.index(('ShortAnswer', 'project', True))
        created = client.post('/api/evals/datasets', json={'key': 'short', 'name': 'Short', 'cases': SHORT})
        assert created.status_code == 201, created.text
        unknown = client.post(
            '/api/evals/datasets',
            json={'key': 'other', 'name': 'Other', 'cases': [{**SHORT[0], 'evaluators': ['LongAnswer']}]},
        )
        assert unknown.status_code == 422
        message = unknown.json()['error']['fields'][0]['message']
        assert "unknown evaluator 'LongAnswer'" in message and 'ShortAnswer' in message, message


def test_without_a_project_only_the_built_in_evaluators_are_known() -> None:
    known = known_evaluators()
    assert {e.source for e in known.listing} == {'pydantic-evals', 'synapse'}
    assert [cls.__name__ for cls in known.types] == ['ToolCalled', 'MaxCost', 'MatchesSchema', 'LLMJudge']
