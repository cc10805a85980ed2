"""What a limit's "applies to" may be set to: the names the dashboard's limit form offers.

- agent: the discovered agents (by slug, shown by their label or name), the configured agents
  (`config:<key>`, shown by name), then any other agent the ledger has seen (shown by its key);
- preset: the registry's presets (shown by name), then any other preset the ledger has seen;
- tenant, user: the `type:id`s the ledger has seen, the most recently seen first.

Tenants and users come only from the ledger, at most `MAX_CHOICES` of them (`truncated` says when
more matched): `query` narrows them (a case-insensitive part of the name), and `tenant` keeps the
users seen in that tenant's calls only (a bare `type` keeps every tenant of that type), so picking
a user for one tenant never lists another tenant's users. Blocking: call from a thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, func, select

from ..registry.tables import AgentConfig, Preset
from .tables import LlmCall
from .worst_case import CONFIG_PREFIX

if TYPE_CHECKING:
    from ..discovery import Catalog
    from ..store import Store

MAX_CHOICES = 200
"""The most tenants or users one answer lists."""


@dataclass(frozen=True)
class Choice:
    """One name a limit may apply to, and what to show for it."""

    value: str
    label: str
    source: str
    """`discovered`, `configured`, `registry` or `ledger`."""


def _matches(choice: Choice, query: str | None) -> bool:
    if not query:
        return True
    needle = query.casefold()
    return needle in choice.value.casefold() or needle in choice.label.casefold()


def _agents(store: Store, catalog: Catalog | None) -> list[Choice]:
    found: list[Choice] = []
    if catalog is not None:
        snapshot = catalog.scan()
        found += [
            Choice(agent.slug, snapshot.label(agent.slug) or agent.name, 'discovered')
            for agent in snapshot.agents
        ]
    with store.read() as session:
        configs = session.execute(
            select(AgentConfig.key, AgentConfig.name)
            .where(AgentConfig.is_sandbox.is_(False))
            .order_by(AgentConfig.key)
        ).all()
    found += [Choice(CONFIG_PREFIX + key, name or key, 'configured') for key, name in configs]
    return found


def _presets(store: Store) -> list[Choice]:
    with store.read() as session:
        rows = session.execute(select(Preset.key, Preset.name).order_by(Preset.key)).all()
    return [Choice(key, name or key, 'registry') for key, name in rows]


def _scoped(column: Any, value: str) -> ColumnElement[bool]:
    """`type:id` matches itself; a bare `type` (or `type:`) every id of that type."""
    kind, _colon, ident = value.partition(':')
    found: ColumnElement[bool] = column == value if ident else column.startswith(f'{kind}:', autoescape=True)
    return found


def _seen(
    store: Store, scope: str, tenant: str | None, query: str | None, limit: int
) -> tuple[list[Choice], bool]:
    """The tenants or users of the ledger, the most recently seen first (at most `limit`)."""
    column = LlmCall.tenant if scope == 'tenant' else LlmCall.user
    statement = select(column).where(column.is_not(None), column != '')
    if tenant:
        statement = statement.where(_scoped(LlmCall.tenant, tenant))
    if query:
        statement = statement.where(func.lower(column).contains(query.lower(), autoescape=True))
    statement = (
        statement.group_by(column).order_by(func.max(LlmCall.created_at).desc(), column).limit(limit + 1)
    )
    with store.read() as session:
        names = list(session.scalars(statement))
    return [Choice(name, name, 'ledger') for name in names[:limit] if name], len(names) > limit


def choices(
    store: Store,
    catalog: Catalog | None,
    scope: str,
    *,
    tenant: str | None = None,
    query: str | None = None,
    limit: int = MAX_CHOICES,
) -> tuple[list[Choice], bool]:
    """The names a limit of `scope` may apply to, and whether more matched than are listed."""
    if scope in ('tenant', 'user'):
        return _seen(store, scope, tenant if scope == 'user' else None, query, limit)
    listed = _agents(store, catalog) if scope == 'agent' else _presets(store)
    values = {choice.value for choice in listed}
    column = LlmCall.agent_key if scope == 'agent' else LlmCall.preset
    with store.read() as session:
        seen = sorted(name for name in session.scalars(select(column).distinct()) if name)
    listed += [Choice(name, name, 'ledger') for name in seen if name not in values]
    found = [choice for choice in listed if _matches(choice, query)]
    return found[:limit], len(found) > limit
