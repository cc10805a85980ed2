"""`/api/conversations/{id}/privacy`: a conversation's redaction status and its opt-out, on every
selected database; 404 for no such conversation, 422 for a body that is not `{anonymize_pii: bool}`."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from chat_helpers import LOCAL_PEER, LOCAL_URL, decode
from synapse_agents.privacy import vault_store
from synapse_agents.privacy.vault import Vault
from synapse_agents.runtime.root import SynapseRuntime
from synapse_agents.store import Store
from synapse_agents.web.app import create_app

SUPPORT = 'synapse_agents.demo.agents.support-agent'
MISSING = '01a243f6-3a54-7635-a341-50f3dd83fdb2'


@pytest.fixture
def client(context: SynapseRuntime) -> Iterator[TestClient]:
    with TestClient(create_app(context), base_url=LOCAL_URL, client=LOCAL_PEER) as client:
        yield client


def conversation(client: TestClient) -> str:
    chunks = decode(client.post(f'/api/agents/{SUPPORT}/chat', data={'message': 'Hello'}).text)
    assert not [c for c in chunks if c.get('type') == 'error'], chunks
    (row,) = client.get('/api/conversations').json()['conversations']
    return str(row['id'])


def test_the_status_follows_the_setting_and_the_opt_out(
    client: TestClient, context: SynapseRuntime, store: Store
) -> None:
    conversation_id = conversation(client)
    url = f'/api/conversations/{conversation_id}/privacy'
    assert client.get(url).json() == {
        'enabled': False,
        'anonymize_pii': True,
        'redacting': False,
        'placeholders': 0,
    }
    context.settings.privacy_enabled = True
    assert client.get(url).json()['redacting'] is True

    opted_out = client.put(url, json={'anonymize_pii': False})
    assert opted_out.status_code == 200, opted_out.text
    assert opted_out.json() == {
        'enabled': True,
        'anonymize_pii': False,
        'redacting': False,
        'placeholders': 0,
    }
    assert vault_store.anonymize_pii(store, conversation_id) is False
    assert client.put(url, json={'anonymize_pii': True}).json()['redacting'] is True


def test_bad_input_is_a_4xx_and_changes_nothing(client: TestClient, store: Store) -> None:
    conversation_id = conversation(client)
    url = f'/api/conversations/{conversation_id}/privacy'
    assert client.get(f'/api/conversations/{MISSING}/privacy').status_code == 404
    assert (
        client.put(f'/api/conversations/{MISSING}/privacy', json={'anonymize_pii': False}).status_code == 404
    )
    assert client.get('/api/conversations/not-an-id/privacy').status_code == 404
    for body in ({}, {'anonymize_pii': 'no'}, {'anonymize_pii': False, 'extra': 1}, [False]):
        refused = client.put(url, json=body)
        assert refused.status_code == 422, (body, refused.text)
    assert vault_store.anonymize_pii(store, conversation_id) is True


def test_a_viewer_reveals_the_values_behind_the_placeholders(
    client: TestClient, context: SynapseRuntime, store: Store
) -> None:
    conversation_id = conversation(client)
    vault = Vault()
    email = vault.placeholder('ada@example.com', 'EMAIL_ADDRESS')
    phone = vault.placeholder('+34 612 345 678', 'PHONE_NUMBER')
    vault_store.save(store, vault_store.box_for(context.settings), conversation_id, None, vault)
    status = client.get(f'/api/conversations/{conversation_id}/privacy').json()
    assert status['placeholders'] == 2 and 'ada@example.com' not in json.dumps(status)
    revealed = client.get(f'/api/conversations/{conversation_id}/privacy/values')
    assert revealed.status_code == 200, revealed.text
    assert revealed.json()['values'] == [
        {'placeholder': email, 'entity': 'EMAIL_ADDRESS', 'value': 'ada@example.com'},
        {'placeholder': phone, 'entity': 'PHONE_NUMBER', 'value': '+34 612 345 678'},
    ]
    # Another key cannot open the vault: a 409 that says so, never a wrong answer.
    context.settings.secret_key = SecretStr('x' * 64)
    refused = client.get(f'/api/conversations/{conversation_id}/privacy/values')
    assert refused.status_code == 409 and 'cannot be' in refused.json()['error']['message'], refused.text
    assert client.get(f'/api/conversations/{MISSING}/privacy/values').status_code == 404
