"""The secrets Synapse holds are redacted by value wherever they appear: a registry key once it was
encrypted or decrypted, the configured secrets, the provider keys of the environment; in the forms
a key takes inside JSON, a repr or a URL. `synapse settings` masks the passwords of its URLs."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from pydantic import SecretStr
from typer.testing import CliRunner

from synapse_agents.cli import app
from synapse_agents.encryption import SecretBox, new_key
from synapse_agents.redaction import (
    MIN_LENGTH,
    REDACTED,
    forget_all,
    mask_password,
    remember,
    scrub,
    scrub_value,
)
from synapse_agents.settings import Settings, remember_settings

runner = CliRunner()


def test_a_registry_key_is_redacted_once_the_box_has_seen_it() -> None:
    key = 'sk-box-7Hq2Lm9Vt4Zx1Pw8'
    assert scrub(f'401 Incorrect API key provided: {key}') == f'401 Incorrect API key provided: {key}'
    box = SecretBox.from_setting(new_key())
    token = box.encrypt(key)
    assert scrub(f'key {key}.') == f'key {REDACTED}.'
    other = 'sk-other-3Kd8Qw1Zr5Ty'
    stored = SecretBox((box.keys[0],))._fernet().encrypt(other.encode()).decode()  # as another process did
    assert box.decrypt(stored) == other and box.decrypt(token) == key
    assert scrub(f'{other}!') == f'{REDACTED}!'


def test_every_form_of_a_secret_is_found_at_any_depth() -> None:
    key = 'sk-"odd"/key\\with+chars'
    remember(key)
    body = {'error': {'message': f'bad key {key}', 'echo': [key, (key,)]}, key: 1}
    assert key not in json.dumps(scrub_value(body))
    assert scrub(json.dumps(body)).count(REDACTED) == 4
    assert scrub(repr(body)).count(REDACTED) == 4
    assert scrub(f'https://h/p?api_key={quote(key, safe="")}') == f'https://h/p?api_key={REDACTED}'
    assert scrub_value(3) == 3 and scrub_value(None) is None and scrub_value(b'raw') == b'raw'


def test_short_values_are_not_secrets_worth_blanking_words_for() -> None:
    remember('x' * (MIN_LENGTH - 1), '', None)
    assert scrub('x' * (MIN_LENGTH - 1)) == 'x' * (MIN_LENGTH - 1)


def test_the_environments_provider_keys_are_read_at_each_call(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('OPENAI_API_KEY', 'sk-env-4Fg7Hj2Kl9')
    monkeypatch.setenv('TOKENIZERS_PARALLELISM', 'false-but-long')
    assert scrub('sent sk-env-4Fg7Hj2Kl9') == f'sent {REDACTED}'
    assert scrub('false-but-long') == 'false-but-long', 'a name that only starts like TOKEN is not a secret'


def test_configured_secrets_are_redacted() -> None:
    fernet = new_key()
    remember_settings(
        Settings(
            secret_key=SecretStr(f'{fernet}, '),
            token=SecretStr('access-token-5Tg8'),
            otel_headers=SecretStr('Authorization=Bearer otel-cred-9Lk2, X-Team=blue'),
            database_url='postgresql://app:db-pass-6Yh1@db.example/synapse',
            queue_url='amqp://worker:queue-pass-2Rt7@mq.example//',
        )
    )
    text = f'{fernet} access-token-5Tg8 otel-cred-9Lk2 db-pass-6Yh1 queue-pass-2Rt7 blue'
    assert scrub(text) == ' '.join([REDACTED] * 5 + ['blue'])


def test_mask_password_keeps_the_rest_of_the_url() -> None:
    assert mask_password('postgresql://app:pw-1234567@db:5432/x?sslmode=require&password=p2') == (
        'postgresql://app:***@db:5432/x?sslmode=require&password=***'
    )
    assert mask_password('sqlite:////tmp/synapse.db') == 'sqlite:////tmp/synapse.db'


def test_synapse_settings_masks_the_passwords_of_its_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', 'postgresql://app:db-Pass-7Kq3@127.0.0.1:1/synapse')
    monkeypatch.setenv('SYNAPSE_QUEUE_URL', 'redis://:queue-Pass-8Wd2@127.0.0.1:1/0')
    for args in (['settings'], ['settings', '--json']):
        result = runner.invoke(app, args, env={'COLUMNS': '400'})
        assert result.exit_code == 0, result.output
        for password in ('db-Pass-7Kq3', 'queue-Pass-8Wd2'):
            assert password not in result.output, (args, result.output)
        assert 'postgresql://app:***@127.0.0.1:1/synapse' in result.output
    data = json.loads(runner.invoke(app, ['settings', '--json']).stdout)
    assert data['queue_url']['value'] == 'redis://:***@127.0.0.1:1/0'


def test_a_key_changed_in_the_environment_is_found_at_the_next_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment is read again when it changed (it is not read whole for every text)."""
    monkeypatch.setenv('ANTHROPIC_API_KEY', 'sk-ant-first-5Tg8')
    assert scrub('echo sk-ant-first-5Tg8') == f'echo {REDACTED}'
    monkeypatch.setenv('ANTHROPIC_API_KEY', 'sk-ant-second-9Qw2')
    assert scrub('echo sk-ant-second-9Qw2') == f'echo {REDACTED}'
    assert scrub_value({'k': ['sk-ant-second-9Qw2']}) == {'k': [REDACTED]}
    monkeypatch.delenv('ANTHROPIC_API_KEY')
    assert scrub('echo sk-ant-first-5Tg8') == 'echo sk-ant-first-5Tg8'


def test_a_secret_that_reads_like_a_name_leaves_the_keys_of_data_alone() -> None:
    """Keys name things; blanking one would drop a span attribute or a JSON field whole."""
    remember('model_request_parameters')
    data = {'model_request_parameters': 'model_request_parameters', 'other': ['x']}
    assert scrub_value(data) == {'model_request_parameters': REDACTED, 'other': ['x']}


def test_secrets_are_forgotten_on_request() -> None:
    remember('a-forgettable-secret-1')
    assert scrub('a-forgettable-secret-1') == REDACTED
    forget_all()
    assert scrub('a-forgettable-secret-1') == 'a-forgettable-secret-1'
