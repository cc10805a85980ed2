"""A provider's exhausted plan or credit is its own error kind (`quota_exhausted`), not a rate
limit: not recoverable, no Retry-After, in the stream's error and the stored error card alike."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chat_helpers import agent_catalog, decode
from synapse_agents.errors import SpendingLimitExceeded
from synapse_agents.provider_errors import provider_facts
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext

pytestmark = pytest.mark.any_database(
    reason="a provider error's kind is the classifier's; storing its card is tested elsewhere"
)


@pytest.fixture
def chat(client: TestClient, context: SynapseContext) -> TestClient:
    context.catalog = agent_catalog()
    return client


def error_of(client: TestClient, message: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The stream's error data and the stored error message's details of one failing turn."""
    response = client.post('/api/agents/chat_agents.failing/chat', data={'message': message})
    assert response.status_code == 200, response.text
    chunks = [c for c in decode(response.text) if isinstance(c, dict)]
    [streamed] = [c['data'] for c in chunks if c.get('type') == 'data-error']
    conversation_id = chunks[0]['messageMetadata']['conversation_id']
    thread = client.get(f'/api/conversations/{conversation_id}').json()
    [stored] = [m for m in thread['messages'] if m['role'] == 'error']
    return streamed, stored['details']


@pytest.mark.parametrize(
    'message', ['quota hello', 'credit hello', '402 hello'], ids=['openai-429', 'anthropic-400', '402']
)
def test_an_exhausted_quota_is_not_a_rate_limit(chat: TestClient, message: str) -> None:
    streamed, stored = error_of(chat, message)
    for details in (streamed, stored):
        assert details['recoverable'] is False
        assert details['provider']['kind'] == 'quota_exhausted'
        assert details['provider']['retry_after'] is None


def test_a_passing_rate_limit_stays_one(chat: TestClient) -> None:
    streamed, stored = error_of(chat, '429 hello')
    for details in (streamed, stored):
        assert details['recoverable'] is True
        assert details['provider']['kind'] == 'rate_limited'
        assert details['provider']['retry_after'] == 20.0


def test_a_spending_limit_refusal_says_what_would_let_the_call_through() -> None:
    refused = SpendingLimitExceeded(
        limit_id='l1',
        scope='agent',
        scope_id='config:pirate-helper',
        period='day',
        amount=Decimal('1.00'),
        currency='USD',
        consumed=Decimal('0.70'),
        estimated=Decimal('0.45'),
    )
    facts = provider_facts(RuntimeError('wrapped')) or {}
    assert facts == {}, 'an error that is neither a provider nor a limit has no facts'
    try:
        raise RuntimeError('run failed') from refused
    except RuntimeError as error:
        facts = provider_facts(error) or {}
    assert facts['kind'] == 'spending_limit' and facts['retry_after'] is None
    assert facts['limit'] == {
        'id': 'l1',
        'scope': 'agent',
        'scope_id': 'config:pirate-helper',
        'period': 'day',
        'amount': '1.00',
        'currency': 'USD',
        'consumed': '0.70',
        'reservation': '0.45',
        'headroom': '0.30',
    }
