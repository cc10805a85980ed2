"""Reading the registry: one entry by key, listings, and the sandbox rules.

The sandbox pattern: agents and presets with `is_sandbox` are left out of listings (the agents page,
`GET /api/agents`, the registry's lists) unless asked for (`sandbox='only'` or `'include'`), and are
always found by key (a chat, the Python API, a workflow step resolve what they name). Rows come back
detached from their session (read-only snapshots). Blocking: call from a thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Literal, TypeVar

from sqlalchemy import select

from ..store import Store
from ..store.schema import utcnow
from .tables import (
    AgentConfig,
    AgentConfigVersion,
    ModelPrice,
    Preset,
    Provider,
    RegistryModel,
    RegistrySetting,
    Tone,
)

Sandbox = Literal['exclude', 'only', 'include']
"""Which entries a listing shows: non-sandbox ones (the default), only sandboxes, or both."""

KINDS = {
    'providers': Provider,
    'models': RegistryModel,
    'presets': Preset,
    'tones': Tone,
    'agents': AgentConfig,
}
"""The kinds kept by key, as the API and the CLI name them."""

SANDBOXED = (AgentConfig, Preset)
"""The kinds that carry `is_sandbox`."""

Row = TypeVar('Row', Provider, RegistryModel, Preset, Tone, AgentConfig)


def by_key(store: Store, kind: type[Row], key: str) -> Row | None:
    """The entry of `kind` with `key`, sandboxes included (resolution by key)."""
    with store.read() as session:
        found = session.scalars(select(kind).where(kind.key == key)).one_or_none()
        if found is not None:
            session.expunge(found)
        return found


def listing(store: Store, kind: type[Row], *, sandbox: Sandbox = 'exclude') -> Sequence[Row]:
    """Every entry of `kind` ordered by key; sandboxes as `sandbox` says (for kinds that have them)."""
    query = select(kind).order_by(kind.key)
    flag = getattr(kind, 'is_sandbox', None)
    if flag is not None and sandbox != 'include':
        query = query.where(flag.is_(sandbox == 'only'))
    with store.read() as session:
        rows = list(session.scalars(query))
        session.expunge_all()
        return rows


def price_in_force(store: Store, model_key: str, at: datetime | None = None) -> ModelPrice | None:
    """The model's price valid at `at` (now by default): the newest whose `valid_from` has passed."""
    moment = at or utcnow()
    query = (
        select(ModelPrice)
        .where(ModelPrice.model_key == model_key, ModelPrice.valid_from <= moment)
        .order_by(ModelPrice.valid_from.desc())
        .limit(1)
    )
    with store.read() as session:
        found = session.scalars(query).one_or_none()
        if found is not None:
            session.expunge(found)
        return found


def prices(store: Store, model_key: str) -> Sequence[ModelPrice]:
    """Every price of a model, oldest first."""
    query = select(ModelPrice).where(ModelPrice.model_key == model_key).order_by(ModelPrice.valid_from)
    with store.read() as session:
        rows = list(session.scalars(query))
        session.expunge_all()
        return rows


def agent_version(store: Store, key: str, version: int) -> AgentConfigVersion | None:
    """One stored version of a configured agent."""
    query = select(AgentConfigVersion).where(
        AgentConfigVersion.agent_key == key, AgentConfigVersion.version == version
    )
    with store.read() as session:
        found = session.scalars(query).one_or_none()
        if found is not None:
            session.expunge(found)
        return found


def stored_settings(store: Store) -> dict[str, object]:
    """The settings stored in the registry, by name."""
    with store.read() as session:
        return {row.key: row.value for row in session.scalars(select(RegistrySetting))}
