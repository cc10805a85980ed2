"""`synapse db tables`, run as its own process, lists every built-in area's tables: the store
imports no area, so the command loads them itself."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.any_database(reason='lists the metadata, reads no database')

BUILT_IN = {
    # store
    'store_instances',
    # conversations
    'conversations',
    'messages',
    'tool_invocations',
    'log_conversations',
    'log_entries',
    # accounting
    'llm_calls',
    'spending_limits',
    'spending_reservations',
    'spending_overruns',
    # registry
    'registry_providers',
    'registry_models',
    'registry_model_prices',
    'registry_presets',
    'registry_tones',
    'registry_settings',
    'agent_configs',
    'agent_config_versions',
    # tasks
    'standing_agents',
    'standing_agent_events',
    'agent_tasks',
    'agent_logs',
    # traces
    'trace_runs',
    'debug_logs',
    'trace_tools',
    # rules, compression
    'rules',
    'history_summaries',
    # privacy
    'privacy_vaults',
}


def test_every_built_in_table_is_listed_by_a_fresh_process(tmp_path: Path) -> None:
    env = {**os.environ, 'SYNAPSE_HOME': str(tmp_path / '.synapse'), 'COLUMNS': '250'}
    done = subprocess.run(
        [sys.executable, '-m', 'synapse_agents', 'db', 'tables'],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    listed = {line.split('│')[1].strip() for line in done.stdout.splitlines() if line.count('│') >= 3}
    assert listed >= BUILT_IN, BUILT_IN - listed
