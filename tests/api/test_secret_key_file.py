"""Storing an API key on a home with no `secret_key` configured: a key is made in the home, once."""

from __future__ import annotations

import multiprocessing
import stat
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from synapse_agents.encryption import HOW_TO_SET, SecretBox, new_key
from synapse_agents.registry import providers_store
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.secret_key_file import key_path, make_key
from synapse_agents.settings import load_settings
from synapse_agents.store import Store

pytestmark = pytest.mark.any_database(
    reason='the secret key is a file in the home, made before any row is written'
)

API_KEY = 'sk-proj-Zq8vW3xLmN5pR7tY9uB2cD4fG6hJ'


def _create(client: TestClient, key: str = 'p') -> int:
    response = client.post('/api/registry/providers', json={'key': key, 'kind': 'openai', 'api_key': API_KEY})
    return response.status_code


def test_the_first_stored_api_key_makes_a_private_key_in_the_home(
    context: SynapseContext, client: TestClient, store: Store
) -> None:
    path = key_path(context.settings.home)
    assert not path.exists()
    assert _create(client) == 201
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    made = path.read_text().strip()
    assert context.settings.secret_key is not None and context.settings.secret_key.get_secret_value() == made
    # A second app on the same home reads the key back and decrypts what the first stored.
    reloaded = load_settings()
    second = reloaded.settings
    shown = next(value for value in reloaded.values if value.name == 'secret_key')
    assert shown.origin == str(path)
    assert second.secret_key is not None and second.secret_key.get_secret_value() == made
    assert providers_store.secret_of(store, SecretBox.from_setting(second.secret_key), 'p') == API_KEY
    # Storing more does not make another key.
    assert _create(client, 'q') == 201
    assert path.read_text().strip() == made


def test_a_configured_key_wins(context: SynapseContext, client: TestClient, store: Store) -> None:
    configured = new_key()
    context.settings.secret_key = SecretStr(configured)
    assert _create(client) == 201
    assert not key_path(context.settings.home).exists()
    assert providers_store.secret_of(store, SecretBox((configured,)), 'p') == API_KEY


def test_a_configured_key_wins_over_a_made_one(
    context: SynapseContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = make_key(context.settings.home).get_secret_value()
    configured = new_key()
    monkeypatch.setenv('SYNAPSE_SECRET_KEY', configured)
    loaded = load_settings().settings.secret_key
    assert loaded is not None and loaded.get_secret_value() == configured != made


def test_production_never_makes_or_reads_a_key(context: SynapseContext, client: TestClient) -> None:
    make_key(context.settings.home)
    context.settings.env = 'production'
    context.settings.secret_key = None
    response = client.post('/api/registry/providers', json={'key': 'p', 'kind': 'openai', 'api_key': API_KEY})
    assert response.status_code == 422
    error = response.json()['error']
    assert error['code'] == 'no_secret_key'
    assert 'in production Synapse does not make one' in error['message'] and HOW_TO_SET in error['message']
    assert error['fields'][0]['location'] == 'body.api_key'
    assert client.get('/api/registry/providers').json() == {'providers': []}


def test_production_settings_ignore_a_made_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / 'home'
    make_key(home)
    monkeypatch.setenv('SYNAPSE_ENV', 'production')
    assert load_settings().settings.secret_key is None


def _make(home: str, queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    queue.put(make_key(Path(home)).get_secret_value())


def test_processes_making_a_key_at_once_end_with_one(tmp_path: Path) -> None:
    home = tmp_path / 'shared-home'
    spawn = multiprocessing.get_context('spawn')
    queue = spawn.Queue()
    workers = [spawn.Process(target=_make, args=(str(home), queue)) for _ in range(6)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    keys = {queue.get(timeout=5) for _ in workers}
    assert keys == {key_path(home).read_text().strip()}
    assert [path.name for path in home.iterdir()] == ['secret_key']
