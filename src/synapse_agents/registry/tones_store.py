"""Tones: a style of answer (a name, an emoji, the instructions appended to an agent's own).

Blocking: call from a thread.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import select

from ..store import Store
from ..store.schema import utcnow
from .entries import assign, current, found, in_use, insert, parse, same_key
from .schemas import ToneInput, TonePatch
from .tables import AgentConfig, Tone

FIELDS = ('name', 'emoji', 'instructions')
"""What a PATCH may change."""


def create(store: Store, data: ToneInput | Mapping[str, Any]) -> Tone:
    """Add a tone; `Duplicate` when its key is taken."""
    entry = parse(ToneInput, data)
    row = Tone(
        key=entry.key,
        **{name: getattr(entry, name) for name in FIELDS},
        created_at=utcnow(),
        updated_at=utcnow(),
    )
    return insert(store, row)


def update(store: Store, key: str, data: TonePatch | Mapping[str, Any]) -> Tone:
    """Change a tone."""
    patch = parse(TonePatch, data)
    same_key(key, patch.key)
    with store.write() as session:
        row = found(session, Tone, key)
        merged = parse(ToneInput, {'key': key, **current(row, FIELDS), **patch.changes()})
        if assign(row, {name: getattr(merged, name) for name in FIELDS}):
            row.updated_at = utcnow()
    return row


def delete(store: Store, key: str) -> None:
    """Remove a tone; refused (409) while configured agents use it."""
    with store.write() as session:
        row = found(session, Tone, key)
        users = list(session.scalars(select(AgentConfig.key).where(AgentConfig.tone_key == key)))
        if users:
            raise in_use(Tone, key, users, 'the agents')
        session.delete(row)
