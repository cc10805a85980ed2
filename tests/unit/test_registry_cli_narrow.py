"""`synapse registry list` in an 80-column terminal: nothing wider than the terminal, no header
folded, no column squeezed to a character or two, for each kind with long, realistic entries."""

from __future__ import annotations

import json

import pytest
from test_registry_commands import invoke, on_store  # noqa: F401 (the fixture)
from test_tasks_cli_narrow import WIDTH, assert_fits

pytestmark = pytest.mark.any_database(reason="what is checked is a table's layout in an 80-column terminal")

ENTRIES = {
    'models': {
        'provider_key': 'openai',
        'name': 'gpt-5-mini-2026-04-01',
        'label': 'GPT-5 mini (production, EU data zone)',
        'prices': [{'input_per_mtok': '0.25', 'output_per_mtok': 2}],
    },
    'presets': {'key': 'support-careful-long-answers', 'model': 'openai:gpt-5-mini', 'temperature': 0.2},
    'tones': {
        'key': 'friendly-but-firm',
        'emoji': '🙂',
        'name': 'Friendly but firm',
        'instructions': 'Answer warmly and briefly; use the customer name when known; never promise refunds.',
    },
    'agents': {
        'key': 'support-agent-for-the-eu-shop',
        'name': 'Support agent for the EU shop',
        'preset_key': 'support-careful-long-answers',
        'tone_key': 'friendly-but-firm',
    },
}


@pytest.mark.usefixtures('on_store')
@pytest.mark.parametrize('kind', [*ENTRIES, 'settings'])
def test_each_kind_lists_legibly_at_80_columns(monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    for one, entry in ENTRIES.items():
        code, out, err = invoke('registry', 'add', one, '-', input=json.dumps(entry, ensure_ascii=False))
        assert code == 0, (out, err)
    monkeypatch.setenv('COLUMNS', str(WIDTH))
    code, out, err = invoke('registry', 'list', kind)
    assert code == 0, (out, err)
    assert_fits(out)
    header = ' '.join(line for line in out.splitlines() if line.lstrip().startswith('┃'))
    words = [word for word in header.replace('┃', ' ').split()]
    assert 'key' in words or 'name' in words, out
    assert all(len(word) >= 2 for word in words), out  # no header folded into pieces
