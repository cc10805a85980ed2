"""`synapse privacy` through Typer's runner, on every selected database."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner, Result

from synapse_agents.cli import command_line
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.privacy import detector as detector_module
from synapse_agents.privacy import vault_store
from synapse_agents.store import Store

runner = CliRunner()
UNKNOWN_ID = '01a23000-0000-7000-8000-000000000000'


def invoke(*args: str) -> Result:
    result = runner.invoke(command_line(), list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def ok(*args: str) -> str:
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch, store: Store) -> None:
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
    monkeypatch.setenv('COLUMNS', '200')


def test_check_shows_what_the_model_would_be_sent() -> None:
    text = 'Maria Lopez: write to maria@example.org or +34 612 345 678.'
    body = json.loads(ok('privacy', 'check', text, '--json'))
    assert body['redacted'] == 'Maria Lopez: write to «EMAIL_1» or «PHONE_1».'
    assert body['kept'] == ['PERSON']
    assert [(f['placeholder'], f['entity'], f['value']) for f in body['found']] == [
        ('«EMAIL_1»', 'EMAIL_ADDRESS', 'maria@example.org'),
        ('«PHONE_1»', 'PHONE_NUMBER', '+34 612 345 678'),
    ]
    everything = json.loads(ok('privacy', 'check', text, '--keep', 'none', '--json'))
    assert everything['redacted'].startswith('«PERSON_1»: write to «EMAIL_1»')
    printed = ok('privacy', 'check', 'Nothing to see here.')
    assert 'Nothing to see here.' in printed and '(nothing found)' in printed


def test_check_fails_closed_when_the_detector_cannot_be_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(detector_module, 'MODEL_PACKAGE', 'no_such_spacy_pipeline')
    detector_module.reset_detector()
    try:
        result = invoke('privacy', 'check', 'write to maria@example.org')
    finally:
        detector_module.reset_detector()
    assert result.exit_code == 1 and result.stdout == ''
    assert 'no_such_spacy_pipeline is not installed' in result.stderr


def test_a_conversation_is_turned_off_and_on(store: Store) -> None:
    conversation = ConversationRepository(store).create(agent_key='desk', tenant_type='firm', tenant_id='7')
    status = json.loads(ok('privacy', 'status', conversation.id, '--json'))
    assert status == {
        'conversation_id': conversation.id,
        'privacy_enabled': False,
        'anonymize_pii': True,
        'placeholders': 0,
    }
    assert 'sent as it is' in ok('privacy', 'off', conversation.id)
    assert vault_store.anonymize_pii(store, conversation.id, 'firm:7') is False
    assert 'anonymize_pii off' in ok('privacy', 'status', conversation.id)
    assert json.loads(ok('privacy', 'on', conversation.id, '--json'))['anonymize_pii'] is True
    assert vault_store.anonymize_pii(store, conversation.id, 'firm:7') is True
    result = invoke('privacy', 'off', UNKNOWN_ID)
    assert result.exit_code == 1 and 'No conversation' in result.stderr
