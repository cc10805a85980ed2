"""Starting a server for a benchmark: wait until it answers, or fail with what it printed."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import httpx


def free_port() -> int:
    """A TCP port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        port: int = probe.getsockname()[1]
        return port


def wait_until_up(
    process: subprocess.Popen[bytes], url: str, *, log: Path | None = None, timeout: float = 30
) -> str:
    """`url` once `GET /api/health` answers 200; kills `process` and raises (with the end of `log`)
    when it exits or `timeout` passes first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if httpx.get(url + '/api/health', timeout=1).status_code == 200:
                return url
        except httpx.HTTPError:
            pass  # not listening yet
        time.sleep(0.1)
    process.kill()
    output = log.read_text()[-2000:] if log is not None and log.exists() else ''
    raise RuntimeError(f'the server at {url} did not start' + (f':\n{output}' if output else ''))
