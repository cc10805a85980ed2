"""Presets: a model and its settings (temperature, max tokens, top p, streaming, timeout).

A preset may be a sandbox (`is_sandbox`): left out of listings, found by key, removed by the
sandbox cleanup. Blocking: call from a thread.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..store import Store
from .entries import create_entry, delete_entry, update_entry
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
    return create_entry(store, Preset, PresetInput, data, FIELDS)


def update(store: Store, key: str, data: PresetPatch | Mapping[str, Any]) -> Preset:
    """Change a preset (null clears an optional setting)."""
    return update_entry(store, Preset, PresetInput, PresetPatch, key, data, FIELDS)


def delete(store: Store, key: str) -> None:
    """Remove a preset; refused (409) while configured agents use it."""
    delete_entry(store, Preset, key, AgentConfig.preset_key, 'the agents')
