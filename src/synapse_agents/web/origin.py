"""Where a request comes from: the connecting peer, the `Host` it names, the page that sent it.

Every parser here is total: a malformed header is an answer (`None`, "not same-origin",
"not local"), never an exception, so a refusal is always a JSON 4xx and never a 500.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import Scope

LOOPBACK_NAMES = frozenset({'localhost', '127.0.0.1', '::1'})
# RFC 3986 reg-name characters (no userinfo, no path): what a Host name may be made of.
_REG_NAME = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=%]+")
_FORWARDING_HEADERS = ('forwarded', 'x-forwarded-for', 'x-real-ip')


def is_loopback_host(host: str) -> bool:
    """Whether `host` (no port) names this machine: localhost, *.localhost or a loopback IP."""
    host = host.strip('[]').lower().rstrip('.')
    if host in LOOPBACK_NAMES or host.endswith('.localhost'):
        return True
    return _is_loopback_address(host)


def _is_loopback_address(text: str) -> bool:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    mapped = getattr(address, 'ipv4_mapped', None)
    return bool(address.is_loopback or (mapped is not None and mapped.is_loopback))


def parse_host(value: str) -> tuple[str, int | None] | None:
    """`(name, port)` from a `Host` header (name lower-cased, IPv6 without brackets), or None.

    None means malformed: empty, an unclosed `[`, more than one `:` outside brackets, a port
    that is not a number in 1-65535, or characters no host name has.
    """
    value = value.strip()
    if value.startswith('['):
        end = value.find(']')
        if end == -1:
            return None
        name, rest = value[1:end], value[end + 1 :]
        try:
            ipaddress.IPv6Address(name.split('%', 1)[0])
        except ValueError:
            return None
        if rest and not rest.startswith(':'):
            return None
        port_text = rest[1:] if rest else None
    else:
        if value.count(':') > 1:
            return None
        name, _, port_text = value.partition(':')
        port_text = port_text if ':' in value else None
        if not _REG_NAME.fullmatch(name):
            return None
    if port_text is None:
        return name.lower().rstrip('.'), None
    if not port_text.isascii() or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        return None
    return name.lower().rstrip('.'), int(port_text)


def local_path(scope: Scope) -> str:
    """The path inside this app: a mounted Synapse sees its mount prefix in `root_path`."""
    path: str = scope.get('path', '/')
    root: str = scope.get('root_path', '')
    if root and path.startswith(root):
        return path[len(root) :] or '/'
    return path


def peer_address(scope: Scope) -> str:
    """The connecting client's address as the ASGI server reports it ('unknown' without one)."""
    client = scope.get('client')
    return str(client[0]) if client else 'unknown'


def peer_is_loopback(scope: Scope) -> bool:
    """Whether the request's connection comes from this machine (the ASGI `client` address).

    No header can make a request local. An ASGI server that rewrites `client` from forwarded
    headers (uvicorn's `--forwarded-allow-ips`) must list only real proxies.
    """
    peer = peer_address(scope)
    return _is_loopback_address(peer)


def forwarded_from_elsewhere(headers: Headers) -> bool:
    """Whether a proxy says it relayed this request for another machine.

    Headers can only make a request less local, never more: a `Forwarded`, `X-Forwarded-For`
    or `X-Real-IP` naming anything but a loopback address (or something unreadable) means a
    proxy on this machine relayed someone else.
    """
    for name in _FORWARDING_HEADERS:
        for value in headers.getlist(name):
            for address in _forwarded_addresses(name, value):
                if not _is_loopback_address(address):
                    return True
    return False


def _forwarded_addresses(name: str, value: str) -> list[str]:
    addresses = []
    for element in value.split(','):
        element = element.strip()
        if name == 'forwarded':
            pairs = [pair.strip() for pair in element.split(';')]
            element = next((p[4:] for p in pairs if p.lower().startswith('for=')), '')
            if not element:
                continue
            element = element.strip('"')
        if element.startswith('['):
            element = element[1 : element.find(']')] if ']' in element else element
        elif element.count(':') == 1:
            element = element.split(':', 1)[0]
        addresses.append(element)
    return addresses


def same_origin(headers: Headers) -> bool:
    """Whether a browser sent this request from a page of this very origin.

    `Sec-Fetch-Site` decides when present; otherwise an `Origin` must name the `Host` (a
    malformed or `null` Origin is not same-origin). Neither header: not a browser, so no CSRF.
    """
    site = headers.get('sec-fetch-site')
    if site is not None:
        return site in ('same-origin', 'none')
    origin = headers.get('origin')
    if origin is None:
        return True
    parsed_origin = _parse_origin(origin)
    host = parse_host(headers.get('host', ''))
    if parsed_origin is None or host is None:
        return False
    scheme, name, port = parsed_origin
    default = {'http': 80, 'https': 443}[scheme]
    host_port = host[1]
    # The Host header carries no scheme: a default port on either side counts as the same.
    if host_port in (80, 443):
        host_port = None
    return (name, None if port == default else port) == (host[0], host_port)


def _parse_origin(origin: str) -> tuple[str, str, int | None] | None:
    try:
        parts = urlsplit(origin)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ('http', 'https') or not parts.hostname:
        return None
    if parts.path or parts.query or parts.fragment or parts.username is not None:
        return None
    return parts.scheme, parts.hostname.lower().rstrip('.'), port
