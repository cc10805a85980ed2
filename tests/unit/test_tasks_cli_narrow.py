"""`synapse tasks` tables in an 80-column terminal: nothing wider than the terminal, no column
squeezed to a character or two, names whole, every id complete (folded over lines if it must).

Typer's runner with `COLUMNS=80` and long, realistic values, on every selected database.
"""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from fixtures.task_agents import QUICK, TARGET
from synapse_agents.cli import command_line
from synapse_agents.store import Store
from synapse_agents.tasks import queue, standing_store
from synapse_agents.tasks.standing_store import StandingInput

pytestmark = pytest.mark.any_database(reason="what is checked is a table's layout in an 80-column terminal")

runner = CliRunner()
WIDTH = 80
NARROWEST = 4
GONE = 'fixtures.task_agents.nightly_ticket_summariser_that_was_removed'
NAMES = ('Weekly summary of every open support ticket', 'Nightly digest for the finance team')


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch, store: Store) -> None:
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
    monkeypatch.setenv('SYNAPSE_AGENTS', TARGET)
    monkeypatch.setenv('COLUMNS', str(WIDTH))


def run(*args: str) -> str:
    result = runner.invoke(command_line(), list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.stdout


def column_widths(output: str) -> list[int]:
    """The inner widths of the table's columns, read from its top border (`┏━━━┳━━┓`)."""
    top = next(line for line in output.splitlines() if line.lstrip().startswith('┏'))
    return [len(part) - 2 for part in top.strip().strip('┏┓').split('┳')]


def column_text(output: str, index: int) -> str:
    """Column `index` of the table's body, its cells joined line after line without spaces."""
    cells = [line.split('│')[index + 1] for line in output.splitlines() if line.lstrip().startswith('│')]
    return ''.join(cell.strip() for cell in cells)


def assert_fits(output: str) -> list[int]:
    assert max(len(line) for line in output.splitlines()) <= WIDTH, output
    widths = column_widths(output)
    assert min(widths) >= NARROWEST, (widths, output)
    return widths


def seed(store: Store) -> list[str]:
    """Two standing agents with long names, schedules and events; each ran once (one failed)."""
    ids = []
    for name, agent in zip(NAMES, (QUICK, GONE), strict=True):
        row = standing_store.create(
            store,
            StandingInput(
                name=name,
                agent=agent,
                instruction='Summarise every ticket opened since the last run',
                cron='0 9 * * 1-5',
                timezone='Europe/Madrid',
                events=['support.ticket_opened', 'support.ticket_escalated'],
                debounce_seconds=300,
                tenant='org:acme-international',
            ),
        )
        run('tasks', 'run', row.id, '--wait')
        ids.append(row.id)
    return ids


def test_the_standing_agents_table_is_legible_at_80_columns(store: Store) -> None:
    ids = seed(store)
    output = run('tasks', 'list')
    assert_fits(output)
    ids_column = column_text(output, 0)
    assert all(one in ids_column for one in ids), output
    for name in NAMES:
        assert all(word in output for word in name.split()), (name, output)
    assert 'succeeded' in output and 'failed' in output


def test_the_runs_table_is_legible_at_80_columns(store: Store) -> None:
    seed(store)
    tasks = queue.list_tasks(store, queue.TaskFilters())
    output = run('tasks', 'list', '--runs')
    assert_fits(output)
    ids_column = column_text(output, 0)
    assert all(task.id in ids_column for task in tasks), output
    assert re.search(r'\bsucceeded\b', output) and re.search(r'\bfailed\b', output), output


def test_a_standing_agents_last_runs_and_a_tasks_log_are_legible_at_80_columns(store: Store) -> None:
    ids = seed(store)
    assert_fits(run('tasks', 'show', ids[1]).split('\n', 4)[-1])
    [task, *_] = queue.list_tasks(store, queue.TaskFilters())
    log = run('tasks', 'show', task.id)
    assert_fits(log[log.index('Log') :])
