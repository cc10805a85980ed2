"""Every CLI command once as a real subprocess, and `synapse serve` answering over HTTP."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from synapse_agents import __version__
from synapse_agents.store import head_revision


def synapse(
    *args: str, cwd: Path, env: dict[str, str] | None = None, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, '-m', 'synapse_agents', *args],
        cwd=cwd,
        env={**os.environ, **(env or {}), 'COLUMNS': '200'},
        input=input,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_every_command_as_a_subprocess(isolated_env: Path) -> None:
    assert synapse('--version', cwd=isolated_env).stdout.strip() == f'synapse {__version__}'
    result = synapse('init', cwd=isolated_env)
    assert result.returncode == 0 and (isolated_env / 'agents' / 'assistant.py').exists()
    result = synapse('settings', '--json', cwd=isolated_env)
    assert result.returncode == 0 and '"port"' in result.stdout
    result = synapse('db', 'upgrade', cwd=isolated_env)
    assert result.returncode == 0 and head_revision() in result.stdout
    result = synapse('db', 'current', cwd=isolated_env)
    assert result.returncode == 0 and 'up to date' in result.stdout
    result = synapse('prune', '--yes', cwd=isolated_env)
    assert result.returncode == 0 and 'Nothing to prune' in result.stdout
    result = synapse('clear', cwd=isolated_env, input='')
    assert result.returncode == 1 and 'pass --yes' in result.stderr, result.stderr
    result = synapse('clear', '--yes', cwd=isolated_env)
    assert result.returncode == 0 and 'Removed 0 conversations' in result.stdout


def test_failure_exit_code_and_single_line(isolated_env: Path) -> None:
    result = synapse('db', 'current', cwd=isolated_env, env={'SYNAPSE_DATABASE_URL': 'oracle://x/y'})
    assert result.returncode == 1
    assert result.stderr.splitlines()[0] == "Error: unsupported database 'oracle': use SQLite or PostgreSQL"


def test_serve_answers_health_from_embedded_sqlite(live_server, isolated_env: Path) -> None:  # type: ignore[no-untyped-def]
    server = live_server(['--demo'])
    health = httpx.get(server.url + '/api/health').json()
    assert health['database'] == 'sqlite'
    assert health['revision'] == head_revision()
    assert (isolated_env.parent / 'home' / 'synapse.db').exists()
    assert 'serving on' in server.output()


@pytest.mark.postgresql
def test_db_upgrade_against_postgresql(isolated_env: Path, request: pytest.FixtureRequest) -> None:
    if request.config.getoption('--db') == 'sqlite':
        pytest.skip('PostgreSQL tests run with --db postgresql or --db all')
    url = request.getfixturevalue('postgres_database')
    env = {'SYNAPSE_DATABASE_URL': url}
    result = synapse('db', 'upgrade', cwd=isolated_env, env=env)
    assert result.returncode == 0, result.stderr
    assert 'postgresql' in result.stdout
    result = synapse('db', 'current', cwd=isolated_env, env=env)
    assert 'up to date' in result.stdout
