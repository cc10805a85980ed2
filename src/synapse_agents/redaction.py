"""Secrets kept out of everything Synapse stores, shows or exports: one copy of the rules.

Two kinds of redaction live here:

- **By name** (`redact`, `redact_url`, `redact_args`): the options of a native tool or an MCP
  server, whose keys name what is secret (`token`, `api_key`, `headers`, `env`, ...), a URL's
  password and query values, a command line's `--api-key X`. The value is replaced by `HIDDEN`.
- **By value** (`scrub`, `scrub_value`): the secrets this process holds, wherever they appear in a
  text, replaced by `REDACTED`. A provider may quote the key it was sent (some do, in a 401's
  body), and that text reaches the error card, the stored message, the trace rows, the OTLP export.
  The set holds every registry API key this process encrypted or decrypted (`encryption`), the
  configured secrets (`settings.remember_settings`: `secret_key`, `token`, the `otel_headers` values, the
  passwords in `database_url` and `queue_url`) and, read at each call, the values of the
  environment variables that name a key, token, secret or password (`OPENAI_API_KEY`, ...).

A secret shorter than `MIN_LENGTH` characters is not looked for (it would blank ordinary words).
Matching is exact, plus the forms a secret takes inside JSON, a Python repr and a URL; a secret the
provider transformed (cut, masked, hashed) cannot be recognised.
"""

from __future__ import annotations

import json
import os
import re
import threading
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

HIDDEN = '********'
"""What replaces a value whose name says it is secret."""
REDACTED = '[redacted]'
"""What replaces a known secret found in a text."""
MIN_LENGTH = 8
"""The shortest secret looked for."""

_SECRET = re.compile(
    r'token(?!s)|secret|password|passwd|api_?key|apikey|\bkey\b|authorization|credential|headers|cookie|\benv\b',
    re.IGNORECASE,
)
_URL = re.compile(r'^[a-z][a-z0-9+.-]*://', re.IGNORECASE)
_SECRET_ENV = re.compile(r'(?:^|_)(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|ACCESS_KEY|PRIVATE_KEY)(?:_|$)')


# -- by name -------------------------------------------------------------------------------


def redact(options: dict[str, Any]) -> dict[str, Any]:
    """Hide values whose key names a secret (tokens, keys, headers, env...), at any depth, and the
    query values and credentials of every URL."""
    return {key: _redacted(key, value) for key, value in options.items()}


def _redacted(key: str, value: Any) -> Any:
    if _SECRET.search(key) and value:
        return HIDDEN
    if isinstance(value, dict):
        return redact({str(k): v for k, v in value.items()})
    if isinstance(value, list | tuple):
        return [_redacted('', item) for item in value]
    if isinstance(value, str) and _URL.match(value):
        return redact_url(value)
    return value


def redact_url(url: str) -> str:
    """`url` with its password and every query value hidden (the names stay)."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname or '', parts.port
    except ValueError:
        return HIDDEN
    user = (
        f'{parts.username}:{HIDDEN}@' if parts.password else (f'{parts.username}@' if parts.username else '')
    )
    netloc = f'{user}{host}:{port}' if port else f'{user}{host}'
    query = '&'.join(
        f'{name}={HIDDEN}' if sep else name
        for name, sep, _ in (item.partition('=') for item in parts.query.split('&') if item)
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, ''))


def redact_args(args: list[str]) -> list[str]:
    """A command line with the values of secret-like flags (`--api-key X`, `--token=X`) and
    variables (`API_KEY=X`) hidden, and the URLs in it redacted."""
    out: list[str] = []
    hide_next = False
    for arg in args:
        if hide_next:
            out.append(HIDDEN)
            hide_next = False
            continue
        name, sep, _ = arg.partition('=')
        if sep and _SECRET.search(name.lstrip('-')):
            out.append(f'{name}={HIDDEN}')
        elif arg.startswith('-') and _SECRET.search(arg.lstrip('-')):
            out.append(arg)
            hide_next = True
        else:
            out.append(redact_url(arg) if _URL.match(arg) else arg)
    return out


def mask_password(url: str) -> str:
    """`url` with its password, and the query values whose names say they are secret, shown as
    `***` (as the start-up banner shows the database); the rest is left as written."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return url
    netloc = parts.netloc
    if password:
        credentials, _, host = netloc.rpartition('@')
        user = credentials.partition(':')[0]
        netloc = f'{user}:***@{host}'
    query = '&'.join(
        f'{name}=***' if sep and _SECRET.search(name) else f'{name}{sep}{value}'
        for name, sep, value in (item.partition('=') for item in parts.query.split('&') if item)
    )
    if netloc == parts.netloc and query == parts.query:
        return url  # urlunsplit would drop the empty host of `sqlite:////path`
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def url_password(url: str | None) -> str | None:
    """The password in a URL such as `database_url` (None without one)."""
    if not url:
        return None
    try:
        return urlsplit(url).password or None
    except ValueError:
        return None


# -- by value ------------------------------------------------------------------------------


class _Secrets:
    """The secrets this process holds, and one compiled pattern that finds any of them."""

    def __init__(self) -> None:
        self._known: set[str] = set()
        self._lock = threading.Lock()
        self._pattern: tuple[frozenset[str], re.Pattern[str] | None] = (frozenset(), None)

    def add(self, secret: str) -> None:
        if len(secret) >= MIN_LENGTH:
            with self._lock:
                self._known.add(secret)

    def clear(self) -> None:
        with self._lock:
            self._known.clear()

    def pattern(self) -> re.Pattern[str] | None:
        with self._lock:
            wanted = frozenset(self._known | _environment_secrets())
            cached, compiled = self._pattern
            if wanted == cached:
                return compiled
            forms = {form for secret in wanted for form in _forms(secret)}
            ordered = sorted(forms, key=len, reverse=True)  # the longest form wins where two overlap
            compiled = re.compile('|'.join(map(re.escape, ordered))) if ordered else None
            self._pattern = (wanted, compiled)
            return compiled


def _forms(secret: str) -> set[str]:
    """The ways a secret is written inside a JSON string, a Python repr or a URL."""
    return {secret, json.dumps(secret)[1:-1], repr(secret)[1:-1], quote(secret, safe='')}


_environment: tuple[frozenset[object] | None, frozenset[str]] = (None, frozenset())


def _environment_secrets() -> frozenset[str]:
    """The values of the environment variables that name a secret, read again only when the
    environment changed (reading `os.environ` whole decodes every entry: too slow for each text)."""
    global _environment
    raw = getattr(os.environ, '_data', None)
    fingerprint = frozenset(raw.items()) if isinstance(raw, dict) else None
    seen, secrets = _environment
    if fingerprint is None or fingerprint != seen:
        secrets = frozenset(
            value
            for name, value in os.environ.items()
            if len(value) >= MIN_LENGTH and _SECRET_ENV.search(name.upper())
        )
        _environment = (fingerprint, secrets)
    return secrets


_SECRETS = _Secrets()


def remember(*secrets: str | None) -> None:
    """Look for these secrets from now on (None, empty and short ones are ignored)."""
    for secret in secrets:
        if secret:
            _SECRETS.add(secret)


def forget_all() -> None:
    """Forget every secret remembered so far (the environment's are still read): for a process
    that starts over with other settings, such as one test after another."""
    _SECRETS.clear()


def remember_headers(value: str | None) -> None:
    """The values of headers in the `key=value,key2=value2` form, and their last word."""
    for item in (value or '').split(','):
        _, sep, header = item.partition('=')
        if sep and header.strip():
            remember(header.strip(), header.split()[-1])


def scrub(text: str) -> str:
    """`text` with every secret this process holds replaced by `REDACTED`."""
    if not text:
        return text
    pattern = _SECRETS.pattern()
    return text if pattern is None else pattern.sub(REDACTED, text)


def scrub_value(value: Any) -> Any:
    """`value` (text, or JSON-like data at any depth: dicts, lists, tuples) with every secret this
    process holds replaced; anything else is returned as it is."""
    pattern = _SECRETS.pattern()
    return value if pattern is None else _scrubbed(pattern, value)


def _scrubbed(pattern: re.Pattern[str], value: Any) -> Any:
    if isinstance(value, str):
        return pattern.sub(REDACTED, value) if value else value
    if isinstance(value, dict):  # keys are names (`gen_ai.request.model`), never where a secret is quoted
        return {key: _scrubbed(pattern, item) for key, item in value.items()}
    if isinstance(value, list):
        return [_scrubbed(pattern, item) for item in value]
    if isinstance(value, tuple):
        return tuple(_scrubbed(pattern, item) for item in value)
    return value
