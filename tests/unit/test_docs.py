"""Documentation that is generated from code must match the code."""

from __future__ import annotations

from pathlib import Path

from synapse_agents.settings import settings_markdown

DOCS = Path(__file__).resolve().parents[2] / 'docs'


def test_configuration_doc_lists_every_setting_as_declared() -> None:
    text = (DOCS / 'configuration.md').read_text()
    start = text.index('-->\n', text.index('<!-- settings-table')) + len('-->\n')
    end = text.index('<!-- /settings-table -->')
    assert text[start:end] == settings_markdown(), 'regenerate the table with settings_markdown()'
