"""Agents that share a name are told apart by the shortest part of their module path that differs;
a unique name is kept as it is (`discovery/labels.py`), on the cards and on each agent's detail. An
agent's suggestions come from its metadata, bounded."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from fixtures.projects import FixtureProject
from synapse_agents.discovery.labels import labels

pytestmark = pytest.mark.any_database(reason='labels are worked out from module paths by discovery')


@dataclass
class Named:
    slug: str
    name: str
    module: str


def test_unique_names_stay_and_shared_names_get_the_shortest_telling_module_tail() -> None:
    agents = [
        Named('weather.agent', 'agent', 'examples.weather'),
        Named('bank.support.agent', 'agent', 'examples.bank.support'),
        Named('shop.support.agent', 'agent', 'examples.shop.support'),
        Named('triage.triage', 'triage', 'examples.triage'),
        Named('two.first', 'twin', 'examples.two'),
        Named('two.second', 'twin', 'examples.two'),
    ]
    assert labels(agents) == {
        'weather.agent': 'agent · weather',
        'bank.support.agent': 'agent · bank.support',
        'shop.support.agent': 'agent · shop.support',
        'triage.triage': 'triage',
        'two.first': 'twin · first',
        'two.second': 'twin · second',
    }


def test_cards_and_details_carry_the_label(client_for: Callable[..., TestClient], isolated_env: Path) -> None:
    agent = "from pydantic_ai import Agent\nagent = Agent('test')\n"
    project = FixtureProject(isolated_env).write(
        {
            'agents/weather.py': agent,
            'agents/bank.py': agent,
            'agents/solo.py': "from pydantic_ai import Agent\nsolo = Agent('test', name='Solo')\n",
        }
    )
    client = client_for([], project.root)
    cards = {card['slug']: card['label'] for card in client.get('/api/agents').json()['agents']}
    assert cards == {
        'agents.bank.agent': 'agent · bank',
        'agents.solo.solo': 'Solo',
        'agents.weather.agent': 'agent · weather',
    }
    assert client.get('/api/agents/agents.weather.agent').json()['label'] == 'agent · weather'


def test_suggestions_come_from_the_agents_metadata_and_are_bounded() -> None:
    from synapse_agents.discovery.options import MAX_SUGGESTIONS, read_options

    def read(value: object) -> list[str]:
        return read_options({'synapse.suggestions': value}, agent_name='a', deps_type_name=None).suggestions

    given = ['  Where is A-1001?  ', '', 3, 'Use all your tools']
    assert read(given) == ['Where is A-1001?', 'Use all your tools']
    assert read('not a list') == [] and read(None) == []
    assert len(read([f'q{i}' for i in range(20)])) == MAX_SUGGESTIONS
    assert len(read(['x' * 1000])[0]) == 300
