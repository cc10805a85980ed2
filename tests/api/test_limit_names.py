"""A spending limit names an agent or preset that exists: the ledger keys a configured agent's calls
by `config:<key>`, so a limit on the bare key would never apply. Unknown names are a 422 (one line
in the CLI) with the closest matches; real names are accepted."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from typer.testing import CliRunner

from chat_helpers import DEMO
from spend_helpers import ledger_row, seed
from synapse_agents.accounting.cli import limits_app
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.registry.tables import AgentConfig, Preset
from synapse_agents.store import Store

LIMITS = '/api/limits'


@pytest.fixture
def registry(store: Store) -> None:
    """A configured agent `pirate-helper` (slug `config:pirate-helper`) and a preset `fast-cheap`."""
    with store.write() as session:
        session.add(
            AgentConfig(
                key='pirate-helper', name='Pirate helper', instructions='Arr.', preset_key='fast-cheap'
            )
        )
        session.add(Preset(key='fast-cheap', name='Fast and cheap', model='demo'))


def limit(scope: str, scope_id: str) -> dict[str, str]:
    return {'scope': scope, 'scope_id': scope_id, 'period': 'calendar_day', 'amount': '5'}


@pytest.mark.usefixtures('registry')
def test_an_unknown_agent_is_a_422_naming_the_closest(client: TestClient) -> None:
    response = client.post(LIMITS, json=limit('agent', 'pirate-helper'))
    assert response.status_code == 422, response.text
    assert "did you mean 'config:pirate-helper'" in response.json()['error']['message']
    assert client.get(LIMITS).json()['limits'] == []

    response = client.post(LIMITS, json=limit('preset', 'fast-chep'))
    assert response.status_code == 422 and "'fast-cheap'" in response.json()['error']['message']


@pytest.mark.usefixtures('registry')
def test_agents_and_presets_that_exist_are_accepted(client: TestClient, store: Store) -> None:
    seed(store, ledger_row(created=datetime.now(UTC) - timedelta(days=90), agent='named-in-my-app'))
    for scope, scope_id in [
        ('agent', 'config:pirate-helper'),  # a configured agent, as the ledger keys it
        ('agent', DEMO + 'support-agent'),  # a discovered agent
        ('agent', 'named-in-my-app'),  # an agent the ledger has seen (run from a program)
        ('preset', 'fast-cheap'),
    ]:
        response = client.post(LIMITS, json=limit(scope, scope_id))
        assert response.status_code == 201, response.text
    created = client.get(LIMITS).json()['limits'][0]
    changed = client.patch(f'{LIMITS}/{created["id"]}', json={'scope_id': 'pirate-helpr'})
    assert changed.status_code == 422 and 'config:pirate-helper' in changed.json()['error']['message']
    assert client.patch(f'{LIMITS}/{created["id"]}', json={'amount': '9'}).status_code == 200


@pytest.mark.usefixtures('registry')
def test_the_cli_refuses_an_unknown_agent_in_one_line(monkeypatch: pytest.MonkeyPatch, store: Store) -> None:
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
    result = CliRunner().invoke(limits_app, ['set', 'agent', 'pirate-helper', 'calendar_day', '5'])
    assert result.exit_code == 1
    assert result.output.count('\n') == 1 and "did you mean 'config:pirate-helper'" in result.output
    result = CliRunner().invoke(limits_app, ['set', 'agent', 'config:pirate-helper', 'calendar_day', '5'])
    assert result.exit_code == 0 and 'agent config:pirate-helper' in result.output


@pytest.mark.usefixtures('registry')
def test_the_accepted_names_are_the_ones_the_ledger_keys_calls_by(client: TestClient, store: Store) -> None:
    for scope, scope_id in [('agent', 'config:pirate-helper'), ('preset', 'fast-cheap')]:
        assert client.post(LIMITS, json=limit(scope, scope_id)).status_code == 201
    answer = client.post('/api/agents/config:pirate-helper/chat', data={'message': 'Ahoy'})
    assert answer.status_code == 200, answer.text
    with store.read() as session:
        keys = {(row.agent_key, row.preset) for row in session.scalars(select(LlmCall))}
    assert keys == {('config:pirate-helper', 'fast-cheap')}
