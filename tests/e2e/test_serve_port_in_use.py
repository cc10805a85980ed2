"""`synapse serve` on a port something else holds: one line and a non-zero exit, before any banner."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path


def test_a_port_in_use_is_one_line_before_the_banner(isolated_env: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(('127.0.0.1', 0))
        holder.listen()
        port = holder.getsockname()[1]
        result = subprocess.run(
            [sys.executable, '-m', 'synapse_agents', 'serve', '--demo', '--port', str(port)],
            cwd=isolated_env,
            env={**os.environ, 'COLUMNS': '200'},
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    assert 'serving on' not in result.stdout
    assert 'Traceback' not in result.stderr and 'Traceback' not in result.stdout
    assert result.stderr.splitlines()[0] == (
        f'Error: port {port} on 127.0.0.1 is already in use: pass --port, or stop what is using it'
    ), result.stderr
