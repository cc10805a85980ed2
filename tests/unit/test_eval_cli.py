"""`synapse eval` through Typer's runner, on every selected database: datasets, show, add-case (by
hand and from a stored turn), import and export, and one-line refusals that change nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from fixtures.projects import isolated_imports, write_files
from synapse_agents.cli import command_line
from synapse_agents.conversations.tables import Conversation, Message
from synapse_agents.evals import book
from synapse_agents.registry import presets_store
from synapse_agents.store import Store

runner = CliRunner()
DATASET = 'cases:\n- name: greeting\n  inputs:\n    message: hello\n  evaluators:\n  - Contains: hi\n'


def invoke(*args: str) -> Result:
    result = runner.invoke(command_line(), list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def ok(*args: str) -> str:
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return result.stdout


def refused(args: tuple[str, ...], expected: str) -> None:
    result = invoke(*args)
    assert result.exit_code == 1, result.output
    assert result.stdout == '' and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith('Error: ') and expected in result.stderr, result.stderr


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch, store: Store) -> None:
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
    monkeypatch.setenv('COLUMNS', '200')


def shown(key: str) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(ok('eval', 'show', key, '--json'))
    return body


def test_import_add_show_list_and_export(tmp_path: Path) -> None:
    source = tmp_path / 'greetings.yaml'
    source.write_text(DATASET)
    assert 'version 1, 1 cases imported' in ok('eval', 'import', str(source), '--key', 'greetings')
    added = json.loads(
        ok(
            'eval',
            'add-case',
            'greetings',
            '--message',
            'Where is order A-1001?',
            '--expected',
            'soon',
            '--evaluator',
            '{"ToolCalled": "lookup_order"}',
            '--evaluator',
            'EqualsExpected',
            '--json',
        )
    )
    assert added['version'] == 2 and added['change'] == 'case added'
    assert added['cases'][1] == {
        'name': 'Where is order A-1001?',
        'inputs': {'message': 'Where is order A-1001?'},
        'expected_output': 'soon',
        'evaluators': [{'ToolCalled': 'lookup_order'}, 'EqualsExpected'],
    }
    table = ok('eval', 'show', 'greetings')
    assert 'version 2 of 2' in table and 'ToolCalled, EqualsExpected' in table
    assert 'greeting' in ok('eval', 'show', 'greetings', '--version', '1')
    listed = json.loads(ok('eval', 'datasets', '--json'))['datasets']
    assert [(d['key'], d['version'], d['case_count']) for d in listed] == [('greetings', 2, 2)]

    out = tmp_path / 'out.json'
    ok('eval', 'export', 'greetings', '--format', 'json', '-o', str(out))
    assert [c['name'] for c in json.loads(out.read_text())['cases']] == ['greeting', 'Where is order A-1001?']
    refused(('eval', 'export', 'greetings', '-o', str(out)), 'already exists')
    assert ok('eval', 'export', 'greetings', '--version', '1') == DATASET


def test_a_stored_turn_becomes_a_case(store: Store) -> None:
    book.create(store, 'saved', 'Saved', cases=[])
    with store.write() as session:
        conversation = Conversation(agent_key='demo.agent', tenant_type='org', tenant_id='acme', title='t')
        session.add(conversation)
        session.flush()
        question = Message(conversation_id=conversation.id, role='user', content='Refund order 7?')
        session.add(question)
        session.flush()
        session.add(
            Message(conversation_id=conversation.id, role='assistant', content='Refunded.', run_id=None)
        )
        session.flush()
        question_id, conversation_id = question.id, conversation.id
    ok('eval', 'add-case', 'saved', '--from-message', question_id)
    (case,) = shown('saved')['cases']
    assert case['inputs'] == {'message': 'Refund order 7?'} and case['expected_output'] == 'Refunded.'
    assert case['metadata']['source'] == {
        'conversation_id': conversation_id,
        'message_id': question_id,
        'agent_key': 'demo.agent',
        'tenant': 'org:acme',
    }


def test_refusals_are_one_line_and_change_nothing(tmp_path: Path) -> None:
    refused(('eval', 'show', 'nope'), "No eval dataset 'nope'")
    bad = tmp_path / 'bad.yaml'
    bad.write_text('cases:\n- name: x\n  inputs: {}\n')
    refused(('eval', 'import', str(bad), '--key', 'k'), 'cases.0.inputs.message')
    refused(('eval', 'import', str(tmp_path / 'missing.yaml'), '--key', 'k'), 'cannot be read')
    refused(('eval', 'import', str(bad), '--key', 'Not A Key'), 'key:')
    good = tmp_path / 'good.yaml'
    good.write_text(DATASET)
    ok('eval', 'import', str(good), '--key', 'k')
    refused(('eval', 'add-case', 'k', '--message', 'x', '--evaluator', '{"Python": "1"}'), 'not accepted')
    refused(('eval', 'add-case', 'k', '--message', 'x', '--evaluator', '[1]'), '--evaluator 1')
    refused(('eval', 'add-case', 'k'), '--message or --from-message')
    refused(
        ('eval', 'add-case', 'k', '--message', 'x', '--name', 'greeting'), "two cases are named 'greeting'"
    )
    refused(('eval', 'export', 'k', '--format', 'xml'), '--format')
    assert shown('k')['version'] == 1 and len(shown('k')['cases']) == 1


SUPPORT = 'synapse_agents.demo.agents.support-agent'
SHORT_ANSWER = """
from dataclasses import dataclass

from pydantic_evals.evaluators import Evaluator, EvaluatorContext


@dataclass
class ShortAnswer(Evaluator):
    max_words: int

    def evaluate(self, ctx: EvaluatorContext) -> bool:
        return len(str(ctx.output).split()) <= self.max_words
"""
"""A project module defining an evaluator (and no agent)."""

ORDER_CASES = (
    'cases:\n- name: order\n  inputs:\n    message: Where is order A-1001?\n  evaluators:\n'
    '  - Contains: A-1001\n  - ToolCalled: lookup_order\n'
)


def test_run_gates_on_a_baseline_and_a_pass_rate(tmp_path: Path) -> None:
    source = tmp_path / 'orders.yaml'
    source.write_text(ORDER_CASES)
    ok('eval', 'import', str(source), '--key', 'orders')
    baseline = json.loads(ok('eval', 'run', 'orders', '--agent', SUPPORT, '--demo', '--json'))
    assert (
        baseline['status'] == 'succeeded' and baseline['pass_rate'] == 1.0 and baseline['regressions'] == []
    )
    assert baseline['cases'][0]['conversation_id']
    table = ok(
        'eval',
        'run',
        'orders',
        '--agent',
        SUPPORT,
        '--demo',
        '--baseline',
        baseline['id'],
        '--min-pass-rate',
        '1',
    )
    assert 'succeeded, 100% passed' in table and '│ pass' in table

    # pydantic-ai's TestModel calls lookup_order with made-up arguments: the case fails now. The
    # table is printed, and the gate's verdict is one line on standard error.
    gated = invoke(
        'eval', 'run', 'orders', '--agent', SUPPORT, '--demo', '--model', 'test', '--baseline', baseline['id']
    )
    assert gated.exit_code == 1 and 'succeeded, 0% passed' in gated.stdout and '│ error' in gated.stdout
    gated_id = gated.stdout.split('Eval run ', 1)[1].split()[0]
    assert gated.stderr.strip() == (
        f'Error: 1 case(s) passed in {baseline["id"]} and fail in {gated_id} (test): order'
    )
    result = invoke(
        'eval', 'run', 'orders', '--agent', SUPPORT, '--demo', '--model', 'test', '--min-pass-rate', '0.5'
    )
    assert result.exit_code == 1 and 'pass rate 0% of ' in result.stderr and 'is below 50%' in result.stderr
    compared = json.loads(
        ok(
            'eval',
            'compare',
            baseline['id'],
            json.loads(
                ok('eval', 'run', 'orders', '--agent', SUPPORT, '--demo', '--model', 'test', '--json')
            )['id'],
            '--json',
        )
    )
    assert compared == [{'case': 'order', 'change': 'regressed'}]
    refused(
        (
            'eval',
            'run',
            'orders',
            '--agent',
            SUPPORT,
            '--demo',
            '--baseline',
            '01a243f6-3a54-7635-a341-50f3dd83fdb2',
        ),
        'No eval run',
    )
    refused(('eval', 'run', 'nope', '--agent', SUPPORT, '--demo'), "No eval dataset 'nope'")


def test_several_models_run_side_by_side_and_each_is_gated(tmp_path: Path) -> None:
    source = tmp_path / 'orders.yaml'
    source.write_text(ORDER_CASES)
    ok('eval', 'import', str(source), '--key', 'orders')
    result = invoke(
        'eval',
        'run',
        'orders',
        '--agent',
        SUPPORT,
        '--demo',
        '--model',
        'demo',
        '--model',
        'test',
        '--label',
        'pr-7',
        '--min-pass-rate',
        '1',
        '--json',
    )
    body = json.loads(result.stdout)
    demo, test = body['runs']
    assert (demo['model'], demo['label'], demo['pass_rate']) == ('demo', 'pr-7 · demo', 1.0)
    assert (test['model'], test['label'], test['pass_rate']) == ('test', 'pr-7 · test', 0.0)
    assert demo['dataset_version'] == test['dataset_version'] == 1
    # Only the run below the bar is named, on one line.
    assert result.exit_code == 1, result.output
    assert result.stderr.strip() == f'Error: pass rate 0% of {test["id"]} (test) is below 100%'
    refused(
        ('eval', 'run', 'orders', '--agent', SUPPORT, '--demo', '--model', 'test', '--model', 'test'),
        'each model once',
    )


def test_a_run_with_a_preset(tmp_path: Path, store: Store) -> None:
    source = tmp_path / 'orders.yaml'
    source.write_text(ORDER_CASES)
    ok('eval', 'import', str(source), '--key', 'orders')
    presets_store.create(store, {'key': 'quick', 'model': 'test'})
    body = json.loads(
        ok('eval', 'run', 'orders', '--agent', SUPPORT, '--demo', '--preset', 'quick', '--json')
    )
    assert (body['preset'], body['model'], body['status']) == ('quick', None, 'succeeded')
    both = json.loads(
        ok(
            'eval',
            'run',
            'orders',
            '--agent',
            SUPPORT,
            '--demo',
            '--preset',
            'quick',
            '--model',
            'demo',
            '--json',
        )
    )
    assert [(r['model'], r['preset']) for r in both['runs']] == [('demo', None), (None, 'quick')]
    refused(
        ('eval', 'run', 'orders', '--agent', SUPPORT, '--demo', '--preset', 'nope'),
        "No preset with key 'nope'",
    )


def test_import_and_add_case_know_the_projects_evaluators(tmp_path: Path) -> None:
    project = Path.cwd()
    source = tmp_path / 'short.yaml'
    source.write_text(
        'cases:\n- name: short\n  inputs:\n    message: Hi\n  evaluators:\n  - ShortAnswer: 5\n'
    )
    refused(('eval', 'import', str(source), '--key', 'short'), "unknown evaluator 'ShortAnswer'")
    with isolated_imports(project):
        write_files(project, {'checks.py': SHORT_ANSWER})
        ok('eval', 'import', str(source), '--key', 'short')
        ok(
            'eval',
            'add-case',
            'short',
            '--message',
            'Hello',
            '--evaluator',
            '{"ShortAnswer": {"max_words": 2}}',
        )
    assert [c['evaluators'] for c in shown('short')['cases']] == [
        [{'ShortAnswer': 5}],
        [{'ShortAnswer': 2}],
    ]
