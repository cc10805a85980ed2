"""A store that cannot write: the turn says it was not saved, health says the store fails, and
everything works again once the store does; attachments a full disk refuses are a clear 507.

The failures are real (tests/store_faults.py): SQLite's own "database or disk is full" from a page
limit, a CHECK constraint PostgreSQL enforces, a full tmpfs for the attachment files.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from chat_helpers import LOCAL_PEER, LOCAL_URL, agent_catalog, decode, seed_conversation, types
from store_faults import StoreFault, ledger_disagreements, small_filesystem
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.settings import load_settings
from synapse_agents.store import Store, upgrade
from synapse_agents.web.app import create_app

LONG = 'lookup ' + 'every word of this message needs room in the store. ' * 200
"""A message too big for any page the database has free: its insert must grow the file."""


@pytest.fixture
def chat(client: TestClient, context: SynapseContext) -> TestClient:
    context.catalog = agent_catalog()
    return client


@pytest.fixture
def fault(store: Store) -> Iterator[StoreFault]:
    fault = StoreFault(store)
    yield fault
    fault.heal()


def send(chat: TestClient, message: str, conversation_id: str | None = None, slug: str = 'greeter') -> Any:
    data = {'message': message, **({'conversation_id': conversation_id} if conversation_id else {})}
    response = chat.post(f'/api/agents/chat_agents.{slug}/chat', data=data)
    assert response.status_code == 200, response.text
    return decode(response.text)


def not_saved_card(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The error card of a turn that could not be saved, after checking the stream closes properly."""
    kinds = types(chunks)
    assert kinds[-2:] == ['finish', '[DONE]'] and chunks[-2]['finishReason'] == 'error'
    assert kinds.count('data-error') == kinds.count('error') == 1
    assert kinds.index('data-error') < kinds.index('error') < kinds.index('finish')
    assert 'message-metadata' not in kinds  # the metadata of a saved answer is never sent
    card: dict[str, Any] = chunks[kinds.index('data-error')]['data']
    assert card['class'] == 'TurnNotSaved' and card['recoverable'] is True
    assert chunks[kinds.index('error')]['errorText'] == f'TurnNotSaved: {card["message"]}'
    return card


def test_a_turn_the_store_cannot_write_says_so_and_the_store_recovers(
    chat: TestClient, fault: StoreFault, store: Store
) -> None:
    assert chat.get('/api/health').json()['store'] == {'ok': True, 'error': None}
    fault.fail()
    chunks = send(chat, LONG)
    assert ''.join(c.get('delta', '') for c in chunks).strip() == 'Hello there friend'  # the answer was shown
    card = not_saved_card(chunks)
    assert card['message'].startswith('This turn could not be saved: ') and fault.cause in card['message']
    final = chunks[-2]['messageMetadata']
    assert final['saved'] is False
    assert (final['conversation_id'], final['message_id'], final['user_message_id']) == (None, None, None)
    assert chat.get('/api/conversations').json()['total'] == 0

    health = chat.get('/api/health')
    assert health.status_code == 503
    body = health.json()
    assert body['status'] == 'degraded' and body['store']['ok'] is False
    assert fault.cause in body['store']['error']

    fault.heal()
    chunks = send(chat, LONG)
    assert 'error' not in types(chunks)
    final = chunks[-2]['messageMetadata']
    assert final['saved'] is True and final['message_id'] is not None
    thread = chat.get(f'/api/conversations/{final["conversation_id"]}').json()
    assert [m['role'] for m in thread['messages']] == ['user', 'assistant']
    assert thread['messages'][1]['id'] == final['message_id']
    health = chat.get('/api/health')
    assert health.status_code == 200 and health.json()['status'] == 'ok'
    assert health.json()['store'] == {'ok': True, 'error': None}


def test_an_existing_conversation_keeps_its_saved_turns(
    chat: TestClient, fault: StoreFault, store: Store
) -> None:
    first = send(chat, 'hello', slug='shop')
    conversation_id = first[0]['messageMetadata']['conversation_id']
    before = chat.get(f'/api/conversations/{conversation_id}').json()

    fault.fail()
    chunks = send(chat, LONG, conversation_id, slug='shop')
    not_saved_card(chunks)
    final = chunks[-2]['messageMetadata']
    # The conversation is stored (an earlier turn), the new turn's messages are not.
    assert final['conversation_id'] == conversation_id
    assert (final['message_id'], final['user_message_id'], final['saved']) == (None, None, False)
    fault.heal()
    after = chat.get(f'/api/conversations/{conversation_id}').json()
    assert after['messages'] == before['messages']
    row, earlier = after['conversation'], before['conversation']
    assert row['message_count'] == 2 and row['tool_count'] == earlier['tool_count'] == 1
    # The turn's ledger rows may have been written (they need little room): the counters agree.
    assert ledger_disagreements(store.engine.url.render_as_string(hide_password=False)) == []


def test_a_failed_run_the_store_cannot_write_names_both(chat: TestClient, fault: StoreFault) -> None:
    fault.fail()
    card = not_saved_card(send(chat, LONG, slug='boom'))
    assert card['message'].startswith('This turn could not be saved: ')
    assert card['message'].endswith('(the run had failed: RuntimeError: inventory down)')


def test_an_attachment_the_disk_cannot_hold_is_refused_before_the_turn(
    chat: TestClient, store: Store
) -> None:
    with small_filesystem(store.attachments_dir) as disk:
        files = [
            ('attachments', ('fits.txt', b'a' * 4096, 'text/plain')),
            ('attachments', ('too-big.bin', b'b' * 64 * 1024, 'application/octet-stream')),
        ]
        response = chat.post('/api/agents/chat_agents.greeter/chat', data={'message': 'see'}, files=files)
        if disk.full:
            assert response.status_code == 507
            assert response.json()['error'] == {
                'code': 'store_full',
                'message': 'The attachments could not be saved: No space left on device.',
            }
        else:
            assert response.status_code == 503
            assert response.json()['error'] == {
                'code': 'store_unavailable',
                'message': 'The attachments could not be saved: Permission denied.',
            }
        # The file that did fit is gone again, with its folders; nothing else was stored.
        assert sorted(p.name for p in store.attachments_dir.iterdir()) == (['filler'] if disk.full else [])
    assert chat.get('/api/conversations').json()['total'] == 0
    assert chat.get('/api/health').json()['status'] == 'ok'


def test_health_reads_every_table(chat: TestClient, store: Store) -> None:
    with store.engine.begin() as connection:
        connection.execute(text('ALTER TABLE llm_calls RENAME TO llm_calls_away'))
    try:
        response = chat.get('/api/health')
        assert response.status_code == 503
        body = response.json()
        assert body['status'] == 'degraded' and 'llm_calls' in body['store']['error']
    finally:
        with store.engine.begin() as connection:
            connection.execute(text('ALTER TABLE llm_calls_away RENAME TO llm_calls'))
    assert chat.get('/api/health').status_code == 200


def test_health_reports_a_corrupted_sqlite_file(tmp_path: Path) -> None:
    """A page of the file overwritten: health reads the table and says the file is malformed."""
    home = tmp_path / 'home'
    store = Store.open(f'sqlite:///{home / "synapse.db"}', home / 'attachments')
    upgrade(store.engine)
    seed_conversation(store)
    context = SynapseContext(loaded=load_settings(), store=store)
    with TestClient(create_app(context), base_url=LOCAL_URL, client=LOCAL_PEER) as client:
        assert client.get('/api/health').status_code == 200
        with store.engine.connect() as connection:
            connection.execute(text('PRAGMA wal_checkpoint(TRUNCATE)'))
            root = connection.execute(
                text("SELECT rootpage FROM sqlite_master WHERE name = 'messages'")
            ).scalar()
            page_size = connection.execute(text('PRAGMA page_size')).scalar()
        store.engine.dispose()  # no connection keeps the page cached
        assert isinstance(root, int) and isinstance(page_size, int)
        with (home / 'synapse.db').open('r+b') as handle:
            handle.seek((root - 1) * page_size)
            handle.write(b'\xa5' * page_size)  # the table's first page is garbage now
        response = client.get('/api/health')
        assert response.status_code == 503
        assert response.json()['store'] == {'ok': False, 'error': 'database disk image is malformed'}
    store.close()


REFUSE_ANSWERS = {
    'sqlite': [
        'CREATE TRIGGER synapse_test_refuse_answers BEFORE UPDATE OF status ON messages '
        "WHEN NEW.role = 'assistant' AND NEW.status = 'complete' "
        "BEGIN SELECT RAISE(ABORT, 'answers are refused'); END"
    ],
    'postgresql': [
        'ALTER TABLE messages ADD CONSTRAINT synapse_test_refuse_answers '
        "CHECK (role <> 'assistant' OR status <> 'complete') NOT VALID"
    ],
}
ALLOW_ANSWERS = {
    'sqlite': ['DROP TRIGGER synapse_test_refuse_answers'],
    'postgresql': ['ALTER TABLE messages DROP CONSTRAINT synapse_test_refuse_answers'],
}


def test_an_answer_the_store_cannot_complete_is_not_claimed(chat: TestClient, store: Store) -> None:
    """The turn's start is stored, its final write fails: the answer's id is not claimed, and the
    stored answer is left `interrupted` rather than `streaming`."""
    with store.engine.begin() as connection:
        for sql in REFUSE_ANSWERS[store.dialect]:
            connection.execute(text(sql))
    chunks = send(chat, 'hi')
    card = not_saved_card(chunks)
    cause = 'answers are refused' if store.dialect == 'sqlite' else 'synapse_test_refuse_answers'
    assert card['message'].startswith('This turn could not be saved: ') and cause in card['message']
    final = chunks[-2]['messageMetadata']
    assert final['saved'] is False and final['message_id'] is None
    assert final['user_message_id'] is not None and final['conversation_id'] is not None
    thread = chat.get(f'/api/conversations/{final["conversation_id"]}').json()
    assert [(m['role'], m['status']) for m in thread['messages']] == [
        ('user', 'complete'),
        ('assistant', 'interrupted'),
    ]
    assert thread['messages'][0]['id'] == final['user_message_id']
    health = chat.get('/api/health')
    assert health.status_code == 503 and cause in health.json()['store']['error']

    with store.engine.begin() as connection:
        for sql in ALLOW_ANSWERS[store.dialect]:
            connection.execute(text(sql))
    again = send(chat, 'hi', final['conversation_id'])
    assert again[-2]['messageMetadata']['saved'] is True
    assert chat.get('/api/health').status_code == 200
