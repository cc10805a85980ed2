"""Every CLI command once as a real subprocess, and `synapse serve` answering over HTTP."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

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


def test_db_upgrade_on_each_database(
    isolated_env: Path, dialect: str, request: pytest.FixtureRequest
) -> None:
    if dialect == 'postgresql':
        url = request.getfixturevalue('empty_postgres_database')
    else:
        url = f'sqlite:///{isolated_env / "elsewhere.db"}'
    env = {'SYNAPSE_DATABASE_URL': url}
    result = synapse('db', 'current', cwd=isolated_env, env=env)
    assert result.returncode == 0 and 'revision none' in result.stdout
    result = synapse('db', 'upgrade', cwd=isolated_env, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f'{dialect}: upgraded from an empty database to {head_revision()}')
    result = synapse('db', 'current', cwd=isolated_env, env=env)
    assert 'up to date' in result.stdout


def test_serve_refuses_production_without_opt_in(isolated_env: Path) -> None:
    result = synapse('serve', '--demo', cwd=isolated_env, env={'SYNAPSE_ENV': 'production'})
    assert result.returncode == 1
    assert result.stderr.splitlines()[0] == (
        'Error: refusing to run in production: Synapse runs agents and spends money; '
        'set SYNAPSE_ENABLED=true to opt in.'
    )


def test_serve_outside_local_prints_a_login_url_and_requires_it(live_server: Any, isolated_env: Path) -> None:
    server = live_server(['--demo'], env={'SYNAPSE_ENV': 'staging'}, ready_status=401)
    login = next(line for line in server.output().splitlines() if 'log in' in line).split()[-1]
    token = login.split('#token=', 1)[1]
    assert len(token) >= 32
    assert httpx.get(server.url + '/api/health').status_code == 401
    assert httpx.get(server.url + '/api/agents', headers={'Authorization': 'Bearer nope'}).status_code == 401
    bearer = httpx.get(server.url + '/api/health', headers={'Authorization': f'Bearer {token}'})
    assert bearer.status_code == 200
    with httpx.Client(base_url=server.url) as browser:
        response = browser.post('/login', data={'token': token}, follow_redirects=True)
        assert response.status_code in (200, 503)  # the dashboard, or the "not built" page
        assert browser.get('/api/agents').status_code == 200
