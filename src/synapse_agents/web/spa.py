"""Serving the dashboard: the single-page app built into ``web/static/`` by ``make frontend``.

Every path outside ``/api`` is the SPA's: a file of the build when one matches, otherwise
``index.html`` so that client routes (``/agents/x/c/y``, ``/history?page=2``) survive a reload.
``/api`` is never answered here, so an unknown API route stays a JSON 404 (or 405) from FastAPI.

Mounted under a prefix (``synapse_agents.mount(app, '/synapse')``), ``index.html`` is served with
its asset URLs prefixed and a ``synapse-base`` meta tag, from which the app takes the base of its
API calls and of its routes.

Caching: the files under ``assets/`` carry a content hash in their names and never change, so
they are cached for a year as immutable; ``index.html`` and the unhashed files beside it
(``theme.js``, the icon) are revalidated on every load, so a new build shows up at once.

A source checkout without a build gets a page that says how to make one, instead of a 404.
"""

from __future__ import annotations

import html
import mimetypes
import re
from pathlib import Path, PurePosixPath
from typing import Any

from fastapi import FastAPI
from starlette.datastructures import URLPath
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import BaseRoute, Match, NoMatchFound
from starlette.types import Receive, Scope, Send

from .errors import error_response
from .origin import local_path

STATIC_DIR = Path(__file__).parent / 'static'
"""Where `npm run build` (in ``frontend/``) writes the dashboard."""

IMMUTABLE = 'public, max-age=31536000, immutable'
REVALIDATE = 'no-cache'

# Some systems map .js to text/plain or nothing; browsers refuse module scripts without a JS type.
mimetypes.add_type('text/javascript', '.js')
mimetypes.add_type('text/css', '.css')
mimetypes.add_type('image/svg+xml', '.svg')

MISSING_BUILD_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Synapse: the dashboard is not built</title>
<style>
  :root { color-scheme: dark light; }
  body { font: 15px/1.6 ui-sans-serif, system-ui, sans-serif; max-width: 40rem; margin: 12vh auto;
         padding: 0 1.5rem; background: #131316; color: #ececf1; }
  @media (prefers-color-scheme: light) { body { background: #fcfcfd; color: #1d1d22; } }
  h1 { font-size: 1.3rem; margin-bottom: .25rem; }
  code { font: 13px ui-monospace, SFMono-Regular, Menlo, monospace; background: rgba(127,127,127,.18);
         padding: .15em .4em; border-radius: 5px; }
  pre { background: rgba(127,127,127,.14); padding: .8rem 1rem; border-radius: 8px; overflow-x: auto; }
  pre code { background: none; padding: 0; }
  .muted { opacity: .7; }
</style>
</head>
<body>
<h1>The Synapse dashboard is not built</h1>
<p class="muted">This Synapse runs from a source checkout whose browser app has not been built yet
(<code>src/synapse_agents/web/static/index.html</code> is missing).</p>
<p>Build it once (Node 20+ and npm), then reload this page:</p>
<pre><code>make frontend</code></pre>
<p>or, without make: <code>cd frontend &amp;&amp; npm ci &amp;&amp; npm run build</code>.</p>
<p>A released wheel carries the dashboard already: <code>pip install synapse-agents</code>.</p>
<p class="muted">The API works meanwhile: <a href="/api/docs">/api/docs</a>.</p>
</body>
</html>
"""


def _is_api(path: str) -> bool:
    return path == '/api' or path.startswith('/api/')


def _looks_like_file(path: str) -> bool:
    """`/assets/...` and top-level names with an extension (`/favicon.ico`) are files: a miss is a 404.

    Deeper paths are client routes even with dots in them: agent slugs are dotted module paths.
    """
    parts = PurePosixPath(path).parts[1:]
    if parts[:1] == ('assets',):
        return True
    return len(parts) == 1 and '.' in parts[0].strip('.')


def with_base(index_html: str, root: str) -> str:
    """`index.html` for a dashboard served under `root` (a mount prefix, or nothing).

    Absolute asset URLs get the prefix, and a ``synapse-base`` meta tag tells the app where its API
    and its routes live.
    """
    root = root.rstrip('/')
    if root:
        index_html = re.sub(r'(\s(?:src|href))="/(?!/)', rf'\1="{root}/', index_html)
    meta = f'<meta name="synapse-base" content="{html.escape(root, quote=True)}">'
    return index_html.replace('<head>', f'<head>\n    {meta}', 1)


class SpaRoute(BaseRoute):
    """A catch-all route for the dashboard that never matches ``/api`` paths."""

    def __init__(self, static_dir: Path = STATIC_DIR) -> None:
        self.static_dir = static_dir

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope['type'] == 'http' and not _is_api(local_path(scope)):
            return Match.FULL, {}
        return Match.NONE, {}

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:  # pragma: no cover
        raise NoMatchFound(name, path_params)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = self.respond(scope['method'], local_path(scope), scope.get('root_path', ''))
        await response(scope, receive, send)

    def respond(self, method: str, path: str, root: str = '') -> Response:
        if method not in ('GET', 'HEAD'):
            return error_response(405, f'{method} is not allowed here.', headers={'Allow': 'GET, HEAD'})
        index = self.static_dir / 'index.html'
        if not index.is_file():
            page = with_base(MISSING_BUILD_PAGE, root)
            return HTMLResponse(page, status_code=503, headers={'Cache-Control': 'no-store'})
        file = self._file_for(path)
        if file is not None:
            cache = IMMUTABLE if path.startswith('/assets/') else REVALIDATE
            return FileResponse(file, headers={'Cache-Control': cache})
        if _looks_like_file(path):
            return Response(
                'Not found', status_code=404, media_type='text/plain', headers={'Cache-Control': 'no-store'}
            )
        page = with_base(index.read_text(encoding='utf-8'), root)
        return HTMLResponse(page, headers={'Cache-Control': REVALIDATE})

    def _file_for(self, path: str) -> Path | None:
        """The built file at `path`, if there is one inside the static folder."""
        parts = [part for part in PurePosixPath(path).parts if part not in ('/', '')]
        if not parts or any(part in ('.', '..') or '\\' in part for part in parts):
            return None
        candidate = self.static_dir.joinpath(*parts)
        try:
            resolved = candidate.resolve()
            resolved.relative_to(self.static_dir.resolve())
            # `is_file` raises for a name too long for the filesystem instead of saying no.
            return resolved if resolved.is_file() else None
        except (OSError, ValueError):
            return None


def mount_spa(app: FastAPI, static_dir: Path = STATIC_DIR) -> None:
    """Serve the dashboard from `static_dir` at ``/``; call after every API router is included."""
    app.router.routes.append(SpaRoute(static_dir))


def dashboard_built(static_dir: Path = STATIC_DIR) -> bool:
    """Whether the dashboard's build is present (``synapse serve`` mentions it when it is not)."""
    return (static_dir / 'index.html').is_file()
