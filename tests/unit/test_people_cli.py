"""`synapse people show|forget` through Typer's runner, on every selected database."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from typer.testing import CliRunner, Result

from synapse_agents.cli import command_line
from synapse_agents.memory import book
from synapse_agents.memory.recall import Recall
from synapse_agents.retrieval import people
from synapse_agents.retrieval.vector_memory import VectorMemories, VectorMemoryInput
from synapse_agents.settings import Settings
from synapse_agents.store import Store
from vector_memory_helpers import with_vector_memory

runner = CliRunner()
FIRM, MARIA, JUAN = 'firm:7', 'user:maria', 'user:juan'


def invoke(*args: str, stdin: str | None = None) -> Result:
    result = runner.invoke(command_line(with_vector_memory()), list(args), input=stdin)
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


@pytest.fixture
def filled(store: Store) -> None:
    async def fill() -> None:
        memories = VectorMemories.of(store, Settings(embedder='off'))
        await memories.remember(VectorMemoryInput(tenant=FIRM, content='María drinks tea.', person=MARIA))
        await memories.remember(VectorMemoryInput(tenant=FIRM, content='Juan drinks coffee.', person=JUAN))
        await memories.remember(VectorMemoryInput(tenant='firm:8', content='Other María.', person=MARIA))
        recall = Recall.of(store, Settings(embedder='off'))
        await recall.remember(
            [
                book.MemoryInput(tenant=FIRM, content='María wants bullet points.', applies_to=MARIA),
                book.MemoryInput(tenant=FIRM, content='María was born in Porto.', subject=MARIA),
            ]
        )

    anyio.run(fill)


def test_show_lists_what_is_stored_about_the_person(filled: None) -> None:
    shown = ok('people', 'show', MARIA, '--tenant', FIRM)
    assert 'María drinks tea.' in shown and 'María wants bullet points.' in shown
    assert 'María was born in Porto.' in shown and 'about them' in shown
    assert 'Juan' not in shown and 'Other María' not in shown
    assert 'Ledger rows naming them: 0' in shown
    body: dict[str, Any] = json.loads(ok('people', 'show', MARIA, '--tenant', FIRM, '--json'))
    assert [m['content'] for m in body['vector_memories']] == ['María drinks tea.']
    assert len(body['memories']) == 2 and body['ledger_rows'] == 0 and body['ledger']


def test_forget_asks_then_deletes_only_that_persons_data_in_that_tenant(store: Store, filled: None) -> None:
    declined = invoke('people', 'forget', MARIA, '--tenant', FIRM, stdin='n\n')
    assert declined.exit_code == 1
    assert len(people.person_data(store, MARIA, FIRM).memories) == 2
    said = ok('people', 'forget', MARIA, '--tenant', FIRM, '--yes')
    assert 'Deleted 1 vector memory and 2 memories of user:maria in firm:7' in said
    assert 'Kept 0 ledger rows' in said
    assert people.person_data(store, MARIA, FIRM).vector_memories == []
    assert len(people.person_data(store, MARIA, 'firm:8').vector_memories) == 1
    assert len(people.person_data(store, JUAN, FIRM).vector_memories) == 1
    body = json.loads(ok('people', 'forget', MARIA, '--tenant', FIRM, '--yes', '--json'))
    assert body['deleted'] == {'vector_memories': 0, 'memories': 0}


@pytest.mark.parametrize(
    ('args', 'expected'),
    [
        (('people', 'show', 'maria', '--tenant', FIRM), 'PERSON: '),
        (('people', 'show', MARIA, '--tenant', 'firm'), '--tenant: '),
        (('people', 'forget', MARIA, '--tenant', '', '--yes'), '--tenant: required'),
    ],
)
def test_a_bad_label_is_one_line(args: tuple[str, ...], expected: str) -> None:
    result = invoke(*args)
    assert result.exit_code == 1, result.output
    assert result.stdout == ''
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith('Error: ') and expected in result.stderr, result.stderr
