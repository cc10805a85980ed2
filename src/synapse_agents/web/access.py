"""Who may use a Synapse server: loopback only, a token, or the host application's own check.

Synapse runs real agents — they spend money and execute tools — so every request passes one
ASGI middleware, `AccessMiddleware`, before it reaches a route:

1. **Host** (local mode, or when `allowed_hosts` is set): the `Host` header must name loopback
   or an allowed host, which defeats DNS rebinding.
2. **Authorisation** (token mode: a Bearer header or the session cookie; mounted mode: the
   application's `authorize(request)` callable). Local mode needs none.
3. **Same origin** for state-changing methods: a browser request whose `Sec-Fetch-Site` or
   `Origin` says it comes from another site is refused (CSRF). Requests from non-browser clients
   carry neither header and are judged by step 2 alone.
"""

from __future__ import annotations

import hashlib
import hmac
import inspect
import ipaddress
import secrets
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from .errors import error_body
from .throttle import FailureThrottle

Authorize = Callable[[Request], bool | Awaitable[bool]]
AccessMode = Literal['local', 'token', 'authorize']

SESSION_COOKIE = 'synapse_session'
LOOPBACK_NAMES = frozenset({'localhost', '127.0.0.1', '::1'})
SAFE_METHODS = frozenset({'GET', 'HEAD', 'OPTIONS'})
# Paths reachable without authorisation in token mode: the login page and its form.
PUBLIC_PATHS = frozenset({'/login'})


def is_loopback_host(host: str) -> bool:
    """Whether `host` (no port) names this machine: localhost, *.localhost or a loopback IP."""
    host = host.strip('[]').lower().rstrip('.')
    if host in LOOPBACK_NAMES or host.endswith('.localhost'):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def session_value(token: str) -> str:
    """The session cookie for `token`: derived from it, so the cookie cannot be used as the token."""
    return hmac.new(token.encode(), b'synapse-session-v1', hashlib.sha256).hexdigest()


@dataclass
class AccessPolicy:
    """How a server decides who may use it. Build one with `policy_for` or the constructors."""

    mode: AccessMode
    allowed_hosts: frozenset[str] = frozenset()
    token: str | None = None
    token_generated: bool = False
    authorize: Authorize | None = None
    throttle: FailureThrottle = field(default_factory=FailureThrottle)

    @classmethod
    def local(cls, allowed_hosts: Iterable[str] = ()) -> AccessPolicy:
        return cls('local', frozenset(h.lower() for h in allowed_hosts))

    @classmethod
    def with_token(cls, token: str | None, allowed_hosts: Iterable[str] = ()) -> AccessPolicy:
        generated = not token
        return cls(
            'token',
            frozenset(h.lower() for h in allowed_hosts),
            token=token or secrets.token_urlsafe(32),
            token_generated=generated,
        )

    @classmethod
    def with_authorize(cls, authorize: Authorize, allowed_hosts: Iterable[str] = ()) -> AccessPolicy:
        return cls('authorize', frozenset(h.lower() for h in allowed_hosts), authorize=authorize)

    def host_allowed(self, host: str) -> bool:
        host = host.strip('[]').lower().rstrip('.')
        if host in self.allowed_hosts or '*' in self.allowed_hosts:
            return True
        if any(p.startswith('*.') and host.endswith(p[1:]) for p in self.allowed_hosts):
            return True
        # Loopback names are always fine in local mode; elsewhere only when listed or unrestricted.
        return (self.mode == 'local' or not self.allowed_hosts) and is_loopback_host(host)

    @property
    def checks_host(self) -> bool:
        return self.mode == 'local' or bool(self.allowed_hosts)


def policy_for(
    *, env: str, bind_host: str, token: str | None, allowed_hosts: Iterable[str] = ()
) -> AccessPolicy:
    """Local mode when bound to loopback in a local environment; a token everywhere else."""
    if env.lower() == 'local' and is_loopback_host(bind_host):
        return AccessPolicy.local(allowed_hosts)
    return AccessPolicy.with_token(token, allowed_hosts)


class AccessMiddleware:
    """Applies an `AccessPolicy` to every HTTP request (see the module docstring)."""

    def __init__(self, app: ASGIApp, policy: AccessPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope['type'] != 'http':
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal = await self._check(scope, headers)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _check(self, scope: Scope, headers: Headers) -> Response | None:
        policy = self.policy
        host = _host_name(headers.get('host', ''))
        if policy.checks_host and not policy.host_allowed(host):
            return _refuse(
                scope,
                403,
                f'Host {host!r} is not allowed: Synapse answers only to loopback names here '
                '(add the name to the allowed_hosts setting to use another).',
            )
        path = _local_path(scope)
        if policy.mode == 'token' and path not in PUBLIC_PATHS:
            refusal = await self._check_token(scope, headers)
            if refusal is not None:
                return refusal
        elif policy.mode == 'authorize':
            assert policy.authorize is not None
            allowed = policy.authorize(Request(scope))
            if inspect.isawaitable(allowed):
                allowed = await allowed
            if not allowed:
                return _refuse(scope, 403, 'Not authorised to use Synapse.')
        if scope['method'] not in SAFE_METHODS and not _same_origin(headers):
            return _refuse(
                scope,
                403,
                'Cross-site request refused: state-changing requests must come from the Synapse '
                'dashboard itself.',
            )
        return None

    async def _check_token(self, scope: Scope, headers: Headers) -> Response | None:
        policy = self.policy
        assert policy.token is not None
        client = _client_key(scope)
        authorization = headers.get('authorization', '')
        cookie = Request(scope).cookies.get(SESSION_COOKIE, '')
        if authorization.lower().startswith('bearer '):
            if await policy.throttle.blocked(client):
                return _too_many(scope, policy.throttle.retry_after(client))
            if secrets.compare_digest(authorization[7:].strip().encode(), policy.token.encode()):
                policy.throttle.succeed(client)
                return None
            await policy.throttle.fail(client)
            return _refuse(scope, 401, 'Invalid token.')
        if cookie and secrets.compare_digest(cookie.encode(), session_value(policy.token).encode()):
            return None
        if _wants_html(scope, headers):
            return RedirectResponse(_login_url(scope), status_code=303)
        return _refuse(scope, 401, 'Authorisation required: send "Authorization: Bearer <token>" or log in.')


def _host_name(host_header: str) -> str:
    if host_header.startswith('['):
        return host_header[1 : host_header.find(']')] if ']' in host_header else host_header
    return host_header.rsplit(':', 1)[0] if host_header.count(':') == 1 else host_header


def _local_path(scope: Scope) -> str:
    """The path inside this app (a mounted app sees its prefix in root_path)."""
    path: str = scope.get('path', '/')
    root: str = scope.get('root_path', '')
    return path[len(root) :] or '/' if root and path.startswith(root) else path


def _same_origin(headers: Headers) -> bool:
    site = headers.get('sec-fetch-site')
    if site is not None:
        return site in ('same-origin', 'none')
    origin = headers.get('origin')
    if origin is None:
        return True
    if origin == 'null':
        return False
    parts = urlsplit(origin)
    return _netloc(parts.hostname or '', parts.port, parts.scheme) == _netloc_of_host(headers.get('host', ''))


def _netloc(host: str, port: int | None, scheme: str) -> str:
    default = {'http': 80, 'https': 443}.get(scheme)
    host = host.lower()
    return host if port in (None, default) else f'{host}:{port}'


def _netloc_of_host(host_header: str) -> str:
    parts = urlsplit(f'//{host_header}')
    try:
        port = parts.port
    except ValueError:
        return host_header.lower()
    # The Host header carries no scheme; a default port on either side counts as the same.
    return _netloc(parts.hostname or '', None if port in (80, 443) else port, 'http')


def _client_key(scope: Scope) -> str:
    client = scope.get('client')
    return str(client[0]) if client else 'unknown'


def _wants_html(scope: Scope, headers: Headers) -> bool:
    path = _local_path(scope)
    return (
        scope['method'] == 'GET' and not path.startswith('/api/') and 'text/html' in headers.get('accept', '')
    )


def _login_url(scope: Scope) -> str:
    from urllib.parse import quote

    root: str = scope.get('root_path', '')
    target = _local_path(scope)
    query = scope.get('query_string', b'').decode('latin-1')
    if query:
        target += '?' + query
    return f'{root}/login?next={quote(target, safe="")}'


def _refuse(scope: Scope, status: int, message: str) -> Response:
    headers = {'WWW-Authenticate': 'Bearer'} if status == 401 else None
    return JSONResponse(error_body(status, message), status_code=status, headers=headers)


def _too_many(scope: Scope, retry_after: int) -> Response:
    return JSONResponse(
        error_body(429, f'Too many failed attempts; try again in {retry_after} s.'),
        status_code=429,
        headers={'Retry-After': str(retry_after)},
    )


class SynapseDisabled(RuntimeError):
    """Synapse must not run here: production without an explicit opt-in, or `enabled = false`."""


def ensure_enabled(*, env: str, enabled: bool | None) -> None:
    """Refuse to run in production unless `enabled` is explicitly true, or anywhere it is false.

    A forgotten dependency on a production machine must never become an open endpoint that runs
    agents; opting in is one setting, SYNAPSE_ENABLED=true, and authorisation still applies.
    """
    if enabled is False:
        raise SynapseDisabled('Synapse is disabled (SYNAPSE_ENABLED=false).')
    if env.lower() == 'production' and enabled is not True:
        raise SynapseDisabled(
            'refusing to run in production: Synapse runs agents and spends money; '
            'set SYNAPSE_ENABLED=true to opt in.'
        )
