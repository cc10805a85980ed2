"""`/api/docs`: Swagger UI served from this server, so it works offline and under the CSP.

FastAPI's own page loads Swagger UI from a CDN and starts it with an inline script; the
Content-Security-Policy (`script-src 'self'`) blocks both. Here the assets come from the
`fastapi-offline` package and a small script of our own starts the UI.
"""

from __future__ import annotations

import html
from importlib.resources import files
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, Response

from .errors import ApiError

router = APIRouter(include_in_schema=False)

ASSETS = {
    'swagger-ui-bundle.js': 'text/javascript',
    'swagger-ui.css': 'text/css',
    'favicon.png': 'image/png',
}

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Synapse API</title>
<link rel="icon" href="{base}/favicon.png">
<link rel="stylesheet" href="{base}/swagger-ui.css">
<script src="{base}/swagger-ui-bundle.js" defer></script>
<script src="{base}/start.js" defer></script>
</head><body><div id="swagger-ui" data-openapi="{openapi}"></div></body></html>"""

_START = """window.addEventListener('DOMContentLoaded', function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.dataset.openapi,
    dom_id: '#swagger-ui',
    deepLinking: true,
    showExtensions: true,
    showCommonExtensions: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
    layout: 'BaseLayout'
  });
});
"""


def _asset_dir() -> Path:
    return Path(str(files('fastapi_offline') / 'static'))


@router.get('/api/docs')
async def docs_page(request: Request) -> HTMLResponse:
    """Swagger UI for `/api/openapi.json`."""
    root = request.scope.get('root_path', '')
    body = _PAGE.format(base=html.escape(f'{root}/api/docs'), openapi=html.escape(f'{root}/api/openapi.json'))
    return HTMLResponse(body, headers={'Cache-Control': 'no-cache'})


@router.get('/api/docs/start.js')
async def docs_script() -> Response:
    """Starts Swagger UI on the page (an external script: the CSP allows no inline one)."""
    return Response(_START, media_type='text/javascript', headers={'Cache-Control': 'no-cache'})


@router.get('/api/docs/{name}')
async def docs_asset(name: str) -> FileResponse:
    """Swagger UI's own script, style sheet and icon."""
    media_type = ASSETS.get(name)
    if media_type is None:
        raise ApiError(404, f'No documentation asset {name!r}.')
    return FileResponse(_asset_dir() / name, media_type=media_type, headers={'Cache-Control': 'no-cache'})
