"""A model object built once without its key marks every agent that uses it, in any module."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chat_helpers import decode
from fixtures.projects import FixtureProject, isolated_imports
from synapse_agents.discovery import Catalog
from synapse_agents.discovery.keys import PLACEHOLDER_PREFIX

pytestmark = pytest.mark.any_database(
    reason="a missing key is found by discovery's checks of the model objects"
)

SHARED = {
    'agents/__init__.py': '',
    'agents/models.py': """
        from pydantic_ai.models.openai import OpenAIChatModel

        model = OpenAIChatModel('gpt-4o')
    """,
    'agents/first.py': """
        from pydantic_ai import Agent

        from agents.models import model

        writer = Agent(model, name='writer')
        editor = Agent(model, name='editor')
    """,
    'agents/second.py': """
        from pydantic_ai import Agent
        from pydantic_ai.models.fallback import FallbackModel
        from pydantic_ai.models.test import TestModel

        from agents.models import model

        reviewer = Agent(model, name='reviewer')
        backup = Agent(FallbackModel(TestModel(), model), name='backup')
        offline = Agent('test', name='offline')
    """,
}
FLAGGED = {'agents.first.writer', 'agents.first.editor', 'agents.second.reviewer', 'agents.second.backup'}


def closed_port() -> int:
    """A local port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        port: int = sock.getsockname()[1]
    return port


def error_cards(client: TestClient, slug: str) -> list[dict[str, Any]]:
    response = client.post(f'/api/agents/{slug}/chat', data={'message': 'hello'})
    assert response.status_code == 200, response.text
    return [chunk['data'] for chunk in decode(response.text) if chunk['type'] == 'data-error']


def test_every_agent_of_a_shared_keyless_model_is_flagged_and_never_calls_the_provider(
    client_for: Callable[..., TestClient], isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Provider clients built from now on send through a proxy that is not there: a call fails at once.
    # (OPENAI_BASE_URL cannot serve here: with it set, pydantic-ai needs no key at all.)
    monkeypatch.setenv('HTTPS_PROXY', f'http://127.0.0.1:{closed_port()}')
    monkeypatch.delenv('NO_PROXY', raising=False)
    monkeypatch.delenv('no_proxy', raising=False)
    project = FixtureProject(isolated_env).write(SHARED)
    client = client_for(['agents'], project.root)
    body = client.get('/api/agents').json()
    assert body['problems'] == []
    cards = {card['slug']: card for card in body['agents']}
    assert set(cards) == FLAGGED | {'agents.second.offline'}
    for slug in FLAGGED:
        assert len(cards[slug]['problems']) == 1, (slug, cards[slug]['problems'])
        [problem] = cards[slug]['problems']
        assert (problem['code'], problem['env_var']) == ('missing_api_key', 'OPENAI_API_KEY'), slug
        assert 'Set OPENAI_API_KEY' in problem['message'], slug
    assert cards['agents.second.offline']['problems'] == []
    for slug in sorted(FLAGGED):
        [card] = error_cards(client, slug)
        assert card['class'] == 'MissingApiKey' and 'OPENAI_API_KEY' in card['message'], (slug, card)
    assert error_cards(client, 'agents.second.offline') == []


def test_the_key_added_to_the_env_file_clears_every_agent_of_the_shared_model(
    isolated_env: Path, tmp_path: Path
) -> None:
    with isolated_imports(tmp_path):
        project = FixtureProject(isolated_env).write(SHARED)
        catalog = Catalog(['agents'], project.root, env_files=[project.root / '.env'])
        first = catalog.scan()
        assert {a.slug for a in first.agents if a.missing_env == 'OPENAI_API_KEY'} == FLAGGED
        project.write({'.env': 'OPENAI_API_KEY=sk-test-not-real\n'})
        second = catalog.scan()
        assert [
            (a.slug, a.missing_env, a.info.problems)
            for a in second.agents
            if a.missing_env or a.info.problems
        ] == []
        reviewer = second.get('agents.second.reviewer')
        assert reviewer is not None and reviewer.agent is not first.get('agents.second.reviewer').agent  # type: ignore[union-attr]
        assert PLACEHOLDER_PREFIX not in repr(vars(reviewer.agent.model.client)['api_key'])  # type: ignore[union-attr]
