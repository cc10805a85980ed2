"""Registry-managed settings over HTTP, and the code that uses them reading the stored value first."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient

from chat_helpers import seed_conversation
from synapse_agents.registry import settings_store
from synapse_agents.runtime.maintenance import PRUNE_JOB
from synapse_agents.runtime.root import SynapseRuntime
from synapse_agents.settings import LoadedSettings, load_settings
from synapse_agents.store import Store


def by_name(client: TestClient) -> dict[str, dict[str, Any]]:
    return {row['name']: row for row in client.get('/api/registry/settings').json()['settings']}


def test_the_listing_names_each_managed_setting_with_its_source(
    monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    from chat_helpers import LOCAL_PEER, LOCAL_URL
    from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
    from synapse_agents.web.app import create_app

    monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
    monkeypatch.setenv('SYNAPSE_CHUNK_SIZE', '500')
    context = SynapseContext(loaded=load_settings(), store=store)
    with TestClient(create_app(context), base_url=LOCAL_URL, client=LOCAL_PEER) as client:
        rows = by_name(client)
        assert list(rows) == ['retention_days', 'language', 'chunk_size', 'chunk_overlap', 'vector_store']
        assert rows['chunk_size'] == {
            'name': 'chunk_size',
            'value': 500,
            'source': 'env',
            'stored': None,
            'help': 'Characters per chunk when documents are split for retrieval.',
        }
        assert rows['retention_days']['source'] == 'default' and rows['retention_days']['value'] == 30

        stored = client.put('/api/registry/settings/chunk_size', json={'value': 800})
        assert stored.status_code == 200
        assert stored.json() | {'help': ''} == {
            'name': 'chunk_size',
            'value': 800,
            'source': 'registry',
            'stored': 800,
            'help': '',
        }
        assert by_name(client)['chunk_size']['source'] == 'registry', (
            'the stored value wins over the environment'
        )
        removed = client.delete('/api/registry/settings/chunk_size').json()
        assert removed['source'] == 'env' and removed['value'] == 500 and removed['stored'] is None
        assert client.delete('/api/registry/settings/chunk_size').status_code == 200, 'nothing stored: fine'


@pytest.mark.parametrize(
    ('name', 'value'),
    [
        ('retention_days', 0),
        ('retention_days', 'many'),
        ('retention_days', True),
        ('retention_days', 1.5),
        ('chunk_size', -1),
        ('chunk_overlap', 1000),  # not smaller than the chunk size (1000)
        ('vector_store', 'faiss'),
        ('language', 'not a tag'),
        ('language', 5),
    ],
)
def test_values_are_validated_as_the_setting_type(client: TestClient, name: str, value: Any) -> None:
    response = client.put(f'/api/registry/settings/{name}', json={'value': value})
    assert response.status_code == 422, response.text
    assert response.json()['error']['fields'][0]['location'] == 'body.value'
    assert by_name(client)[name]['stored'] is None


def test_accepted_values_and_unknown_names(client: TestClient) -> None:
    assert client.put('/api/registry/settings/retention_days', json={'value': '14'}).json()['value'] == 14
    assert client.put('/api/registry/settings/language', json={'value': 'pt-BR'}).json()['value'] == 'pt-BR'
    assert client.put('/api/registry/settings/vector_store', json={'value': 'pgvector'}).status_code == 200
    client.put('/api/registry/settings/chunk_size', json={'value': 300})
    too_big = client.put('/api/registry/settings/chunk_overlap', json={'value': 300})
    assert too_big.status_code == 422 and 'chunk_size (300)' in too_big.json()['error']['message']
    assert client.put('/api/registry/settings/port', json={'value': 1}).status_code == 422
    assert client.put('/api/registry/settings/retention_days', json={'wrong': 1}).status_code == 422


def test_the_effective_settings_take_the_stored_value(settings: LoadedSettings, store: Store) -> None:
    assert settings_store.effective(store, settings.settings).retention_days == 30
    settings_store.put(store, settings, 'retention_days', 3)
    effective = settings_store.effective(store, settings.settings)
    assert effective.retention_days == 3 and settings.settings.retention_days == 30, 'a copy'


def test_the_daily_auto_prune_uses_the_stored_retention(settings: LoadedSettings, store: Store) -> None:
    recent = seed_conversation(store, updated=datetime.now(UTC) - timedelta(days=5))
    settings.settings.auto_prune = True
    settings_store.put(store, settings, 'retention_days', 2)
    runtime = SynapseRuntime(loaded=settings, store=store, maintenance=True)

    async def main() -> None:
        async with runtime.running():
            for _ in range(200):
                if runtime.jobs.runs.get(PRUNE_JOB):
                    break
                await asyncio.sleep(0.01)

    anyio.run(main)
    assert runtime.jobs.runs[PRUNE_JOB] >= 1
    assert store.counts()['conversations'] == 0, f'{recent} is older than the stored 2 days'
