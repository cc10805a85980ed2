"""`synapse workflows` through Typer's runner, on every selected database: list, show, validate a
file, run a workflow here on the demo agents, list runs and show one; one-line refusals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from synapse_agents.cli import command_line
from synapse_agents.store import Store
from synapse_agents.workflows import book, runs

runner = CliRunner()
DEFINITION: dict[str, Any] = {
    'steps': [
        {'name': 'triage', 'agent_name': 'structured_agent', 'input_mapping': {'message': '$.input'}},
        {
            'name': 'summary',
            'agent_name': 'summariser',
            'input_mapping': {'message': '$.steps.triage.output.summary'},
        },
    ],
    'outputs': {'category': '$.steps.triage.output.category', 'summary': '$.steps.summary.output.answer'},
}


def invoke(*args: str) -> Result:
    result = runner.invoke(command_line(), list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def ok(*args: str) -> str:
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch, store: Store) -> None:
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
    monkeypatch.setenv('COLUMNS', '200')


def test_list_show_validate_run_and_runs(store: Store, tmp_path: Path) -> None:
    book.create(store, 'triage', 'Triage', DEFINITION)
    book.create(store, 'trial', 'Trial', DEFINITION, is_sandbox=True)
    assert [w['key'] for w in json.loads(ok('workflows', 'list', '--json'))] == ['triage']
    assert [w['key'] for w in json.loads(ok('workflows', 'list', '--sandbox', '--json'))] == [
        'triage',
        'trial',
    ]
    shown = json.loads(ok('workflows', 'show', 'triage'))
    assert (shown['version'], shown['definition']) == (1, DEFINITION)

    good = tmp_path / 'good.json'
    good.write_text(json.dumps(DEFINITION))
    assert ok('workflows', 'validate', str(good), '--demo').strip() == f'{good}: valid, 2 steps.'
    bad = tmp_path / 'bad.json'
    bad.write_text(
        json.dumps({'steps': [{'name': 's', 'agent_name': 'summariser', 'input_mapping': {'x': '$.nope'}}]})
    )
    refused = invoke('workflows', 'validate', str(bad), '--demo')
    assert refused.exit_code == 1 and 'definition.steps.0.input_mapping.x' in refused.stderr
    assert ok('workflows', 'validate', 'triage', '--demo').strip() == 'triage: valid, 2 steps.'

    detail = json.loads(
        ok('workflows', 'run', 'triage', '--input', '"Where is order A-1001?"', '--demo', '--json')
    )
    assert detail['status'] == 'completed', detail['error']
    assert [s['status'] for s in detail['steps']] == ['completed', 'completed']
    assert (
        set(detail['output']) == {'category', 'summary'}
        and detail['steps'][0]['message'] == 'Where is order A-1001?'
    )
    listed = json.loads(ok('workflows', 'runs', '--workflow', 'triage', '--json'))
    assert [r['id'] for r in listed] == [detail['id']]
    table = ok('workflows', 'runs', detail['id'])
    assert 'completed' in table and 'summary' in table
    assert runs.get_run(store, detail['id']).status == 'completed'


def test_a_failing_run_exits_1_and_refusals_are_one_line(store: Store) -> None:
    book.create(
        store,
        'broken',
        'Broken',
        {'steps': [{'name': 's', 'agent_name': 'summariser', 'input_mapping': {'message': '$.input.gone'}}]},
    )
    result = invoke('workflows', 'run', 'broken', '--input', '{}', '--demo')
    assert result.exit_code == 1 and "Step 's' (1 of 1) failed" in result.stdout
    missing = invoke('workflows', 'show', 'nope')
    assert missing.exit_code == 1 and missing.stderr.strip() == "Error: No workflow 'nope'."
    bad_input = invoke('workflows', 'run', 'broken', '--input', '{not json', '--demo')
    assert bad_input.exit_code == 1 and bad_input.stderr.startswith('Error: input: ')
