"""`synapse limits list` in an 80-column terminal: nothing wider than the terminal, no header
folded, no column squeezed to a character or two, every limit's id whole (folded if it must)."""

from __future__ import annotations

import pytest
from test_accounting_cli import environment, invoke  # noqa: F401 (the fixture)
from test_tasks_cli_narrow import WIDTH, assert_fits, column_text

from spend_helpers import at, ledger_row, seed
from synapse_agents.store import Store

pytestmark = pytest.mark.any_database(reason="what is checked is a table's layout in an 80-column terminal")

HEADERS = ('Id', 'Scope', 'Amount', 'Headroom')


def test_the_limits_table_is_legible_at_80_columns(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    seed(store, ledger_row(created=at('2020-01-01 00:00'), agent='myshop.agents.support.ticket_summariser'))
    ids = []
    for args in (
        (
            'user',
            'customer:acme-international-1042',
            'calendar_month',
            '1250.75',
            '--timezone',
            'America/Los_Angeles',
        ),
        ('agent', 'myshop.agents.support.ticket_summariser', 'sliding_month', '100', '--currency', 'EUR'),
    ):
        code, output = invoke('limits', 'set', *args)
        assert code == 0, output
        ids.append(output.split()[2].rstrip(':'))
    monkeypatch.setenv('COLUMNS', str(WIDTH))
    code, output = invoke('limits', 'list')
    assert code == 0, output
    assert_fits(output)
    header = next(line for line in output.splitlines() if line.lstrip().startswith('┃'))
    assert all(f' {name} ' in header for name in HEADERS), output
    ids_column = column_text(output, 0)
    assert all(one in ids_column for one in ids), output
