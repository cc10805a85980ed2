"""The vault: stable placeholders, restore(redact(x)) == x, streamed restoring at every cut, and the
stored form (encrypted, tenant-keyed, merged) on every selected database."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic_ai.messages import (
    BinaryContent,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from sqlalchemy import select

from synapse_agents.encryption import SecretBox, new_key
from synapse_agents.errors import PrivacyUnavailable
from synapse_agents.privacy import vault_store
from synapse_agents.privacy.detector import Finding
from synapse_agents.privacy.messages import changed_messages, changed_response
from synapse_agents.privacy.tables import PrivacyVault
from synapse_agents.privacy.vault import Entry, StreamRestorer, Vault
from synapse_agents.settings import Settings
from synapse_agents.store import Store

TEXT = 'Mail ana@example.com or call +34 612 345 678; ana@example.com again.'


def findings(text: str, *values: tuple[str, str]) -> list[Finding]:
    found = []
    for value, entity in values:
        start = 0
        while (at := text.find(value, start)) >= 0:
            found.append(Finding(at, at + len(value), entity, 1.0))
            start = at + len(value)
    return found


def redacted(vault: Vault, text: str = TEXT) -> str:
    found = findings(text, ('ana@example.com', 'EMAIL_ADDRESS'), ('+34 612 345 678', 'PHONE_NUMBER'))
    return vault.redact(text, found)[0]


def test_the_same_value_keeps_its_placeholder_and_restores() -> None:
    vault = Vault()
    sent = redacted(vault)
    assert sent == 'Mail «EMAIL_1» or call «PHONE_1»; «EMAIL_1» again.'
    assert vault.restore(sent) == TEXT
    other = redacted(vault, 'From bob@example.com to ana@example.com.')
    assert other == 'From bob@example.com to «EMAIL_1».'  # only what was found is replaced
    bob = findings('From bob@example.com.', ('bob@example.com', 'EMAIL_ADDRESS'))
    assert vault.redact('From bob@example.com.', bob)[0] == 'From «EMAIL_2».'
    assert vault.restore('«EMAIL_9» is not ours') == '«EMAIL_9» is not ours'


def test_a_reloaded_vault_numbers_on() -> None:
    vault = Vault()
    redacted(vault)
    again = Vault.loads(vault.dumps())
    assert again.placeholder('ana@example.com', 'EMAIL_ADDRESS') == '«EMAIL_1»'
    assert again.placeholder('zoe@example.com', 'EMAIL_ADDRESS') == '«EMAIL_2»'


@pytest.mark.parametrize('cut', range(len('Call «PHONE_1» or «EMAIL_1».') + 1))
def test_a_stream_is_restored_wherever_it_is_cut(cut: int) -> None:
    vault = Vault()
    redacted(vault)
    text = 'Call «PHONE_1» or «EMAIL_1».'
    restorer = StreamRestorer(vault)
    shown = [restorer.feed(text[:cut]), restorer.feed(text[cut:]), restorer.flush()]
    assert ''.join(shown) == 'Call +34 612 345 678 or ana@example.com.'
    assert not any('«' in piece for piece in shown)


def test_a_stream_fed_one_character_at_a_time_and_a_lone_guillemet() -> None:
    vault = Vault()
    redacted(vault)
    restorer = StreamRestorer(vault)
    text = 'He said «hello» to «EMAIL_1» and «PHONE_'
    pieces = [restorer.feed(ch) for ch in text] + [restorer.flush()]
    assert ''.join(pieces) == 'He said «hello» to ana@example.com and «PHONE_'


def test_messages_are_copied_never_changed() -> None:
    original = [
        ModelRequest(
            parts=[UserPromptPart('write to ana@example.com')], instructions='Help ana@example.com.'
        ),
        ModelRequest(
            parts=[ToolReturnPart('find', {'rows': [{'mail': 'ana@example.com'}]}, tool_call_id='1')]
        ),
    ]
    vault = Vault()
    copy = changed_messages(original, lambda text: redacted(vault, text))
    assert copy[0].parts[0].content == 'write to «EMAIL_1»'  # type: ignore[union-attr]
    assert copy[0].instructions == 'Help «EMAIL_1».'  # type: ignore[union-attr]
    assert copy[1].parts[0].content == {'rows': [{'mail': '«EMAIL_1»'}]}  # type: ignore[union-attr]
    assert original[0].parts[0].content == 'write to ana@example.com'  # type: ignore[union-attr]
    assert original[1].parts[0].content == {'rows': [{'mail': 'ana@example.com'}]}  # type: ignore[union-attr]


def test_tool_arguments_stay_valid_json_when_restored() -> None:
    vault = Vault([Entry('«PERSON_1»', 'PERSON', 'Ana "la Jefa" O\\Brien')])
    call = ModelResponse(parts=[ToolCallPart('find', '{"who": "«PERSON_1»", "n": 2}', tool_call_id='1')])
    restored = changed_response(call, vault.restore)
    args = restored.parts[0].args  # type: ignore[union-attr]
    assert isinstance(args, str) and json.loads(args) == {'who': 'Ana "la Jefa" O\\Brien', 'n': 2}
    assert call.parts[0].args == '{"who": "«PERSON_1»", "n": 2}'  # type: ignore[union-attr]


def test_a_text_file_is_redacted_and_an_image_is_not() -> None:
    note = BinaryContent(data=b'Mail ana@example.com', media_type='text/plain')
    image = BinaryContent(data=b'\x89PNG ana@example.com', media_type='image/png')
    original = [ModelRequest(parts=[UserPromptPart(['see the files', note, image])])]
    vault = Vault()
    (copy,) = changed_messages(original, lambda text: redacted(vault, text))
    content: list[Any] = list(copy.parts[0].content)  # type: ignore[union-attr,arg-type]
    assert content[1].data == 'Mail «EMAIL_1»'.encode() and content[1].media_type == 'text/plain'
    assert content[2] is image
    assert note.data == b'Mail ana@example.com'


def box() -> SecretBox:
    return SecretBox.from_setting(new_key())


def test_the_stored_vault_is_sealed_tenant_keyed_and_merged(store: Store) -> None:
    key = box()
    mine = Vault()
    redacted(mine)
    vault_store.save(store, key, 'conv-1', 'firm:7', mine)
    with store.read() as session:
        (row,) = session.scalars(select(PrivacyVault))
        assert row.entries == 2 and row.tenant == 'firm:7' and row.anonymize_pii is True
        assert row.sealed and 'ana@example.com' not in row.sealed and '612' not in row.sealed
    assert vault_store.status(store, 'conv-1', 'firm:7').placeholders == 2
    loaded = vault_store.load(store, key, 'conv-1', 'firm:7')
    assert [e.value for e in loaded.vault.entries()] == ['ana@example.com', '+34 612 345 678']
    assert len(vault_store.load(store, key, 'conv-1', None).vault) == 0  # another tenant: nothing
    # Two runs of the conversation that added placeholders meanwhile: both are kept.
    other = Vault(mine.entries())
    other.placeholder('zoe@example.com', 'EMAIL_ADDRESS')
    vault_store.save(store, key, 'conv-1', 'firm:7', other)
    mine.placeholder('+33 6 12 34 56 78', 'PHONE_NUMBER')
    vault_store.save(store, key, 'conv-1', 'firm:7', mine)
    values = {e.value for e in vault_store.load(store, key, 'conv-1', 'firm:7').vault.entries()}
    assert values == {'ana@example.com', '+34 612 345 678', 'zoe@example.com', '+33 6 12 34 56 78'}
    # Another key cannot open it: the turn fails closed.
    with pytest.raises(PrivacyUnavailable):
        vault_store.load(store, box(), 'conv-1', 'firm:7')
    with pytest.raises(PrivacyUnavailable, match='another tenant'):
        vault_store.save(store, key, 'conv-1', 'firm:8', Vault([Entry('«IP_1»', 'IP_ADDRESS', '10.0.0.1')]))


def test_the_flag_is_per_conversation(store: Store) -> None:
    assert vault_store.anonymize_pii(store, 'conv-2') is True
    vault_store.set_anonymize_pii(store, 'conv-2', False)
    assert vault_store.anonymize_pii(store, 'conv-2') is False
    assert vault_store.anonymize_pii(store, 'conv-3') is True
    assert vault_store.load(store, box(), 'conv-2', None).anonymize_pii is False
    assert vault_store.status(store, 'conv-2') == vault_store.Status(anonymize_pii=False, placeholders=0)
    assert vault_store.status(store, 'conv-3') == vault_store.Status(anonymize_pii=True, placeholders=0)


def test_production_without_a_key_fails_closed() -> None:
    with pytest.raises(PrivacyUnavailable, match='cannot be encrypted'):
        vault_store.box_for(Settings(env='production', secret_key=None))
