"""The login page of token mode: the token, posted by its form, becomes a session cookie.

Only a POST logs in; the form refuses cross-site posts (the access middleware's same-origin
check runs first, so they never count as failed attempts). The URL `synapse serve` prints
carries the token in its fragment (`/login#token=...`), which browsers never send to a server:
`/login.js` copies it into the form and the user presses "Log in".
"""

from __future__ import annotations

import html
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from .access import AccessPolicy
from .errors import error_body
from .origin import peer_address
from .sessions import cookie_name
from .throttle import throttle_key

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
</style><script src="{script}" defer></script></head><body>
<form method="post" action="{action}">
<h1>Synapse</h1>
<p>This server needs its access token. It was printed when <code>synapse serve</code> started
(or set it with SYNAPSE_TOKEN).</p>
{error}<input type="password" name="token" autocomplete="current-password" autofocus required
  placeholder="Token">
<input type="hidden" name="next" value="{next}">
<button type="submit">Log in</button>
</form></body></html>"""

# Fills the form from the printed URL's `#token=` fragment, then drops the fragment from the
# address bar and history. It never submits: a page elsewhere that opens this URL gets no login
# attempt out of it.
_SCRIPT = """document.addEventListener('DOMContentLoaded', function () {
  var match = /^#token=([^&]+)/.exec(window.location.hash);
  if (!match) return;
  var field = document.querySelector('input[name="token"]');
  try { field.value = decodeURIComponent(match[1]); } catch (e) { return; }
  history.replaceState(null, '', window.location.pathname + window.location.search);
  document.querySelector('button[type="submit"]').focus();
});
"""


def _policy(request: Request) -> AccessPolicy | None:
    return getattr(request.app.state, 'access_policy', None)


def _root(request: Request) -> str:
    return str(request.scope.get('root_path', ''))


def _safe_next(request: Request, target: str | None) -> str:
    """Only paths inside this app: never another site (no open redirect)."""
    if not target or not target.startswith('/') or target.startswith('//') or '\\' in target:
        target = '/'
    return f'{_root(request)}{target}'


def _wants_page(request: Request) -> bool:
    return 'text/html' in request.headers.get('accept', '')


def _page(
    request: Request,
    next_path: str,
    error: str = '',
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> Response:
    """The form (with `error`) for a browser; a JSON error for any other client."""
    headers = {'Cache-Control': 'no-store', **(headers or {})}
    if status >= 400 and not _wants_page(request):
        return JSONResponse(error_body(status, error), status_code=status, headers=headers)
    body = _PAGE.format(
        action=html.escape(f'{_root(request)}/login'),
        script=html.escape(f'{_root(request)}/login.js'),
        next=html.escape(next_path),
        error=f'<p class="error">{html.escape(error)}</p>' if error else '',
    )
    return HTMLResponse(body, status_code=status, headers=headers)


def _cookie_path(request: Request) -> str:
    return _root(request) or '/'


def _logged_in(request: Request, policy: AccessPolicy, target: str | None) -> Response:
    response = RedirectResponse(_safe_next(request, target), status_code=303)
    response.set_cookie(
        cookie_name(request.scope),
        policy.sessions.create(),
        max_age=int(policy.sessions.ttl),
        httponly=True,
        samesite='strict',
        secure=request.url.scheme == 'https',
        path=_cookie_path(request),
    )
    return response


async def _verify(request: Request, policy: AccessPolicy, token: str, next_path: str) -> Response | None:
    client = throttle_key(peer_address(request.scope))
    if await policy.throttle.blocked(client):
        retry = policy.throttle.retry_after(client)
        message = f'Too many failed attempts; try again in {retry} s.'
        return _page(request, next_path, message, 429, {'Retry-After': str(retry)})
    if policy.token_matches(token):
        policy.throttle.succeed(client)
        return None
    await policy.throttle.fail(client)
    return _page(request, next_path, 'That token is not right.', 401)


@router.get('/login')
async def login_page(request: Request, next: str | None = None) -> Response:
    """The login form. A token in the query string is ignored: only the form's POST logs in."""
    policy = _policy(request)
    if policy is None or policy.mode != 'token':
        return RedirectResponse(_safe_next(request, next), status_code=303)
    return _page(request, next or '/')


@router.get('/login.js')
async def login_script() -> Response:
    """Copies the printed URL's `#token=` fragment into the form (CSP allows only own scripts)."""
    return Response(_SCRIPT, media_type='text/javascript', headers={'Cache-Control': 'no-cache'})


@router.post('/login')
async def login_submit(
    request: Request, token: Annotated[str, Form(max_length=512)], next: Annotated[str, Form()] = '/'
) -> Response:
    """Check the token and start a session (a cookie holding a random session id)."""
    policy = _policy(request)
    if policy is None or policy.mode != 'token':
        return RedirectResponse(_safe_next(request, next), status_code=303)
    refusal = await _verify(request, policy, token, next)
    return refusal or _logged_in(request, policy, next)


@router.post('/logout')
async def logout(request: Request) -> Response:
    """End the session: the server forgets it, and the browser is told to drop the cookie."""
    policy = _policy(request)
    name = cookie_name(request.scope)
    if policy is not None:
        policy.sessions.revoke(request.cookies.get(name, ''))
    response = RedirectResponse(_safe_next(request, '/login'), status_code=303)
    response.delete_cookie(name, path=_cookie_path(request), httponly=True, samesite='strict')
    return response
