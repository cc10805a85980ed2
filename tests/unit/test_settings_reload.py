"""`[tool.synapse]` tables edited while Synapse runs apply on the next request, turn or signal."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from chat_helpers import LOCAL_PEER, LOCAL_URL
from fixtures.projects import FixtureProject, isolated_imports
from synapse_agents import Synapse
from synapse_agents.chat.deps import lifetime_of
from synapse_agents.runtime.root import SynapseRuntime
from synapse_agents.settings import load_settings
from synapse_agents.store import Store
from synapse_agents.targets.target import TurnTarget
from synapse_agents.web.app import create_app

AGENTS = """
from pydantic_ai import Agent


BUILT = []


def make():
    BUILT.append(1)
    return {'made': len(BUILT)}


billing = Agent('test', name='billing', deps_type=dict, metadata={'synapse.deps_factory': make})
"""

PLACERS = """
def first(obj):
    return {'event': 'file.first'}


def second(obj):
    return {'event': 'file.second'}
"""


def pyproject(body: str) -> str:
    return f"""
        [tool.synapse]
        agents = ['app.agents']
        {body}
    """


@pytest.fixture
def project(isolated_env: Path, store: Store, monkeypatch: pytest.MonkeyPatch) -> Iterator[FixtureProject]:
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
    with isolated_imports(isolated_env.parent):
        sys.path.insert(0, str(isolated_env))  # the app's own modules (isolated_imports restores sys.path)
        yield FixtureProject(isolated_env).write(
            {'app/__init__.py': '', 'app/agents.py': AGENTS, 'app/placers.py': PLACERS}
        )


def eur_price_warning(client: TestClient, name: str) -> str | None:
    body = {
        'provider_key': 'openai',
        'name': name,
        'prices': [{'input_per_mtok': '1', 'output_per_mtok': '2', 'currency': 'EUR'}],
    }
    created = client.post('/api/registry/models', json=body)
    assert created.status_code == 201, created.text
    warning: str | None = created.json()['warning']
    return warning


def test_currency_rates_apply_on_the_next_request(project: FixtureProject) -> None:
    project.write({'pyproject.toml': pyproject('')})
    runtime = SynapseRuntime.open(load_settings(cwd=project.root), agents=False)
    with runtime, TestClient(create_app(runtime), base_url=LOCAL_URL, client=LOCAL_PEER) as client:
        assert eur_price_warning(client, 'one') is not None, 'no EUR rate yet'
        project.write({'pyproject.toml': pyproject('currency_rates = { EUR = "1.08" }')})
        assert eur_price_warning(client, 'two') is None
        assert str(runtime.settings.currency_rates['EUR']) == '1.08'


def test_deps_lifetime_applies_on_the_next_turn(project: FixtureProject) -> None:
    project.write({'pyproject.toml': pyproject('deps_lifetime = "turn"')})
    syn = Synapse(settings=load_settings(cwd=project.root))
    try:
        chat = syn.conversation_sync('app.agents.billing')
        chat.send('one')
        chat.send('two')
        built = sys.modules['app.agents'].BUILT
        assert len(built) == 2, 'turn: built for each turn'
        project.write({'pyproject.toml': pyproject('deps_lifetime = "server"')})
        # Like an agent edit, the change reaches the Python API when it looks the agent up again.
        chat = syn.conversation_sync('app.agents.billing')
        chat.send('three')
        chat.send('four')
        assert len(built) == 3, 'server: built once, then kept'
        assert lifetime_of(TurnTarget(agent=None, slug='x', name='x'), syn.runtime.settings) == 'server'
    finally:
        syn.close_sync()


def test_placers_apply_on_the_next_signal(project: FixtureProject) -> None:
    project.write({'pyproject.toml': pyproject('placers = { uploaded = "app.placers:first" }')})
    syn = Synapse(settings=load_settings(cwd=project.root))
    try:
        receive = syn.placer('uploaded')
        first = receive('File')
        assert first is not None and first.event == 'file.first'
        project.write({'pyproject.toml': pyproject('placers = { uploaded = "app.placers:second" }')})
        second = receive('File')
        assert second is not None and second.event == 'file.second'
    finally:
        syn.close_sync()


def test_the_environment_wins_and_a_bad_value_keeps_the_last_one(
    project: FixtureProject, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv('SYNAPSE_DEPS_LIFETIME', 'server')
    project.write({'pyproject.toml': pyproject('currency_rates = { EUR = "1.08" }')})
    with SynapseRuntime.open(load_settings(cwd=project.root), agents=False) as runtime:
        project.write(
            {'pyproject.toml': pyproject('deps_lifetime = "turn"\ncurrency_rates = { EUR = "-1" }')}
        )
        with caplog.at_level(logging.WARNING, logger='synapse.settings'):
            settings = runtime.refresh_settings()
        assert settings.deps_lifetime == 'server', 'SYNAPSE_DEPS_LIFETIME wins, as at start'
        assert str(settings.currency_rates['EUR']) == '1.08', 'the value read last still applies'
        assert 'currency_rates' in caplog.text and 'read last still apply' in caplog.text


def test_a_setting_bound_at_start_logs_that_it_needs_a_restart(
    project: FixtureProject, caplog: pytest.LogCaptureFixture
) -> None:
    project.write({'pyproject.toml': pyproject('port = 8765')})
    with SynapseRuntime.open(load_settings(cwd=project.root), agents=False) as runtime:
        project.write({'pyproject.toml': pyproject('port = 9000')})
        with caplog.at_level(logging.WARNING, logger='synapse.settings'):
            settings = runtime.refresh_settings()
            runtime.refresh_settings()
        assert settings.port == 8765
        [line] = [r.getMessage() for r in caplog.records if 'restart' in r.getMessage()]
        assert line.startswith('port changed in ') and line.endswith('restart Synapse to apply it.')
