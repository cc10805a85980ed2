"""The login page of token mode: a token (typed, or from the printed login URL) becomes a cookie."""

from __future__ import annotations

import html
import secrets
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from .access import SESSION_COOKIE, AccessPolicy, session_value

router = APIRouter(include_in_schema=False)

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Synapse — log in</title>
<style>
body{{font:15px system-ui,sans-serif;background:#0b0b0f;color:#e6e6ea;margin:0;
  display:grid;place-items:center;min-height:100vh}}
form{{background:#15151b;border:1px solid #2a2a33;border-radius:12px;padding:28px;width:340px}}
h1{{font-size:18px;margin:0 0 6px}}p{{color:#9a9aa6;margin:0 0 18px;font-size:13px}}
input{{width:100%;box-sizing:border-box;padding:10px;border-radius:8px;border:1px solid #2a2a33;
  background:#0b0b0f;color:inherit}}
button{{margin-top:14px;width:100%;padding:10px;border:0;border-radius:8px;background:#7c5cff;
  color:#fff;font-weight:600}}
.error{{color:#ff6b6b}}
</style></head><body>
<form method="post" action="{action}">
<h1>Synapse</h1>
<p>This server needs its access token. It was printed when <code>synapse serve</code> started
(or set it with SYNAPSE_TOKEN).</p>
{error}<input type="password" name="token" autocomplete="current-password" autofocus required
  placeholder="Token">
<input type="hidden" name="next" value="{next}">
<button type="submit">Log in</button>
</form></body></html>"""


def _policy(request: Request) -> AccessPolicy | None:
    return getattr(request.app.state, 'access_policy', None)


def _safe_next(request: Request, target: str | None) -> str:
    """Only paths inside this app: never another site (no open redirect)."""
    root = request.scope.get('root_path', '')
    if not target or not target.startswith('/') or target.startswith('//') or '\\' in target:
        target = '/'
    return f'{root}{target}'


def _page(request: Request, next_path: str, error: str = '', status: int = 200) -> HTMLResponse:
    root = request.scope.get('root_path', '')
    body = _PAGE.format(
        action=html.escape(f'{root}/login'),
        next=html.escape(next_path),
        error=f'<p class="error">{html.escape(error)}</p>' if error else '',
    )
    return HTMLResponse(body, status_code=status, headers={'Cache-Control': 'no-store'})


def _logged_in(request: Request, target: str | None, token: str) -> Response:
    response = RedirectResponse(_safe_next(request, target), status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        session_value(token),
        httponly=True,
        samesite='strict',
        secure=request.url.scheme == 'https',
        path=(request.scope.get('root_path') or '/'),
    )
    return response


def _client(request: Request) -> str:
    return request.client.host if request.client else 'unknown'


async def _verify(request: Request, policy: AccessPolicy, token: str) -> Response | None:
    client = _client(request)
    if await policy.throttle.blocked(client):
        retry = policy.throttle.retry_after(client)
        return _page(request, '/', f'Too many failed attempts; try again in {retry} s.', 429)
    assert policy.token is not None
    if secrets.compare_digest(token.encode(), policy.token.encode()):
        policy.throttle.succeed(client)
        return None
    await policy.throttle.fail(client)
    return _page(request, '/', 'That token is not right.', 401)


@router.get('/login')
async def login_page(request: Request, next: str | None = None, token: str | None = None) -> Response:
    """The login form; `?token=...` (the URL printed at start) logs in directly."""
    policy = _policy(request)
    if policy is None or policy.mode != 'token':
        return RedirectResponse(_safe_next(request, next), status_code=303)
    if token is not None:
        refusal = await _verify(request, policy, token)
        return refusal or _logged_in(request, next, token)
    return _page(request, next or '/')


@router.post('/login')
async def login_submit(
    request: Request, token: Annotated[str, Form(max_length=512)], next: Annotated[str, Form()] = '/'
) -> Response:
    """Check the typed token and set the session cookie."""
    policy = _policy(request)
    if policy is None or policy.mode != 'token':
        return RedirectResponse(_safe_next(request, next), status_code=303)
    refusal = await _verify(request, policy, token)
    return refusal or _logged_in(request, next, token)


@router.post('/logout')
async def logout(request: Request) -> Response:
    """Forget the session cookie."""
    response = RedirectResponse(_safe_next(request, '/login'), status_code=303)
    response.delete_cookie(SESSION_COOKIE, path=(request.scope.get('root_path') or '/'))
    return response
