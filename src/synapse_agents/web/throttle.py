"""Slowing down repeated failed logins: each failure waits longer, and many in a row lock out.

Attempts are counted per connecting address as the ASGI server reports it (`synapse serve` never
takes it from `X-Forwarded-For` unless `trusted_proxies` names the proxy), and per /64 for IPv6,
since one IPv6 host usually holds a whole /64.
"""

from __future__ import annotations

import asyncio
import ipaddress
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field


def throttle_key(address: str) -> str:
    """The bucket failed attempts from `address` count in: the address, or its IPv6 /64."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network(f'{ip}/64', strict=False))
    return str(ip)


@dataclass
class FailureThrottle:
    """Per-client memory of failed attempts within a sliding window.

    The n-th failure in the window is answered after `base_delay * 2**(n-1)` seconds (capped at
    `max_delay`), and once `limit` failures are in the window every further attempt is refused at
    once until the oldest ages out — so guessing a token costs hours, not seconds.
    """

    window: float = 600.0
    limit: int = 20
    base_delay: float = 0.1
    max_delay: float = 3.0
    max_clients: int = 10_000
    clock: Callable[[], float] = time.monotonic
    _failures: dict[str, deque[float]] = field(default_factory=dict)

    def _recent(self, client: str) -> deque[float]:
        now = self.clock()
        failures = self._failures.get(client)
        if failures is None:
            return deque()
        while failures and now - failures[0] > self.window:
            failures.popleft()
        if not failures:
            del self._failures[client]
        return failures

    def count(self, client: str) -> int:
        return len(self._recent(client))

    async def blocked(self, client: str) -> bool:
        """Whether this client has used up its attempts for now."""
        return self.count(client) >= self.limit

    def retry_after(self, client: str) -> int:
        failures = self._recent(client)
        if not failures:
            return 0
        return max(1, int(self.window - (self.clock() - failures[0])) + 1)

    async def fail(self, client: str) -> None:
        """Record a failure and wait before the caller answers it."""
        if client not in self._failures and len(self._failures) >= self.max_clients:
            self._failures.pop(next(iter(self._failures)))
        failures = self._failures.setdefault(client, deque())
        failures.append(self.clock())
        delay = min(self.base_delay * 2 ** (len(failures) - 1), self.max_delay)
        await asyncio.sleep(delay)

    def succeed(self, client: str) -> None:
        self._failures.pop(client, None)
