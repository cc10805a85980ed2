"""Every CLI command through Typer's runner."""

from __future__ import annotations

import json
import re
import tomllib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from synapse_agents import __version__
from synapse_agents.cli import app
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.conversations.tables import Conversation
from synapse_agents.settings import Settings
from synapse_agents.store import Store, current_revision, head_revision

runner = CliRunner()


def invoke(*args: str, input: str | None = None) -> tuple[int, str]:
    result = runner.invoke(app, list(args), input=input)
    return result.exit_code, result.output


def home_store(isolated_env: Path) -> Store:
    settings = Settings(home=isolated_env.parent / 'home')
    return Store.open(settings.resolved_database_url, settings.attachments_dir)


def test_version() -> None:
    assert invoke('--version') == (0, f'synapse {__version__}\n')


def test_help_lists_every_command() -> None:
    code, output = invoke('--help')
    assert code == 0
    for command in ('serve', 'settings', 'db', 'prune', 'clear', 'init'):
        assert command in output


def test_settings_table_and_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('SYNAPSE_PORT', '9999')
    monkeypatch.setenv('SYNAPSE_TOKEN', 'hidden-value')
    code, output = invoke('settings', '--json')
    assert code == 0
    data = json.loads(output)
    assert data['port'] == {'value': 9999, 'source': 'env'}
    assert data['host'] == {'value': '127.0.0.1', 'source': 'default'}
    assert data['token']['value'] == '********'
    code, output = invoke('settings')
    assert code == 0 and 'SYNAPSE_PORT' in output and 'hidden-value' not in output


def test_db_upgrade_and_current(isolated_env: Path) -> None:
    code, output = invoke('db', 'current')
    assert code == 0 and 'revision none' in output and 'run `synapse db upgrade`' in output
    code, output = invoke('db', 'upgrade')
    assert code == 0 and f'upgraded from an empty database to {head_revision()}' in output
    code, output = invoke('db', 'upgrade')
    assert code == 0 and 'already at revision' in output
    code, output = invoke('db', 'current')
    assert code == 0 and 'up to date' in output
    store = home_store(isolated_env)
    assert current_revision(store.engine) == head_revision()
    store.close()


def seed(isolated_env: Path, *, old: int, fresh: int) -> Store:
    invoke('db', 'upgrade')
    store = home_store(isolated_env)
    for index in range(old + fresh):
        conversation = ConversationRepository(store).create(agent_key='a', title=str(index))
        folder = ConversationRepository(store).files_dir(conversation.id)
        folder.mkdir(parents=True)
        (folder / 'f.txt').write_bytes(b'x' * 10)
        if index < old:
            with store.write() as session:
                row = session.get(Conversation, conversation.id)
                assert row is not None
                row.updated_at = datetime.now(UTC) - timedelta(days=40)
    return store


def test_prune_asks_then_reports(isolated_env: Path) -> None:
    store = seed(isolated_env, old=2, fresh=1)
    code, output = invoke('prune', input='n\n')
    assert code == 1 and 'Delete 2 conversations not updated in 30 days?' in output
    code, output = invoke('prune', input='')
    assert code == 1 and 'pass --yes' in output
    assert store.counts()['conversations'] == 3
    code, output = invoke('prune', input='y\n')
    assert code == 0
    assert 'Removed 2 conversations' in output and '2 attachment files' in output
    assert store.counts()['conversations'] == 1
    code, output = invoke('prune', '--days', '1', '--yes')
    assert code == 0 and 'Nothing to prune' in output
    store.close()


def test_prune_days_option(isolated_env: Path) -> None:
    store = seed(isolated_env, old=1, fresh=1)
    code, output = invoke('prune', '--days', '50', '--yes')
    assert code == 0 and 'Nothing to prune' in output
    code, output = invoke('prune', '--days', '39', '--yes')
    assert code == 0 and 'Removed 1 conversations' in output
    code, output = invoke('prune', '--days', '0')
    assert code == 2
    store.close()


def test_clear_asks_then_reports(isolated_env: Path) -> None:
    store = seed(isolated_env, old=1, fresh=2)
    code, output = invoke('clear', input='n\n')
    assert code == 1 and store.counts()['conversations'] == 3
    code, output = invoke('clear', '--yes')
    assert code == 0 and 'Removed 3 conversations' in output and '3 attachment files' in output
    assert store.counts()['conversations'] == 0
    store.close()


def test_init_in_an_empty_folder(isolated_env: Path) -> None:
    code, output = invoke('init')
    assert code == 0
    assert 'Created pyproject.toml with a commented [tool.synapse] section.' in output
    text = (isolated_env / 'pyproject.toml').read_text()
    assert '# port = 8765' in text and '# token' not in text
    assert '# enabled = true' in text
    assert tomllib.loads(text) == {'tool': {'synapse': {}}}
    # Every line uncommented is valid configuration.
    uncommented = '\n'.join(line[2:] for line in text.splitlines() if re.match(r'# \w+ = ', line))
    table = tomllib.loads(uncommented)
    Settings(**{**table, 'database_url': None})
    example = (isolated_env / 'agents' / 'assistant.py').read_text()
    compile(example, 'assistant.py', 'exec')
    assert 'Agent(' in example


def test_init_keeps_an_existing_project(isolated_env: Path) -> None:
    (isolated_env / 'pyproject.toml').write_text('[project]\nname = "app"\nversion = "1"\n')
    (isolated_env / 'agents').mkdir()
    code, output = invoke('init')
    assert code == 0
    assert 'Added a commented [tool.synapse] section' in output
    assert 'agents/ already exists' in output
    data = tomllib.loads((isolated_env / 'pyproject.toml').read_text())
    assert data['project']['name'] == 'app' and data['tool']['synapse'] == {}
    assert not (isolated_env / 'agents' / 'assistant.py').exists()
    code, output = invoke('init')
    assert 'already has a [tool.synapse] section' in output


def test_a_failure_is_one_line_and_debug_shows_the_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', 'mysql://nobody@nowhere/db')
    code, output = invoke('db', 'current')
    assert code == 1
    assert output.splitlines()[0] == "Error: unsupported database 'mysql': use SQLite or PostgreSQL"
    assert 'Traceback' not in output
    code, output = invoke('--debug', 'db', 'current')
    assert code == 1
    assert 'Traceback (most recent call last)' in output and 'StoreConfigError' in output


def test_invalid_setting_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('SYNAPSE_PORT', 'eighty')
    code, output = invoke('settings')
    assert code == 1
    assert output.startswith("Error: invalid setting 'port' from SYNAPSE_PORT")


def test_the_help_names_the_pyproject_table_init_writes() -> None:
    # Rich reads `[tool.synapse]` as markup unless it is escaped, and the words vanished.
    code, output = invoke('--help')
    assert code == 0 and '[tool.synapse]' in output
