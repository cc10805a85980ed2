"""`synapse memory` through Typer's runner, on every selected database.

The offline embedder is installed, so search ranks by similarity (by recency with `embedder=off`);
`distill --now` runs the demo distiller in the test's process.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from synapse_agents.cli import command_line
from synapse_agents.conversations.tables import Conversation, Message
from synapse_agents.memory import book
from synapse_agents.memory.jobs import KIND
from synapse_agents.store import Store
from synapse_agents.tasks import queue

runner = CliRunner()
ACME = 'org:acme'
MARIA = 'user:maria'
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


def refused(args: tuple[str, ...], code: int, expected: str) -> None:
    """The command exits with `code` and says `expected` in one line on standard error, nothing else."""
    result = invoke(*args)
    assert result.exit_code == code, result.output
    assert result.stdout == ''
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith('Error: ') and expected in result.stderr, result.stderr


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch, store: Store) -> None:
    """The CLI's settings: the test's database, wide tables."""
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
    monkeypatch.setenv('COLUMNS', '200')


def add(content: str, *extra: str, tenant: str = ACME) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(ok('memory', 'add', content, '--tenant', tenant, '--json', *extra))
    return body


def listed(*args: str) -> list[dict[str, Any]]:
    memories: list[dict[str, Any]] = json.loads(ok('memory', 'list', '--json', *args))['memories']
    return memories


def contents(store: Store) -> list[str]:
    rows, _ = book.listing(store, book.MemoryFilters(), limit=200)
    return sorted(row.content for row in rows)


def conversation(store: Store, *said: tuple[str, str]) -> str:
    """A conversation of org:acme with user:maria holding the messages `said` (role, content)."""
    with store.write() as session:
        row = Conversation(
            agent_key='demo.agent',
            tenant_type='org',
            tenant_id='acme',
            actor_type='user',
            actor_id='maria',
            message_count=len(said),
        )
        session.add(row)
        session.flush()
        for role, content in said:
            session.add(Message(conversation_id=row.id, role=role, content=content))
            session.flush()
        return row.id


def test_add_then_list_as_a_table_and_as_json(store: Store) -> None:
    shared = add('We bill clients fortnightly.', '--created-by', 'ana')
    personal = add('I prefer short answers.', '--applies-to', MARIA, '--subject', 'case:7')
    assert (shared['tenant'], shared['applies_to'], shared['source'], shared['created_by']) == (
        ACME,
        None,
        'manual',
        'ana',
    )
    assert shared['embedded'] is True
    assert (personal['subject'], personal['applies_to']) == ('case:7', MARIA)

    said = ok('memory', 'add', 'The Madrid office closes at six.', '--tenant', 'org:beta')
    [row] = book.listing(store, book.MemoryFilters(tenant='org:beta'))[0]
    assert said == f'Added memory {row.id} (org:beta, for everyone): The Madrid office closes at six.\n'

    table = ok('memory', 'list')
    for cell in (shared['id'], personal['id'], row.id, 'We bill clients fortnightly.', 'case:7', 'manual'):
        assert cell in table
    assert 'everyone' in table and MARIA in table and ' UTC' in table

    assert [m['id'] for m in listed()] == [row.id, personal['id'], shared['id']]  # newest first
    assert [m['id'] for m in listed('--tenant', ACME)] == [personal['id'], shared['id']]
    assert [m['id'] for m in listed('--applies-to', '')] == [row.id, shared['id']]
    assert [m['id'] for m in listed('--applies-to', MARIA)] == [personal['id']]
    assert [m['id'] for m in listed('--subject', 'case:7')] == [personal['id']]
    assert listed('--source', 'distilled') == []
    page = json.loads(ok('memory', 'list', '--json', '--limit', '2'))
    assert len(page['memories']) == 2 and page['next_cursor'] == personal['id']
    assert [m['id'] for m in listed('--cursor', page['next_cursor'])] == [shared['id']]
    assert 'More: --cursor' in ok('memory', 'list', '--limit', '1')
    assert ok('memory', 'list', '--tenant', 'org:nobody') == 'No memories.\n'


def test_a_memory_saying_what_a_stored_one_says_is_refused_in_one_line(store: Store) -> None:
    add('We bill clients fortnightly.')
    refused(
        ('memory', 'add', 'we bill clients,  FORTNIGHTLY', '--tenant', ACME),
        1,
        'a memory saying this is already stored',
    )
    add('We bill clients fortnightly.', '--applies-to', MARIA)  # another axis: not the same memory
    assert contents(store) == ['We bill clients fortnightly.'] * 2


@pytest.mark.parametrize(
    ('args', 'expected'),
    [
        (('add', 'A fact.', '--tenant', 'acme'), "--tenant: expected 'type:id', got 'acme'."),
        (('add', 'A fact.', '--tenant', ACME, '--applies-to', 'maria'), '--applies-to: expected'),
        (('add', '   ', '--tenant', ACME), 'CONTENT: a memory needs some text.'),
        (('list', '--subject', 'case'), '--subject: expected'),
        (('list', '--source', 'dreamt'), '--source: one of distilled, tool, manual.'),
        (('search', 'fees', '--tenant', 'acme'), "--tenant: expected 'type:id', got 'acme'."),
        (('search', 'fees', '--tenant', ACME, '--actor', ':x'), '--actor type: expected a non-empty'),
        (('search', '  ', '--tenant', ACME), 'QUERY: say what to look for.'),
        (('forget', '--person', 'maria'), "--person: expected 'type:id', got 'maria'."),
        (('forget', UNKNOWN_ID), f'No memory with id {UNKNOWN_ID!r}.'),
        (('forget', 'not-an-id'), "No memory with id 'not-an-id'."),
        (('distill', UNKNOWN_ID), 'set memory_model (SYNAPSE_MEMORY_MODEL)'),
    ],
)
def test_a_bad_input_is_one_line_and_stores_nothing(
    store: Store, args: tuple[str, ...], expected: str
) -> None:
    add('We bill clients fortnightly.')
    before = contents(store)
    refused(('memory', *args), 1, expected)
    assert contents(store) == before


def test_forget_needs_exactly_one_of_an_id_and_a_person() -> None:
    refused(('memory', 'forget'), 2, 'Give a memory id or --person')
    refused(('memory', 'forget', UNKNOWN_ID, '--person', MARIA), 2, 'Give a memory id or --person')
    refused(('memory', 'forget', UNKNOWN_ID, '--tenant', ACME), 2, '--tenant goes with --person')


def test_search_ranks_by_similarity_with_scores_and_axes(store: Store) -> None:
    billing = add('We bill clients fortnightly.')
    add('The Madrid office closes at six in the evening.')
    short = add('I prefer short answers.', '--applies-to', MARIA)
    add('Juan likes long answers.', '--applies-to', 'user:juan')
    add('Invoices in another firm go out monthly.', tenant='org:beta')

    said = ok('memory', 'search', 'how often are clients invoiced?', '--tenant', ACME, '--actor', MARIA)
    lines = said.splitlines()
    assert lines[0] == 'Ranked by similarity to the query (embedder local:all-MiniLM-L6-v2-int8).'
    rows = [line for line in lines if line.startswith('│')]
    assert len(rows) == 3  # the tenant's shared ones and maria's; not juan's, not the other firm's
    assert billing['id'] in rows[0] and 'everyone' in rows[0]
    assert f'only {MARIA}' in said and 'Juan' not in said and 'monthly' not in said
    assert all(row.split('│')[1].strip().startswith('0.') for row in rows)

    answer = json.loads(
        ok(
            'memory',
            'search',
            'short replies please',
            '--tenant',
            ACME,
            '--actor',
            MARIA,
            '-k',
            '2',
            '--json',
        )
    )
    assert answer['ranked_by'] == 'similarity' and answer['embedder'] == 'local:all-MiniLM-L6-v2-int8'
    assert len(answer['results']) == 2
    first = answer['results'][0]
    assert first['memory']['id'] == short['id'] and first['applies_to_everyone'] is False
    assert 0 < first['score'] <= 1 and first['memory']['embedded'] is True

    without_actor = json.loads(ok('memory', 'search', 'answers', '--tenant', ACME, '--json'))
    assert all(r['applies_to_everyone'] for r in without_actor['results'])
    assert ok('memory', 'search', 'answers', '--tenant', 'org:nobody').endswith('No memories.\n')


def test_search_without_an_embedder_ranks_by_recency(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    add('We bill clients fortnightly.')
    newest = add('The Madrid office closes at six.')
    monkeypatch.setenv('SYNAPSE_EMBEDDER', 'off')
    said = ok('memory', 'search', 'billing', '--tenant', ACME)
    assert (
        said.splitlines()[0] == 'Ranked by recency, newest first: no embedder is on (the embedder setting).'
    )
    rows = [line for line in said.splitlines() if line.startswith('│')]
    assert newest['id'] in rows[0] and all(row.split('│')[1].strip() == '—' for row in rows)
    answer = json.loads(ok('memory', 'search', 'billing', '--tenant', ACME, '--json'))
    assert answer['ranked_by'] == 'recency' and answer['embedder'] is None
    assert [r['score'] for r in answer['results']] == [None, None]


def test_forget_one_memory_and_everything_of_a_person(store: Store) -> None:
    shared = add('We bill clients fortnightly.')
    gone = add('The Madrid office closes at six.')
    add('I prefer short answers.', '--applies-to', MARIA)
    add('I work on the Ortega case.', '--applies-to', MARIA)
    add('I like tables.', '--applies-to', MARIA, tenant='org:beta')
    add('Juan likes long answers.', '--applies-to', 'user:juan')

    said = ok('memory', 'forget', gone['id'])
    assert said == f'Forgot memory {gone["id"]} (org:acme, for everyone): The Madrid office closes at six.\n'
    refused(('memory', 'forget', gone['id']), 1, f'No memory with id {gone["id"]!r}.')

    assert ok('memory', 'forget', '--person', MARIA, '--tenant', ACME) == (
        'Forgot 2 memories that applied to user:maria in org:acme.\n'
    )
    assert [m['content'] for m in listed('--applies-to', MARIA)] == ['I like tables.']
    assert json.loads(ok('memory', 'forget', '--person', MARIA, '--json')) == {'deleted': 1}
    assert ok('memory', 'forget', '--person', MARIA) == (
        'Forgot 0 memories that applied to user:maria in every tenant.\n'
    )
    assert contents(store) == ['Juan likes long answers.', shared['content']]


def test_distill_queues_a_task_once(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    conversation_id = conversation(store, ('user', 'We bill clients fortnightly.'))
    refused(('memory', 'distill', conversation_id), 1, 'No memory_model is named: set memory_model')
    assert queue.list_tasks(store, queue.TaskFilters()) == []

    monkeypatch.setenv('SYNAPSE_MEMORY_MODEL', 'demo')
    said = ok('memory', 'distill', conversation_id)
    [task] = queue.list_tasks(store, queue.TaskFilters())
    assert said == f'Task {task.id}: distillation of conversation {conversation_id} queued for a worker.\n'
    assert task.status == 'queued' and task.context == {'conversation_id': conversation_id}
    assert task.agent_key == f'job:{KIND}' and task.event == KIND
    assert (task.tenant_type, task.tenant_id) == ('org', 'acme')
    assert ok('memory', 'distill', conversation_id) == (
        f'A distillation of conversation {conversation_id} is already queued.\n'
    )
    assert json.loads(ok('memory', 'distill', conversation_id, '--json')) == {'task_id': None}
    assert len(queue.list_tasks(store, queue.TaskFilters())) == 1
    refused(('memory', 'distill', UNKNOWN_ID), 1, f'No conversation with id {UNKNOWN_ID!r}.')
    assert contents(store) == []


def test_distill_now_writes_a_shared_and_a_personal_memory(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv('SYNAPSE_MEMORY_MODEL', 'demo')
    conversation_id = conversation(
        store,
        ('user', 'I prefer short answers. We bill clients fortnightly.'),
        ('assistant', 'Noted.'),
    )
    said = ok('memory', 'distill', conversation_id, '--now')
    assert said == (
        f'Read 2 messages of conversation {conversation_id}: wrote 1 shared and 1 personal memories.\n'
    )
    memories = {m['content']: m for m in listed('--source', 'distilled')}
    assert set(memories) == {'I prefer short answers.', 'We bill clients fortnightly.'}
    personal, shared = memories['I prefer short answers.'], memories['We bill clients fortnightly.']
    assert (personal['tenant'], personal['applies_to']) == (ACME, MARIA)
    assert (shared['tenant'], shared['applies_to']) == (ACME, None)
    assert shared['conversation_id'] == conversation_id and shared['agent_key'] == 'demo.agent'
    assert shared['embedded'] is True
    assert queue.list_tasks(store, queue.TaskFilters()) == []  # run here, not queued

    again = json.loads(ok('memory', 'distill', conversation_id, '--now', '--json'))
    assert again == {
        'conversation_id': conversation_id,
        'read': 0,
        'shared': 0,
        'personal': 0,
        'skipped': 'nothing new since the last distillation',
    }
    assert ok('memory', 'distill', conversation_id, '--now') == (
        f'Read 0 messages of conversation {conversation_id}: nothing written '
        '(nothing new since the last distillation).\n'
    )
