"""`synapse registry` as a real subprocess, and the registry API of a real `synapse serve`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx

API_KEY = 'sk-live-Hq2mN8vB4xZ6cW1eR3tY5uI7'


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


def test_the_registry_commands_as_subprocesses(isolated_env: Path) -> None:
    old = synapse('registry', 'new-key', cwd=isolated_env).stdout.strip()
    new = synapse('registry', 'new-key', cwd=isolated_env).stdout.strip()
    assert old and new and old != new

    refused = synapse(
        'registry',
        'add',
        'providers',
        '-',
        cwd=isolated_env,
        input=f'key: p\nkind: openai\napi_key: {API_KEY}\n',
    )
    assert refused.returncode == 1
    assert refused.stderr.splitlines()[0].startswith('Error: api_key: an API key cannot be stored')

    env = {'SYNAPSE_SECRET_KEY': old}
    added = synapse(
        'registry',
        'add',
        'providers',
        '-',
        cwd=isolated_env,
        env=env,
        input=f'key: p\nkind: openai\napi_key: {API_KEY}\n',
    )
    assert added.returncode == 0, added.stderr
    listed = synapse('registry', 'list', 'providers', '--json', cwd=isolated_env, env=env)
    [provider] = json.loads(listed.stdout)['providers']
    assert provider['secret_last4'] == API_KEY[-4:] and API_KEY not in listed.stdout

    rotated = synapse('registry', 'rotate-key', cwd=isolated_env, env={'SYNAPSE_SECRET_KEY': f'{new},{old}'})
    assert rotated.returncode == 0 and 'Re-encrypted 1 stored secrets' in rotated.stdout
    stale = synapse('registry', 'rotate-key', cwd=isolated_env, env={'SYNAPSE_SECRET_KEY': old})
    assert stale.returncode == 1 and "provider 'p'" in stale.stderr
    assert len(stale.stderr.strip().splitlines()) == 1

    database = (isolated_env.parent / 'home' / 'synapse.db').read_bytes()
    assert API_KEY.encode() not in database

    stored = synapse(
        'registry', 'edit', 'settings', 'retention_days', '-', cwd=isolated_env, input='value: 3'
    )
    assert stored.returncode == 0
    settings = json.loads(synapse('settings', '--json', cwd=isolated_env).stdout)
    assert settings['retention_days'] == {'value': 3, 'source': 'registry'}

    unknown = synapse('registry', 'list', 'gadgets', cwd=isolated_env)
    assert unknown.returncode == 2


def test_serve_answers_the_registry_api(live_server, isolated_env: Path) -> None:  # type: ignore[no-untyped-def]
    server = live_server([])
    areas = httpx.get(server.url + '/api/extensions').json()['areas']
    assert {'name': 'registry', 'path': '/registry', 'label': 'Registry'} in areas
    created = httpx.post(server.url + '/api/registry/tones', json={'key': 'warm', 'emoji': '🌞'})
    assert created.status_code == 201, created.text
    assert [t['key'] for t in httpx.get(server.url + '/api/registry/tones').json()['tones']] == ['warm']
