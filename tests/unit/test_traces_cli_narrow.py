"""`synapse traces list` in an 80-column terminal: nothing wider than the terminal, no column
squeezed to a character or two, every run id whole (folded over lines if it must)."""

from __future__ import annotations

import anyio
import pytest
import test_traces_cli as traces
from test_tasks_cli_narrow import WIDTH, assert_fits, column_text

from synapse_agents.store import Store

pytestmark = pytest.mark.any_database(reason="what is checked is a table's layout in an 80-column terminal")


@pytest.fixture
def recorded(store: Store, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The two trees `test_traces_cli` records; the CLI reads the test's database, 80 columns wide."""
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
    monkeypatch.setenv('COLUMNS', str(WIDTH))
    return anyio.run(traces._turns, store)


def test_the_roots_table_is_legible_at_80_columns(recorded: dict[str, str]) -> None:
    result = traces.invoke('list')
    assert result.exit_code == 0, result.output
    widths = assert_fits(result.stdout)
    ids = column_text(result.stdout, len(widths) - 1)
    assert recorded['app.outer'] in ids and recorded['app.broken'] in ids, result.stdout
    assert 'app.outer' in result.stdout and 'error' in result.stdout
