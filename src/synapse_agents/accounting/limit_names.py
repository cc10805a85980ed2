"""What an agent or preset limit may name: agents and presets that exist, so a limit really applies.

The ledger keys an agent's calls by its slug (`llm_calls.agent_key`: a discovered agent's slug, a
configured agent's `config:<key>`, or the name a program ran it under) and a preset's by its
registry key. A limit whose scope id is none of these would never match a call, so it is refused
(422) with the closest names (`difflib.get_close_matches`). Known names are the discovered agents,
the registry's configured agents and presets, and every agent and preset the ledger has seen.
Tenants and users are not checked (any `type:id` may be new). Blocking: call from a thread.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from sqlalchemy import select

from ..registry.tables import AgentConfig, Preset
from .limits_store import LimitError
from .tables import LlmCall

if TYPE_CHECKING:
    from ..discovery import Catalog
    from ..store import Store

CHECKED_SCOPES = ('agent', 'preset')


def known_names(store: Store, catalog: Catalog | None, scope: str) -> list[str]:
    """The agent slugs (or preset keys) a limit of `scope` may name, sorted."""
    with store.read() as session:
        if scope == 'agent':
            names = {f'config:{key}' for key in session.scalars(select(AgentConfig.key))}
            names |= set(session.scalars(select(LlmCall.agent_key).distinct()))
        else:
            names = set(session.scalars(select(Preset.key)))
            names |= set(session.scalars(select(LlmCall.preset).distinct()))
    if scope == 'agent' and catalog is not None:
        names |= {agent.slug for agent in catalog.scan().agents}
    return sorted(name for name in names if name)


def unknown_name(scope: str, scope_id: str, known: list[str]) -> LimitError:
    """The 422 for a scope id that names no known agent or preset, with the closest matches."""
    what = 'agent' if scope == 'agent' else 'preset'
    close = difflib.get_close_matches(scope_id, known, n=3, cutoff=0.5)
    if not close:
        # `pirate-helper` for `config:pirate-helper`, `support` for `...agents.support`.
        close = [name for name in known if name.rsplit(':', 1)[-1].rsplit('.', 1)[-1] == scope_id][:3]
    if close:
        hint = f'did you mean {", ".join(repr(c) for c in close)}?'
    elif known:
        hint = f'known {what}s: {", ".join(repr(k) for k in known[:10])}.'
    else:
        hint = f'no {what} is known yet.'
    problem = f'no {what} {scope_id[:80]!r}: a limit on it would never apply; {hint}'
    return LimitError(422, f'scope_id: {problem}', [{'location': 'body.scope_id', 'message': problem}])


def check_names(store: Store, catalog: Catalog | None, scope: str, scope_id: str) -> None:
    """Refuse (422) an agent or preset scope id that names nothing Synapse knows."""
    if scope not in CHECKED_SCOPES:
        return
    known = known_names(store, catalog, scope)
    if scope_id not in known:
        raise unknown_name(scope, scope_id, known)
