"""The `urls` kind of retrieval source: a list of web pages and files, fetched over HTTP(S).

This module is also the example of writing a connector. A connector is any object with a `kind`
(a slug), a `label`, `check(config, home)` and `files(config, home)` (the `Connector` protocol of
`synapse_agents.retrieval.connectors`); a plugin hands it to Synapse from the
`register_rag_connectors` hook:

    from synapse_agents.plugins import hookimpl

    @hookimpl
    def register_rag_connectors():
        return [MyConnector()]

and a package makes that module a plugin with an entry point in its `pyproject.toml`:

    [project.entry-points."synapse_agents.plugins"]
    my_connector = "my_package.synapse_connector"

`check` answers the config to store, or raises `SourceInvalid` naming the field at fault; it does
not reach the network. `files` yields one `SourceFile` per document: its `identifier` is stable
(here the URL), its `name` ends with a suffix the parsers read, and `read()` fetches the bytes only
when the indexer asks, raising `DocumentUnreadable` when that one document cannot be had, so one
failing URL fails its file and not the source.

Here: config `{"urls": ["https://..."]}` (http and https only); each URL is fetched with httpx
(redirects followed, a 30 s timeout, at most `max_bytes`, 25 MB by default). A file's name is the
last part of the URL's path when that names a type the parsers read (`guide.md`); otherwise one
request reads the response's content type and the name gets the matching suffix (a page at
`https://example.com/about` becomes `about.html`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx

from ..errors import DocumentUnreadable, SourceInvalid
from ..plugins.hookspecs import hookimpl
from .connectors import Connector, SourceFile
from .extract import SUPPORTED

MAX_BYTES = 25 * 1024 * 1024
"""The largest document fetched, in bytes (the `rag_max_file_bytes` setting's default)."""
TIMEOUT_S = 30.0
MAX_URLS = 1000
MAX_URL_LENGTH = 2048

# The suffix a document gets from its content type when its URL's path names none the parsers read.
SUFFIXES = {
    'text/html': '.html',
    'application/xhtml+xml': '.html',
    'text/markdown': '.md',
    'text/x-markdown': '.md',
    'text/plain': '.txt',
    'text/csv': '.csv',
    'application/json': '.json',
    'application/pdf': '.pdf',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document': '.docx',
}


class UrlConnector:
    """Documents at URLs: config `{"urls": [...]}`; one `SourceFile` per URL, fetched when read."""

    kind = 'urls'
    label = 'Web pages (URLs)'

    def __init__(self, *, max_bytes: int = MAX_BYTES, timeout_s: float = TIMEOUT_S) -> None:
        self.max_bytes = max_bytes
        self.timeout_s = timeout_s

    def check(self, config: dict[str, Any], home: Path) -> dict[str, Any]:
        extra = sorted(set(config) - {'urls'})
        if extra:
            raise SourceInvalid(f'{extra[0]}: not a setting of a urls source (it has: urls)')
        urls = config.get('urls')
        if isinstance(urls, str) or not isinstance(urls, list | tuple) or not urls:
            raise SourceInvalid('urls: a list of at least one http or https URL')
        if len(urls) > MAX_URLS:
            raise SourceInvalid(f'urls: at most {MAX_URLS} URLs in one source, not {len(urls)}')
        checked: list[str] = []
        for url in urls:
            checked_url = _checked_url(url)
            if checked_url not in checked:
                checked.append(checked_url)
        return {'urls': checked}

    def files(self, config: dict[str, Any], home: Path) -> Iterator[SourceFile]:
        urls: list[str] = self.check(config, home)['urls']
        with self._client() as client:
            for url in urls:
                yield SourceFile(identifier=url, name=self._name(client, url), read=partial(self.fetch, url))

    def fetch(self, url: str) -> bytes:
        """The body at `url`, or `DocumentUnreadable` naming it: an HTTP error status, a failed
        connection or timeout, or a body over `max_bytes`."""
        with self._client() as client:
            try:
                with client.stream('GET', url) as response:
                    _raise_for_status(url, response)
                    declared = response.headers.get('content-length', '')
                    if declared.isdigit() and int(declared) > self.max_bytes:
                        raise DocumentUnreadable(f'{url}: {int(declared)} bytes, more than {self.max_bytes}')
                    body = bytearray()
                    for piece in response.iter_bytes():
                        body.extend(piece)
                        if len(body) > self.max_bytes:
                            raise DocumentUnreadable(f'{url}: more than {self.max_bytes} bytes')
                    return bytes(body)
            except httpx.HTTPError as exc:
                raise DocumentUnreadable(f'{url}: {_http_reason(exc)}') from exc

    def _client(self) -> httpx.Client:
        return httpx.Client(follow_redirects=True, timeout=self.timeout_s, headers={'Accept': '*/*'})

    def _name(self, client: httpx.Client, url: str) -> str:
        """The file name for `url`: its path's last part when that names a type the parsers read,
        else that part (or the host) with the suffix of the content type the server answers."""
        parts = urlsplit(url)
        last = unquote(PurePosixPath(parts.path).name) or parts.hostname or 'index'
        if PurePosixPath(last).suffix.lower() in SUPPORTED:
            return last
        try:
            with client.stream('GET', url) as response:  # the headers only: the body is not read
                content_type = response.headers.get('content-type', '')
        except httpx.HTTPError:
            return last  # reading it fails too, and says why
        media = content_type.split(';', 1)[0].strip().lower()
        return f'{last}{SUFFIXES.get(media, "")}'


def _checked_url(url: object) -> str:
    if not isinstance(url, str) or not url.strip():
        raise SourceInvalid(f'urls: {url!r} is not a URL')
    url = url.strip()
    if len(url) > MAX_URL_LENGTH:
        raise SourceInvalid(f'urls: a URL of at most {MAX_URL_LENGTH} characters, not {len(url)}')
    try:
        parts = urlsplit(url)
        _ = parts.port  # a port that is not a number raises here
    except ValueError as exc:
        raise SourceInvalid(f'urls: {url!r} is not a URL ({exc})') from exc
    if parts.scheme.lower() not in ('http', 'https'):
        raise SourceInvalid(f'urls: {url!r} is not an http or https URL')
    if not parts.hostname:
        raise SourceInvalid(f'urls: {url!r} names no host')
    return url


def _raise_for_status(url: str, response: httpx.Response) -> None:
    if response.status_code >= 400:
        reason = f' {response.reason_phrase}' if response.reason_phrase else ''
        raise DocumentUnreadable(f'{url}: HTTP {response.status_code}{reason}')


def _http_reason(exc: httpx.HTTPError) -> str:
    if isinstance(exc, httpx.TimeoutException):
        return 'no answer in time'
    if isinstance(exc, httpx.TooManyRedirects):
        return 'too many redirects'
    text = str(exc).strip()
    return f'{type(exc).__name__}: {text}' if text else type(exc).__name__


@hookimpl
def register_rag_connectors() -> Sequence[Connector]:
    """The `urls` kind."""
    return [UrlConnector()]
