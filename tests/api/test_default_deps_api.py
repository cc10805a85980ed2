"""An agent whose deps type builds without arguments chats with no factory configured."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fastapi.testclient import TestClient

from chat_helpers import decode
from fixtures.projects import FixtureProject

AGENTS = """
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import Agent, RunContext


@dataclass
class Settings:
    region: str = 'eu'
    tags: list[str] = field(default_factory=lambda: ['new'])


clerk = Agent('test', name='clerk', deps_type=Settings)


@clerk.tool
def show_deps(ctx: RunContext[Settings]) -> Any:
    return {'type': type(ctx.deps).__name__, 'region': ctx.deps.region, 'tags': ctx.deps.tags}
"""


def test_a_turn_gets_deps_built_from_the_type(
    client_for: Callable[..., TestClient], isolated_env: Path
) -> None:
    project = FixtureProject(isolated_env).write({'shop/__init__.py': '', 'shop/agents.py': AGENTS})
    client = client_for(['shop.agents'], project.root)
    info = client.get('/api/agents/shop.agents.clerk').json()
    assert info['problems'] == []
    assert info['deps'] == {
        'type': 'Settings',
        'factory': 'shop.agents:Settings',
        'required': True,
        'source': 'default',
        'lifetime': None,
    }
    response = client.post('/api/agents/shop.agents.clerk/chat', data={'message': 'hi'})
    assert response.status_code == 200, response.text
    chunks = decode(response.text)
    assert [c for c in chunks if c['type'] in ('error', 'data-error')] == []
    outputs = [c['output'] for c in chunks if c['type'] == 'tool-output-available']
    assert outputs == [{'type': 'Settings', 'region': 'eu', 'tags': ['new']}]
