"""The `urls` connector against a real HTTP server on this machine: names from the URL or the
content type, redirects followed, a missing page or a body over the cap failing that file alone,
and the plugin seam finding the kind."""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from synapse_agents.errors import DocumentUnreadable, SourceInvalid
from synapse_agents.plugins import plugin_manager
from synapse_agents.retrieval import url_connector
from synapse_agents.retrieval.connectors import connector_for
from synapse_agents.retrieval.extract import Section, extract
from synapse_agents.retrieval.url_connector import UrlConnector

CAP = 4096

PAGES: dict[str, tuple[int, str, bytes]] = {
    '/docs/guide.md': (200, 'text/plain', b'# Guide\n\nOwls hunt at night.\n'),
    '/about': (
        200,
        'text/html; charset=utf-8',
        b'<html><body><h1>About</h1><p>We count owls.</p></body></html>',
    ),
    '/data': (200, 'application/json', b'{"owls": 3}'),
    '/picture': (200, 'image/png', b'\x89PNG'),
    '/folder/': (200, 'text/html', b'<p>index</p>'),
    '/exactly-the-cap.txt': (200, 'text/plain', b'x' * CAP),
    '/big.txt': (200, 'text/plain', b'x' * (CAP + 1)),
    '/error.txt': (500, 'text/plain', b'broken'),
}


class Handler(BaseHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self) -> None:
        Handler.requests.append(self.path)
        if self.path == '/moved':
            self.send_response(302)
            self.send_header('Location', '/docs/guide.md')
            self.end_headers()
            return
        if self.path == '/endless.txt':  # no Content-Length: the cap must hold while reading
            self.send_response(200)
            self.send_header('Content-Type', 'text/plain')
            self.send_header('Connection', 'close')
            self.end_headers()
            for _ in range(8):
                self.wfile.write(b'y' * 1024)
            return
        if self.path == '/slow.txt':
            self.send_response(200)
            self.send_header('Content-Type', 'text/plain')
            self.end_headers()
            threading.Event().wait(2)
            return
        status, content_type, body = PAGES.get(self.path, (404, 'text/plain', b'not found'))
        self.send_response(status)
        self.send_header('Content-Type', content_type)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    Handler.requests = []
    try:
        yield f'http://127.0.0.1:{httpd.server_address[1]}'
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


URLS = UrlConnector(max_bytes=CAP, timeout_s=1.0)


def files_of(urls: list[str], home: Path) -> dict[str, Any]:
    return {f.identifier: f for f in URLS.files(URLS.check({'urls': urls}, home), home)}


def test_each_url_is_a_file_named_from_its_path_or_its_content_type(server: str, tmp_path: Path) -> None:
    paths = ['/docs/guide.md', '/about', '/data', '/picture', '/folder/']
    files = files_of([server + path for path in paths], tmp_path)
    assert list(files) == [server + path for path in paths]
    assert [f.name for f in files.values()] == [
        'guide.md',
        'about.html',
        'data.json',
        'picture',
        'folder.html',
    ]
    # A name that says its type asks nothing of the server until it is read.
    assert '/docs/guide.md' not in Handler.requests
    guide = files[server + '/docs/guide.md']
    assert extract(guide.name, guide.read()) == [Section('Owls hunt at night.', heading='Guide')]
    about = files[server + '/about']
    assert extract(about.name, about.read()) == [Section('We count owls.', heading='About')]


def test_redirects_are_followed(server: str, tmp_path: Path) -> None:
    (moved,) = files_of([server + '/moved'], tmp_path).values()
    assert moved.name == 'moved.txt'  # the content type of where it led
    assert moved.read() == PAGES['/docs/guide.md'][2]


def test_a_missing_page_fails_its_file_only(server: str, tmp_path: Path) -> None:
    files = files_of([server + '/gone.md', server + '/docs/guide.md', server + '/error.txt'], tmp_path)
    with pytest.raises(DocumentUnreadable, match=f'^{re.escape(server)}/gone\\.md: HTTP 404 Not Found$'):
        files[server + '/gone.md'].read()
    with pytest.raises(DocumentUnreadable, match='HTTP 500'):
        files[server + '/error.txt'].read()
    assert files[server + '/docs/guide.md'].read().startswith(b'# Guide')


def test_a_body_over_the_cap_is_refused_whether_or_not_its_length_is_declared(
    server: str, tmp_path: Path
) -> None:
    files = files_of([server + p for p in ('/exactly-the-cap.txt', '/big.txt', '/endless.txt')], tmp_path)
    assert len(files[server + '/exactly-the-cap.txt'].read()) == CAP
    with pytest.raises(DocumentUnreadable, match=re.escape(f'/big.txt: {CAP + 1} bytes, more than {CAP}')):
        files[server + '/big.txt'].read()
    with pytest.raises(DocumentUnreadable, match=re.escape(f'/endless.txt: more than {CAP} bytes')):
        files[server + '/endless.txt'].read()


def test_a_server_that_does_not_answer_in_time_fails_the_file(server: str, tmp_path: Path) -> None:
    (slow,) = files_of([server + '/slow.txt'], tmp_path).values()
    with pytest.raises(DocumentUnreadable, match=re.escape('/slow.txt: no answer in time')):
        slow.read()


def test_a_closed_port_fails_the_file(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        port = sock.getsockname()[1]
    (closed,) = files_of([f'http://127.0.0.1:{port}/page'], tmp_path).values()
    assert closed.name == 'page'
    with pytest.raises(DocumentUnreadable, match=re.escape(f'http://127.0.0.1:{port}/page: ConnectError')):
        closed.read()


def test_the_config_is_checked_without_the_network(tmp_path: Path) -> None:
    assert URLS.check(
        {'urls': [' https://example.org/a.md ', 'https://example.org/a.md', 'http://x/b']}, tmp_path
    ) == {'urls': ['https://example.org/a.md', 'http://x/b']}


@pytest.mark.parametrize(
    ('config', 'message'),
    [
        ({}, 'urls: a list of at least one'),
        ({'urls': []}, 'urls: a list of at least one'),
        ({'urls': 'https://example.org'}, 'urls: a list of at least one'),
        ({'urls': ['file:///etc/passwd']}, "urls: 'file:///etc/passwd' is not an http or https URL"),
        ({'urls': ['ftp://example.org/a.txt']}, 'is not an http or https URL'),
        ({'urls': ['example.org/page']}, 'is not an http or https URL'),
        ({'urls': ['http:///nohost']}, 'names no host'),
        ({'urls': ['http://example.org:port/']}, 'is not a URL'),
        ({'urls': [3]}, 'urls: 3 is not a URL'),
        ({'urls': ['https://example.org/' + 'a' * 3000]}, 'at most 2048 characters'),
        ({'urls': ['https://example.org'], 'path': '/tmp'}, 'path: not a setting of a urls source'),
    ],
)
def test_a_config_that_cannot_be_used_is_refused(
    tmp_path: Path, config: dict[str, Any], message: str
) -> None:
    with pytest.raises(SourceInvalid, match=message):
        URLS.check(config, tmp_path)


def test_the_module_is_a_plugin_that_connector_for_finds() -> None:
    manager = plugin_manager([url_connector], entry_points=False)
    connector = connector_for('urls', manager)
    assert isinstance(connector, UrlConnector)
    assert (connector.max_bytes, connector.timeout_s) == (25 * 1024 * 1024, 30.0)
