"""Login sessions of token mode: random ids held by the server, each with an expiry.

A session cookie carries only a random id. The server keeps the SHA-256 of each live id with its
expiry, so a cookie stops working when it expires, when its user logs out and when the server
process ends (the generated token is per process too). Sessions live in this process's memory:
several server processes do not share them.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.datastructures import Headers
from starlette.types import Scope

from .origin import parse_host

COOKIE_PREFIX = 'synapse_session'
DEFAULT_TTL = 12 * 3600.0


def cookie_name(scope: Scope) -> str:
    """The session cookie's name for the server this request reached.

    Browsers send a host's cookies to every port of it, so the port is in the name: two Synapse
    servers on one machine keep separate sessions instead of overwriting each other's cookie.
    """
    parsed = parse_host(Headers(scope=scope).get('host', ''))
    port = parsed[1] if parsed is not None else None
    if port is None:
        server = scope.get('server')
        port = int(server[1]) if server and server[1] else None
    if port is None:
        port = 443 if scope.get('scheme') == 'https' else 80
    return f'{COOKIE_PREFIX}_{port}'


def _digest(session: str) -> str:
    return hashlib.sha256(session.encode('utf-8', 'surrogateescape')).hexdigest()


@dataclass
class SessionStore:
    """Live sessions: `create` at login, `valid` on each request, `revoke` at logout."""

    ttl: float = DEFAULT_TTL
    max_sessions: int = 10_000
    clock: Callable[[], float] = time.monotonic
    _expiry: dict[str, float] = field(default_factory=dict)

    def create(self) -> str:
        """A new session id (256 random bits), valid for `ttl` seconds."""
        self._forget_expired()
        while len(self._expiry) >= self.max_sessions:
            self._expiry.pop(next(iter(self._expiry)))  # the oldest login goes first
        session = secrets.token_urlsafe(32)
        self._expiry[_digest(session)] = self.clock() + self.ttl
        return session

    def valid(self, session: str) -> bool:
        """Whether `session` is a live session of this server."""
        if not session:
            return False
        key = _digest(session)
        expiry = self._expiry.get(key)
        if expiry is None:
            return False
        if self.clock() >= expiry:
            del self._expiry[key]
            return False
        return True

    def revoke(self, session: str) -> None:
        """End `session` now (logout)."""
        self._expiry.pop(_digest(session), None)

    def __len__(self) -> int:
        self._forget_expired()
        return len(self._expiry)

    def _forget_expired(self) -> None:
        now = self.clock()
        for key in [key for key, expiry in self._expiry.items() if now >= expiry]:
            del self._expiry[key]
