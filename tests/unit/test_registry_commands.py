"""`synapse registry` and `synapse settings` through Typer's runner, on every selected database."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text
from typer.testing import CliRunner

from chat_helpers import seed_conversation
from synapse_agents.cli import app
from synapse_agents.encryption import HOW_TO_SET, SecretBox, UndecryptableSecret, new_key
from synapse_agents.registry import providers_store
from synapse_agents.store import Store

runner = CliRunner()
API_KEY = 'sk-ant-api03-Kp7QwErTyUiOp4sDfGhJkL'


def invoke(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), input=input)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def on_store(store: Store, monkeypatch: pytest.MonkeyPatch) -> Store:
    """The CLI's database is the test's store."""
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
    return store


@pytest.fixture
def secret_key(monkeypatch: pytest.MonkeyPatch) -> str:
    key = new_key()
    monkeypatch.setenv('SYNAPSE_SECRET_KEY', key)
    return key


def test_add_list_show_edit_remove(on_store: Store, tmp_path: Path) -> None:
    preset = tmp_path / 'preset.yaml'
    preset.write_text('key: precise\nmodel: openai:gpt-5\ntemperature: 0.2\n')
    assert invoke('registry', 'add', 'presets', str(preset))[:2] == (0, "Added preset 'precise'.\n")
    code, out, _ = invoke('registry', 'add', 'tones', '-', input='{"key": "warm", "emoji": "🌞"}')
    assert code == 0 and "Added tone 'warm'" in out
    many = '- {key: a1, preset_key: precise}\n- {key: a2, tone_key: warm, is_sandbox: true}\n'
    code, out, _ = invoke('registry', 'add', 'agents', '-', input=many)
    assert code == 0 and out.count('Added agent') == 2

    code, out, _ = invoke('registry', 'list', 'agents', '--json')
    assert code == 0 and [a['key'] for a in json.loads(out)['agents']] == ['a1']
    code, out, _ = invoke('registry', 'list', 'agents', '--sandbox', 'only', '--json')
    assert [a['key'] for a in json.loads(out)['agents']] == ['a2']
    code, out, _ = invoke('registry', 'list', 'agents', '--sandbox', 'include')
    assert code == 0 and 'a1' in out and 'a2' in out and 'precise' in out
    code, out, _ = invoke('registry', 'show', 'agents', 'a2')
    assert code == 0 and json.loads(out)['slug'] == 'config:a2'

    code, out, _ = invoke('registry', 'edit', 'agents', 'a1', '-', input='instructions: Be helpful.\n')
    assert code == 0 and "Changed agent 'a1'" in out
    assert json.loads(invoke('registry', 'show', 'agents', 'a1')[1])['version'] == 2
    assert invoke('registry', 'remove', 'agents', 'a1')[:2] == (0, "Removed agent 'a1'.\n")
    code, _, err = invoke('registry', 'show', 'agents', 'a1')
    assert code == 1 and err.strip() == "Error: No agent with key 'a1'."
    assert invoke('registry', 'list', 'providers')[1] == 'No providers.\n'


def test_json_with_escaped_emoji_is_read_as_json(on_store: Store) -> None:
    """`json.dumps` writes 🙂 as a surrogate pair, which a YAML parser reads as two broken halves."""
    document = json.dumps({'key': 'happy', 'emoji': '🙂', 'instructions': 'Smile.'})
    assert '\\ud83d\\ude42' in document
    code, out, err = invoke('registry', 'add', 'tones', '-', input=document)
    assert (code, err) == (0, '') and "Added tone 'happy'" in out
    code, out, _ = invoke('registry', 'show', 'tones', 'happy')
    assert code == 0 and json.loads(out)['emoji'] == '🙂'


def test_models_list_with_their_price(on_store: Store) -> None:
    model = json.dumps(
        {
            'provider_key': 'openai',
            'name': 'gpt-5-mini',
            'prices': [{'input_per_mtok': '0.25', 'output_per_mtok': 2}],
        }
    )
    assert invoke('registry', 'add', 'models', '-', input=model)[0] == 0
    code, out, _ = invoke('registry', 'list', 'models')
    assert code == 0 and 'openai:gpt-5-mini' in out and '0.25 / 2' in out
    shown = json.loads(invoke('registry', 'show', 'models', 'openai:gpt-5-mini')[1])
    assert shown['price']['input_per_mtok'] == '0.25'


def test_a_price_without_an_exchange_rate_is_added_with_one_warning_line(
    on_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv('SYNAPSE_CURRENCY_RATES', '{"EUR": "1.08"}')
    price = '{input_per_mtok: 1, output_per_mtok: 2, currency: %s}'
    models = (
        f'- {{provider_key: openai, name: a, prices: [{price % "EUR"}]}}\n'
        f'- {{provider_key: openai, name: b, prices: [{price % "JPY"}]}}\n'
    )
    code, out, err = invoke('registry', 'add', 'models', '-', input=models)
    assert code == 0, err
    assert out == "Added model 'openai:a'.\nAdded model 'openai:b'.\n"
    assert err.splitlines() == [
        'Warning: no exchange rate for JPY to USD: calls priced with it count as unpriced in the spend '
        'report and in turn costs, and limits in another currency leave them out, until currency_rates '
        'gives one'
    ]


@pytest.mark.parametrize(
    ('args', 'input', 'code', 'message'),
    [
        (
            ('add', 'presets', '-'),
            '{"key": "p", "model": "demo", "top_p": 3}',
            1,
            'Error: top_p: Input should be',
        ),
        (
            ('add', 'presets', '-'),
            '{"key": "p", "model": "demo", "colour": 1}',
            1,
            'Error: colour: Extra inputs',
        ),
        (('add', 'presets', '-'), 'key: [unclosed', 2, 'Error: standard input is not valid YAML or JSON'),
        (('add', 'presets', '-'), '', 2, 'Error: standard input is empty'),
        (('add', 'presets', '-'), '"just text"', 2, 'Error: the entry: expected a mapping'),
        (('add', 'presets', 'no-such-file.yaml'), None, 2, 'Error: cannot read no-such-file.yaml'),
        (('edit', 'tones', 'missing', '-'), 'name: x', 1, "Error: No tone with key 'missing'."),
        (('remove', 'models', 'openai:none'), None, 1, "Error: No model with key 'openai:none'."),
        (('add', 'settings', '-'), 'value: 1', 1, 'Error: settings are not added'),
        (('edit', 'settings', 'port', '-'), 'value: 1', 1, "Error: No registry setting 'port'"),
    ],
)
def test_errors_are_one_line(
    on_store: Store, args: tuple[str, ...], input: str | None, code: int, message: str
) -> None:
    exit_code, out, err = invoke('registry', *args, input=input)
    assert exit_code == code, (out, err)
    assert err.startswith(message), err
    assert len(err.strip().splitlines()) == 1, err


def test_a_duplicate_is_refused(on_store: Store) -> None:
    invoke('registry', 'add', 'tones', '-', input='key: t')
    code, _, err = invoke('registry', 'add', 'tones', '-', input='key: t')
    assert code == 1 and err.strip() == "Error: A tone with key 't' exists already."


def test_a_key_without_secret_key_is_refused_with_the_how_to(on_store: Store) -> None:
    code, _, err = invoke(
        'registry', 'add', 'providers', '-', input=f'{{key: p, kind: openai, api_key: {API_KEY}}}'
    )
    assert code == 1 and HOW_TO_SET in err and len(err.strip().splitlines()) == 1
    code, _, err = invoke('registry', 'rotate-key')
    assert code == 1 and 'No secret key is set' in err


@pytest.mark.usefixtures('secret_key')
def test_the_cli_never_prints_the_key(on_store: Store) -> None:
    code, out, _ = invoke(
        'registry', 'add', 'providers', '-', input=f'{{key: p, kind: anthropic, api_key: {API_KEY}}}'
    )
    assert code == 0
    printed = out + ''.join(
        invoke('registry', *args)[1]
        for args in (('list', 'providers'), ('list', 'providers', '--json'), ('show', 'providers', 'p'))
    )
    shown = json.loads(invoke('registry', 'show', 'providers', 'p')[1])
    assert shown['secret_set'] is True and shown['secret_last4'] == API_KEY[-4:]
    assert API_KEY not in printed and base64.b64encode(API_KEY.encode()).decode() not in printed
    assert API_KEY[:-4] not in printed


def test_rotate_key(on_store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    old, new = new_key(), new_key()
    for name in ('a', 'b'):
        providers_store.create(
            on_store,
            SecretBox.from_setting(old),
            {'key': name, 'kind': 'openai', 'api_key': f'{API_KEY}{name}'},
        )
    monkeypatch.setenv('SYNAPSE_SECRET_KEY', f'{new},{old}')
    code, out, _ = invoke('registry', 'rotate-key')
    assert code == 0 and 'Re-encrypted 2 stored secrets' in out
    for name in ('a', 'b'):
        assert providers_store.secret_of(on_store, SecretBox.from_setting(new), name) == f'{API_KEY}{name}'
        with pytest.raises(UndecryptableSecret):
            providers_store.secret_of(on_store, SecretBox.from_setting(old), name)

    monkeypatch.setenv('SYNAPSE_SECRET_KEY', new_key())  # opens neither
    with on_store.read() as session:
        before = sorted(session.execute(text('SELECT key, secret FROM registry_providers')).all())
    code, _, err = invoke('registry', 'rotate-key')
    assert code == 1 and "provider 'a'" in err and 'nothing was re-encrypted' in err
    with on_store.read() as session:
        assert sorted(session.execute(text('SELECT key, secret FROM registry_providers')).all()) == before


def test_new_key_prints_a_usable_key() -> None:
    code, out, _ = invoke('registry', 'new-key')
    assert code == 0
    box = SecretBox.from_setting(out.strip())
    assert box.decrypt(box.encrypt('x')) == 'x'
    assert invoke('registry', 'new-key')[1] != out


def test_cleanup_sandbox(on_store: Store) -> None:
    invoke('registry', 'add', 'presets', '-', input='{key: trial, model: demo, is_sandbox: true}')
    invoke('registry', 'add', 'agents', '-', input='{key: draft, preset_key: trial, is_sandbox: true}')
    code, out, _ = invoke('registry', 'cleanup-sandbox')
    assert code == 0 and out.strip() == (
        'Removed 0 sandbox workflows (with their runs), 1 sandbox agents and 1 sandbox presets.'
    )
    assert json.loads(invoke('registry', 'list', 'presets', '--sandbox', 'include', '--json')[1]) == {
        'presets': []
    }


def test_settings_stored_in_the_registry(on_store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('SYNAPSE_RETENTION_DAYS', '20')
    monkeypatch.setenv('COLUMNS', '250')  # the table on one line per setting
    data = json.loads(invoke('settings', '--json')[1])
    assert data['retention_days'] == {'value': 20, 'source': 'env'}
    assert invoke('registry', 'edit', 'settings', 'retention_days', '-', input='value: 5')[0] == 0
    data = json.loads(invoke('settings', '--json')[1])
    assert data['retention_days'] == {'value': 5, 'source': 'registry'}
    assert data['language'] == {'value': 'en', 'source': 'default'}
    code, out, _ = invoke('settings')
    assert code == 0 and 'registry (database)' in out
    rows = {
        row['name']: row
        for row in json.loads(invoke('registry', 'list', 'settings', '--json')[1])['settings']
    }
    assert rows['retention_days']['source'] == 'registry' and rows['retention_days']['stored'] == 5
    code, _, err = invoke('registry', 'edit', 'settings', 'retention_days', '-', input='value: 0')
    assert code == 1 and err.startswith('Error: value: Input should be greater than 0')
    code, _, err = invoke('registry', 'edit', 'settings', 'retention_days', '-', input='days: 3')
    assert code == 1 and 'one field, value' in err
    assert invoke('registry', 'remove', 'settings', 'retention_days')[0] == 0
    assert json.loads(invoke('settings', '--json')[1])['retention_days'] == {'value': 20, 'source': 'env'}


def test_prune_uses_the_stored_retention(on_store: Store) -> None:
    seed_conversation(on_store, updated=datetime.now(UTC) - timedelta(days=10))
    assert 'Nothing to prune' in invoke('prune', '--yes')[1], 'the default is 30 days'
    invoke('registry', 'edit', 'settings', 'retention_days', '-', input='value: 7')
    code, out, _ = invoke('prune', '--yes')
    assert code == 0 and 'Removed 1 conversations' in out and '(older than 7 days)' in out


def test_settings_without_a_database_creates_none(isolated_env: Path) -> None:
    code, out, _ = invoke('settings', '--json')
    assert code == 0 and json.loads(out)['retention_days']['source'] == 'default'
    assert not (isolated_env.parent / 'home').exists(), 'reading the settings made no database'


def test_settings_with_an_unreachable_database_still_print(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', 'oracle://x/y')
    code, out, err = invoke('settings', '--json')
    assert code == 0 and json.loads(out)['retention_days']['source'] == 'default'
    assert 'The registry could not be read' in err
