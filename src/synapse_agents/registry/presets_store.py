"""Presets: a model and its settings (temperature, max tokens, top p, streaming, timeout).

A preset may be a sandbox (`is_sandbox`): left out of listings, found by key, removed by the
sandbox cleanup. Blocking: call from a thread.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import select

from ..store import Store
from ..store.schema import utcnow
from .entries import assign, current, found, in_use, insert, parse, same_key
from .schemas import PresetInput, PresetPatch
from .tables import AgentConfig, Preset

FIELDS = (
    'name',
    'model',
    'temperature',
    'max_tokens',
    'top_p',
    'streaming',
    'timeout_s',
    'provider_options',
    'is_sandbox',
)
"""What a PATCH may change."""


def create(store: Store, data: PresetInput | Mapping[str, Any]) -> Preset:
    """Add a preset; `Duplicate` when its key is taken."""
    entry = parse(PresetInput, data)
    row = Preset(
        key=entry.key,
        **{name: getattr(entry, name) for name in FIELDS},
        created_at=utcnow(),
        updated_at=utcnow(),
    )
    return insert(store, row)


def update(store: Store, key: str, data: PresetPatch | Mapping[str, Any]) -> Preset:
    """Change a preset (null clears an optional setting)."""
    patch = parse(PresetPatch, data)
    same_key(key, patch.key)
    with store.write() as session:
        row = found(session, Preset, key)
        merged = parse(PresetInput, {'key': key, **current(row, FIELDS), **patch.changes()})
        if assign(row, {name: getattr(merged, name) for name in FIELDS}):
            row.updated_at = utcnow()
    return row


def delete(store: Store, key: str) -> None:
    """Remove a preset; refused (409) while configured agents use it."""
    with store.write() as session:
        row = found(session, Preset, key)
        users = list(session.scalars(select(AgentConfig.key).where(AgentConfig.preset_key == key)))
        if users:
            raise in_use(Preset, key, users, 'the agents')
        session.delete(row)
