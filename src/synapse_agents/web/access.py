"""Who may use a Synapse server: this machine only, a token, or the host application's own check.

Synapse runs real agents — they spend money and execute tools — so every request passes one
ASGI middleware, `AccessMiddleware`, before it reaches a route:

1. **Host** (local mode, or when `allowed_hosts` is set): the `Host` header must name loopback
   or an allowed host, which defeats DNS rebinding. A malformed `Host` is a 400.
2. **Peer** (local mode): the connection itself must come from this machine — the ASGI
   `client` address is loopback and no forwarding header names another machine. Mounted without
   `authorize`, this is what keeps other machines out.
3. **Authorisation** (token mode: a Bearer header or a live session cookie; mounted mode: the
   application's `authorize(request)`, which must return `True`). Local mode needs none.
4. **Same origin** for state-changing methods and for every token attempt: a browser request
   whose `Sec-Fetch-Site` or `Origin` says it comes from another site is refused (CSRF), before
   it can count as a failed attempt. Non-browser clients send neither header.
"""

from __future__ import annotations

import inspect
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import quote

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from .errors import error_body
from .origin import (
    forwarded_from_elsewhere,
    is_loopback_host,
    local_path,
    parse_host,
    peer_address,
    peer_is_loopback,
    same_origin,
)
from .sessions import DEFAULT_TTL, SessionStore, cookie_name
from .throttle import FailureThrottle, throttle_key

__all__ = [
    'MIN_TOKEN_LENGTH',
    'AccessMiddleware',
    'AccessPolicy',
    'Authorize',
    'SynapseDisabled',
    'ensure_enabled',
    'is_loopback_host',
    'policy_for',
]

logger = logging.getLogger('synapse.web')

Authorize = Callable[[Request], bool | Awaitable[bool]]
AccessMode = Literal['local', 'token', 'authorize']

MIN_TOKEN_LENGTH = 16
SAFE_METHODS = frozenset({'GET', 'HEAD', 'OPTIONS'})
# Paths reachable without authorisation in token mode: the login page, its script and its form.
PUBLIC_PATHS = frozenset({'/login', '/login.js'})
CROSS_SITE = (
    'Cross-site request refused: state-changing requests and logins must come from the Synapse '
    'dashboard itself.'
)


class SynapseDisabled(RuntimeError):
    """Synapse must not run here: production without an explicit opt-in, `enabled = false`, or
    a setting that would leave it open (a token too short to resist guessing)."""


@dataclass
class AccessPolicy:
    """How a server decides who may use it. Build one with `policy_for` or the constructors."""

    mode: AccessMode
    allowed_hosts: frozenset[str] = frozenset()
    token: str | None = None
    token_generated: bool = False
    authorize: Authorize | None = None
    mounted: bool = False
    throttle: FailureThrottle = field(default_factory=FailureThrottle)
    sessions: SessionStore = field(default_factory=SessionStore)

    @classmethod
    def local(cls, allowed_hosts: Iterable[str] = (), *, mounted: bool = False) -> AccessPolicy:
        """No login, for clients on this machine only."""
        return cls('local', _hosts(allowed_hosts), mounted=mounted)

    @classmethod
    def with_token(
        cls, token: str | None, allowed_hosts: Iterable[str] = (), *, session_ttl: float = DEFAULT_TTL
    ) -> AccessPolicy:
        """A token (generated when None) as Bearer header or through the login page's session.

        Raises `SynapseDisabled` for a token shorter than `MIN_TOKEN_LENGTH` characters.
        """
        if token is not None and len(token) < MIN_TOKEN_LENGTH:
            raise SynapseDisabled(
                f'SYNAPSE_TOKEN is {len(token)} characters long; use at least {MIN_TOKEN_LENGTH} '
                '(e.g. python -c "import secrets; print(secrets.token_urlsafe(32))"), '
                'or unset it to have one generated.'
            )
        return cls(
            'token',
            _hosts(allowed_hosts),
            token=token or secrets.token_urlsafe(32),
            token_generated=not token,
            sessions=SessionStore(ttl=session_ttl),
        )

    @classmethod
    def with_authorize(cls, authorize: Authorize, allowed_hosts: Iterable[str] = ()) -> AccessPolicy:
        """The host application's `authorize(request)` decides; only `True` lets a request in."""
        return cls('authorize', _hosts(allowed_hosts), authorize=authorize, mounted=True)

    def token_matches(self, candidate: str) -> bool:
        """Whether `candidate` is this server's token (compared in constant time)."""
        if self.token is None:
            return False
        return secrets.compare_digest(candidate.encode(), self.token.encode())

    def host_allowed(self, host: str, *, peer_local: bool = False) -> bool:
        """Whether a `Host` name (no port) is one this server answers to.

        Loopback names are fine in local mode, in token mode without `allowed_hosts`, and from a
        client on this machine (the printed `http://127.0.0.1:…` URL works however the list reads).
        """
        host = host.strip('[]').lower().rstrip('.')
        if host in self.allowed_hosts or '*' in self.allowed_hosts:
            return True
        if any(p.startswith('*.') and host.endswith(p[1:]) for p in self.allowed_hosts):
            return True
        return (self.mode == 'local' or not self.allowed_hosts or peer_local) and is_loopback_host(host)

    @property
    def checks_host(self) -> bool:
        return self.mode == 'local' or bool(self.allowed_hosts)


def _hosts(names: Iterable[str]) -> frozenset[str]:
    return frozenset(name.strip().lower().rstrip('.') for name in names if name.strip())


def policy_for(
    *,
    env: str,
    bind_host: str,
    token: str | None,
    allowed_hosts: Iterable[str] = (),
    session_ttl: float = DEFAULT_TTL,
) -> AccessPolicy:
    """Local mode when bound to loopback in a local environment; a token everywhere else.

    With `allowed_hosts` set, the address the server is bound to (when it is one address, not
    0.0.0.0) is allowed too, so the URL `synapse serve` prints is always one it answers.
    """
    hosts = list(allowed_hosts)
    if env.strip().lower() == 'local' and is_loopback_host(bind_host):
        return AccessPolicy.local(hosts)
    if hosts and bind_host not in ('0.0.0.0', '::', ''):
        hosts.append(bind_host)
    return AccessPolicy.with_token(token, hosts, session_ttl=session_ttl)


class AccessMiddleware:
    """Applies an `AccessPolicy` to every HTTP request (see the module docstring)."""

    def __init__(self, app: ASGIApp, policy: AccessPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope['type'] != 'http':
            await self.app(scope, receive, send)
            return
        refusal = await self._check(scope, Headers(scope=scope))
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _check(self, scope: Scope, headers: Headers) -> Response | None:
        policy = self.policy
        peer_local = peer_is_loopback(scope) and not forwarded_from_elsewhere(headers)
        if policy.mode == 'local' and not peer_local:
            return _refuse(403, self._not_local_message(scope))
        if policy.checks_host:
            parsed = parse_host(headers.get('host', ''))
            if parsed is None:
                return _refuse(400, f'Malformed Host header {headers.get("host", "")!r}.')
            if not policy.host_allowed(parsed[0], peer_local=peer_local):
                return _refuse(
                    403,
                    f'Host {parsed[0]!r} is not allowed: Synapse answers only to loopback names here '
                    '(add the name to the allowed_hosts setting to use another).',
                )
        if policy.mode == 'token' and local_path(scope) not in PUBLIC_PATHS:
            refusal = await self._check_token(scope, headers)
            if refusal is not None:
                return refusal
        elif policy.mode == 'authorize' and not await self._authorized(scope):
            return _refuse(403, 'Not authorised to use Synapse.')
        if scope['method'] not in SAFE_METHODS and not same_origin(headers):
            return _refuse(403, CROSS_SITE)
        return None

    def _not_local_message(self, scope: Scope) -> str:
        peer = peer_address(scope)
        if self.policy.mounted:
            return (
                f'Synapse is mounted without an authorize check, so it answers only to this machine '
                f'(this request comes from {peer}). Pass authorize=<your check> to '
                'synapse_agents.mount() to decide who may use it.'
            )
        return (
            f'Synapse runs in local mode and answers only to this machine (this request comes from '
            f'{peer}, or was relayed for another machine). Bind to another address to use a token.'
        )

    async def _authorized(self, scope: Scope) -> bool:
        authorize = self.policy.authorize
        assert authorize is not None
        try:
            allowed = authorize(Request(scope))
            if inspect.isawaitable(allowed):
                allowed = await allowed
        except Exception:
            logger.exception('the authorize check raised on %s %s', scope['method'], scope.get('path'))
            return False
        return allowed is True

    async def _check_token(self, scope: Scope, headers: Headers) -> Response | None:
        policy = self.policy
        assert policy.token is not None
        authorization = headers.get('authorization', '')
        if authorization[:7].lower() == 'bearer ':
            if not same_origin(headers):
                return _refuse(403, CROSS_SITE)
            client = throttle_key(peer_address(scope))
            if await policy.throttle.blocked(client):
                return too_many(policy.throttle.retry_after(client))
            if policy.token_matches(authorization[7:].strip()):
                policy.throttle.succeed(client)
                return None
            await policy.throttle.fail(client)
            return _refuse(401, 'Invalid token.')
        if policy.sessions.valid(Request(scope).cookies.get(cookie_name(scope), '')):
            return None
        if _wants_html(scope, headers):
            return RedirectResponse(_login_url(scope), status_code=303)
        return _refuse(401, 'Authorisation required: send "Authorization: Bearer <token>" or log in.')


def _wants_html(scope: Scope, headers: Headers) -> bool:
    path = local_path(scope)
    page = not path.startswith('/api/') or path == '/api/docs'
    return scope['method'] == 'GET' and page and 'text/html' in headers.get('accept', '')


def _login_url(scope: Scope) -> str:
    root: str = scope.get('root_path', '')
    target = local_path(scope)
    query = scope.get('query_string', b'').decode('latin-1')
    if query:
        target += '?' + query
    return f'{root}/login?next={quote(target, safe="")}'


def _refuse(status: int, message: str) -> Response:
    headers = {'WWW-Authenticate': 'Bearer'} if status == 401 else None
    return JSONResponse(error_body(status, message), status_code=status, headers=headers)


def too_many(retry_after: int) -> Response:
    """The 429 answer of a locked-out client."""
    return JSONResponse(
        error_body(429, f'Too many failed attempts; try again in {retry_after} s.'),
        status_code=429,
        headers={'Retry-After': str(retry_after)},
    )


def ensure_enabled(*, env: str, enabled: bool | None) -> None:
    """Refuse to run in production unless `enabled` is explicitly true, or anywhere it is false.

    A forgotten dependency on a production machine must never become an open endpoint that runs
    agents; opting in is one setting, SYNAPSE_ENABLED=true, and authorisation still applies.
    """
    if enabled is False:
        raise SynapseDisabled('Synapse is disabled (SYNAPSE_ENABLED=false).')
    if env.strip().lower() == 'production' and enabled is not True:
        raise SynapseDisabled(
            'refusing to run in production: Synapse runs agents and spends money; '
            'set SYNAPSE_ENABLED=true to opt in.'
        )
