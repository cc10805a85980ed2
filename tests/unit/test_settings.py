"""The settings registry: precedence, sources, parsing and clear errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from synapse_agents.settings import SETTING_NAMES, LoadedSettings, Settings, SettingsError, load_settings


def write_pyproject(folder: Path, body: str) -> Path:
    path = folder / 'pyproject.toml'
    path.write_text('[project]\nname = "demo"\nversion = "0"\n\n[tool.synapse]\n' + body)
    return path


def source_of(loaded: LoadedSettings, name: str) -> str:
    return next(v.source for v in loaded.values if v.name == name)


def test_defaults_and_sources(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv('SYNAPSE_HOME')
    loaded = load_settings()
    assert loaded.settings.port == 8765
    assert loaded.settings.host == '127.0.0.1'
    assert loaded.settings.home == isolated_env / '.synapse'
    assert loaded.settings.resolved_database_url == f'sqlite:///{isolated_env / ".synapse" / "synapse.db"}'
    assert {v.source for v in loaded.values} == {'default'}
    assert [v.name for v in loaded.values] == list(SETTING_NAMES)


def test_precedence_cli_over_env_over_pyproject(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_pyproject(isolated_env, 'port = 1111\nhost = "0.0.0.0"\nretention_days = 9\n')
    monkeypatch.setenv('SYNAPSE_PORT', '2222')
    monkeypatch.setenv('SYNAPSE_RETENTION_DAYS', '5')
    loaded = load_settings({'port': 3333, 'host': None})
    assert loaded.settings.port == 3333
    assert source_of(loaded, 'port') == 'cli'
    assert loaded.settings.retention_days == 5
    assert source_of(loaded, 'retention_days') == 'env'
    assert loaded.settings.host == '0.0.0.0'
    assert source_of(loaded, 'host') == 'pyproject'
    origin = next(v.origin for v in loaded.values if v.name == 'host')
    assert origin == str(isolated_env / 'pyproject.toml')


def test_pyproject_found_from_a_subfolder(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_pyproject(isolated_env, 'home = "data/synapse"\n')
    monkeypatch.delenv('SYNAPSE_HOME')
    sub = isolated_env / 'pkg' / 'deep'
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    loaded = load_settings()
    assert loaded.project_root == isolated_env
    assert loaded.settings.home == isolated_env / 'data' / 'synapse'


def test_lists_from_env_and_pyproject(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_pyproject(isolated_env, 'models = ["openai:gpt-5", "anthropic:claude-sonnet-4-5"]\n')
    monkeypatch.setenv('SYNAPSE_AGENTS', 'app.agents, other.mod:bot ,')
    loaded = load_settings()
    assert loaded.settings.agents == ['app.agents', 'other.mod:bot']
    assert loaded.settings.models == ['openai:gpt-5', 'anthropic:claude-sonnet-4-5']
    monkeypatch.setenv('SYNAPSE_MODELS', '["a:b"]')
    assert load_settings().settings.models == ['a:b']


def test_dotenv_is_loaded_without_overriding(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (isolated_env / '.env').write_text('SYNAPSE_PORT=4444\nSYNAPSE_ENV=staging\nMY_KEY=from-dotenv\n')
    (isolated_env / 'extra.env').write_text('OTHER_KEY=from-extra\nSYNAPSE_ENV=ignored\n')
    monkeypatch.setenv('SYNAPSE_ENV', 'local')
    for name in ('SYNAPSE_PORT', 'MY_KEY', 'OTHER_KEY'):
        monkeypatch.delenv(name, raising=False)
    loaded = load_settings({'env_file': Path('extra.env')})
    try:
        assert loaded.settings.port == 4444
        assert source_of(loaded, 'port') == 'dotenv'
        assert loaded.settings.env == 'local'
        assert source_of(loaded, 'env') == 'env'
        assert os.environ['MY_KEY'] == 'from-dotenv'
        assert os.environ['OTHER_KEY'] == 'from-extra'
        assert loaded.dotenv_files == (isolated_env / '.env', isolated_env / 'extra.env')
    finally:
        for name in ('SYNAPSE_PORT', 'MY_KEY', 'OTHER_KEY'):
            os.environ.pop(name, None)


def test_unknown_pyproject_key_is_an_error(isolated_env: Path) -> None:
    write_pyproject(isolated_env, 'prot = 1\n')
    with pytest.raises(SettingsError, match="unknown setting 'prot'"):
        load_settings()


def test_invalid_value_names_setting_and_source(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('SYNAPSE_PORT', 'eighty')
    with pytest.raises(SettingsError, match="invalid setting 'port' from SYNAPSE_PORT"):
        load_settings()
    monkeypatch.delenv('SYNAPSE_PORT')
    write_pyproject(isolated_env, 'attachments_max_bytes = -1\n')
    with pytest.raises(SettingsError, match=r"'attachments_max_bytes' from \[tool.synapse\]"):
        load_settings()


def test_postgres_url_gets_the_psycopg_driver() -> None:
    settings = Settings(database_url='postgresql://u@h/db')
    assert settings.resolved_database_url == 'postgresql+psycopg://u@h/db'
    assert Settings(database_url='postgres://u@h/db').resolved_database_url == 'postgresql+psycopg://u@h/db'


def test_token_is_never_displayed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('SYNAPSE_TOKEN', 's3cret')
    loaded = load_settings()
    token = next(v for v in loaded.values if v.name == 'token')
    assert token.display() == '********'
    assert 's3cret' not in repr(loaded.settings)


def test_every_setting_has_help_text() -> None:
    for name, field in Settings.model_fields.items():
        assert field.description and len(field.description) > 10, name
