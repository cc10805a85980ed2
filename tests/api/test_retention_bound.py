"""`retention_days` is bounded: a value no date can be counted back by is refused with a clear error
wherever it is set (the registry's API, the environment), and the largest accepted value prunes."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from synapse_agents.cli import app as cli_app
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.runtime.maintenance import prune
from synapse_agents.settings import MAX_RETENTION_DAYS
from synapse_agents.store import Store

HUGE = 2**63


@pytest.mark.parametrize('value', [HUGE, MAX_RETENTION_DAYS + 1, str(HUGE)])
def test_a_retention_beyond_the_bound_is_a_422_naming_the_field(client: TestClient, value: object) -> None:
    response = client.put('/api/registry/settings/retention_days', json={'value': value})
    assert response.status_code == 422, response.text
    error = response.json()['error']
    assert error['fields'][0]['location'] == 'body.value'
    assert f'{MAX_RETENTION_DAYS}' in error['message']
    rows = client.get('/api/registry/settings').json()['settings']
    assert next(r for r in rows if r['name'] == 'retention_days')['stored'] is None


def test_the_largest_retention_is_stored_and_prunes(client: TestClient, store: Store) -> None:
    response = client.put('/api/registry/settings/retention_days', json={'value': MAX_RETENTION_DAYS})
    assert response.status_code == 200 and response.json()['value'] == MAX_RETENTION_DAYS
    ConversationRepository(store).create(agent_key='a')
    assert prune(store, MAX_RETENTION_DAYS) == 0 and store.counts()['conversations'] == 1


def test_a_retention_beyond_the_bound_in_the_environment_is_one_line(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv('SYNAPSE_RETENTION_DAYS', str(HUGE))
    result = CliRunner().invoke(cli_app, ['prune', '--yes'])
    assert result.exit_code != 0 and 'Traceback' not in result.output
    assert 'retention_days' in result.output and f'{MAX_RETENTION_DAYS}' in result.output
