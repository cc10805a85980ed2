"""Access control and start-up through real servers: `synapse serve` subprocesses and a host
application mounting Synapse under uvicorn on all interfaces, reached from this machine's own
non-loopback address."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.slow

TOKEN = 'live-token-0123456789abcdef'


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return int(sock.getsockname()[1])


def synapse(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, '-m', 'synapse_agents', *args],
        cwd=cwd,
        env={**os.environ, **env, 'COLUMNS': '200'},
        capture_output=True,
        text=True,
        timeout=60,
    )


def wait_for(url: str, process: subprocess.Popen[str], status: int = 200, **kwargs: Any) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, f'the server exited with {process.returncode}'
        try:
            if httpx.get(url, timeout=1, **kwargs).status_code == status:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError(f'{url} did not answer {status} within 30 s')


def own_address() -> str:
    """This machine's first non-loopback IPv4 address (still this machine)."""
    output = subprocess.run(['hostname', '-I'], capture_output=True, text=True, check=True).stdout
    for address in output.split():
        if '.' in address and not address.startswith('127.'):
            return address
    pytest.fail('this test needs a non-loopback IPv4 address on this machine (hostname -I)')


def test_serve_on_ipv6_loopback_prints_its_url(isolated_env: Path) -> None:
    with socket.socket(socket.AF_INET6) as probe:
        probe.bind(('::1', 0))  # fails loudly where the machine has no IPv6 loopback
    port = free_port()
    log = isolated_env / 'serve.log'
    with log.open('w') as handle:
        process = subprocess.Popen(
            [sys.executable, '-m', 'synapse_agents', 'serve', '--demo', '--host', '::1', '--port', str(port)],
            cwd=isolated_env,
            env={**os.environ, 'PYTHONUNBUFFERED': '1'},
            stdout=handle,
            stderr=subprocess.STDOUT,
            text=True,
        )
    try:
        wait_for(f'http://[::1]:{port}/api/health', process)
        assert f'serving on http://[::1]:{port}/' in log.read_text()
        assert 'access    local only' in log.read_text()
    finally:
        process.terminate()
        process.wait(10)


def test_a_read_only_database_is_one_line(isolated_env: Path) -> None:
    database = isolated_env / 'synapse.db'
    upgraded = synapse(
        'db', 'upgrade', cwd=isolated_env, env={'SYNAPSE_DATABASE_URL': f'sqlite:///{database}'}
    )
    assert upgraded.returncode == 0, upgraded.stderr
    read_only = f'sqlite:///file:{database}?mode=ro&uri=true'
    result = synapse(
        'serve',
        '--demo',
        '--port',
        str(free_port()),
        cwd=isolated_env,
        env={'SYNAPSE_DATABASE_URL': read_only},
    )
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        'Error: could not start the server: (sqlite3.OperationalError) attempt to write a readonly database',
        'Run with --debug for the full traceback.',
    ]
    assert 'Traceback' not in result.stdout


@pytest.mark.parametrize('env', [' production', 'Production ', 'PRODUCTION'])
def test_production_in_any_spelling_needs_the_opt_in(isolated_env: Path, env: str) -> None:
    result = synapse('serve', '--demo', cwd=isolated_env, env={'SYNAPSE_ENV': env})
    assert result.returncode == 1
    assert result.stderr.splitlines()[0].startswith('Error: refusing to run in production')


def test_a_short_token_stops_the_server_with_one_line(isolated_env: Path) -> None:
    result = synapse(
        'serve', '--demo', cwd=isolated_env, env={'SYNAPSE_ENV': 'staging', 'SYNAPSE_TOKEN': 'a'}
    )
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 2 and lines[0].startswith(
        'Error: SYNAPSE_TOKEN is 1 characters long; use at least 16'
    )


def test_the_printed_login_url_works_with_allowed_hosts(live_server: Any) -> None:
    server = live_server(
        ['--demo', '--host', '0.0.0.0'],
        env={'SYNAPSE_ALLOWED_HOSTS': 'synapse.example.test'},
        ready_status=401,
    )
    output = server.output()
    login = next(line for line in output.splitlines() if 'log in' in line).split()[-1]
    token = next(line for line in output.splitlines() if line.strip().startswith('token')).split()[-1]
    assert login == f'{server.url}/login#token={token}' and len(token) >= 32
    with httpx.Client() as browser:
        page = browser.get(login, headers={'Accept': 'text/html'})
        assert page.status_code == 200 and '<form method="post"' in page.text
        response = browser.post(
            f'{server.url}/login', data={'token': token, 'next': '/'}, follow_redirects=False
        )
        assert response.status_code == 303
        assert browser.get(f'{server.url}/api/agents').status_code == 200
    # Another machine still needs a listed name: loopback names are only for this machine.
    other = f'http://{own_address()}:{server.url.rsplit(":", 1)[1]}'
    bearer = {'Authorization': f'Bearer {token}'}
    assert httpx.get(f'{other}/api/health', headers={**bearer, 'Host': '127.0.0.1'}).status_code == 403
    assert (
        httpx.get(f'{other}/api/health', headers={**bearer, 'Host': 'synapse.example.test'}).status_code
        == 200
    )


def bad_attempts(url: str, count: int, forwarded: bool) -> None:
    def attempt(index: int) -> int:
        headers = {'Authorization': 'Bearer wrong-token-0123456789'}
        if forwarded:
            headers['X-Forwarded-For'] = f'198.51.100.{index}'
        return httpx.get(url, headers=headers, timeout=30).status_code

    with ThreadPoolExecutor(count) as pool:
        statuses = list(pool.map(attempt, range(1, count + 1)))
    assert set(statuses) <= {401, 429}


def test_a_forwarded_for_header_does_not_escape_the_login_throttle(live_server: Any) -> None:
    server = live_server(['--demo'], env={'SYNAPSE_ENV': 'staging', 'SYNAPSE_TOKEN': TOKEN}, ready_status=401)
    bad_attempts(server.url + '/api/health', 25, forwarded=True)
    locked = httpx.get(server.url + '/api/health', headers={'Authorization': f'Bearer {TOKEN}'})
    assert locked.status_code == 429 and int(locked.headers['retry-after']) > 0


def test_trusted_proxies_are_believed(live_server: Any) -> None:
    env = {'SYNAPSE_ENV': 'staging', 'SYNAPSE_TOKEN': TOKEN, 'SYNAPSE_TRUSTED_PROXIES': '127.0.0.1'}
    server = live_server(['--demo'], env=env, ready_status=401)
    bad_attempts(server.url + '/api/health', 25, forwarded=True)
    ok = httpx.get(server.url + '/api/health', headers={'Authorization': f'Bearer {TOKEN}'})
    assert ok.status_code == 200


HOST_APP = """
from fastapi import FastAPI
import synapse_agents

app = FastAPI()
synapse_agents.mount(app, '/synapse', demo=True)


@app.get('/hello')
def hello() -> dict[str, str]:
    return {'from': 'host'}
"""


def test_a_mount_without_authorize_on_all_interfaces_answers_only_this_machine(isolated_env: Path) -> None:
    (isolated_env / 'hostapp.py').write_text(HOST_APP)
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, '-m', 'uvicorn', 'hostapp:app', '--host', '0.0.0.0', '--port', str(port)],
        cwd=isolated_env,
        env={
            **os.environ,
            'PYTHONPATH': os.pathsep.join(filter(None, [str(isolated_env), os.environ.get('PYTHONPATH')])),
        },
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        local = f'http://127.0.0.1:{port}'
        wait_for(f'{local}/synapse/api/health', process)
        remote = f'http://{own_address()}:{port}'
        assert httpx.get(f'{remote}/hello').json() == {'from': 'host'}
        for headers in ({'Host': 'localhost'}, {'Host': '127.0.0.1', 'X-Forwarded-For': '127.0.0.1'}):
            refused = httpx.get(f'{remote}/synapse/api/agents', headers=headers)
            assert refused.status_code == 403
            assert 'authorize=' in refused.json()['error']['message']
            assert refused.headers['x-content-type-options'] == 'nosniff'
        chat = httpx.post(
            f'{remote}/synapse/api/agents/synapse_agents.demo.agents.support-agent/chat',
            data={'message': 'hi'},
            headers={'Host': 'localhost'},
        )
        assert chat.status_code == 403
        assert httpx.get(f'{local}/synapse/api/agents').status_code == 200
        relayed = httpx.get(f'{local}/synapse/api/agents', headers={'X-Forwarded-For': '203.0.113.9'})
        assert relayed.status_code == 403
    finally:
        process.terminate()
        process.wait(10)
