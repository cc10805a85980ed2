"""Tones: a style of answer (a name, an emoji, the instructions appended to an agent's own).

Blocking: call from a thread.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..store import Store
from .entries import create_entry, delete_entry, update_entry
from .schemas import ToneInput, TonePatch
from .tables import AgentConfig, Tone

FIELDS = ('name', 'emoji', 'instructions')
"""What a PATCH may change."""


def create(store: Store, data: ToneInput | Mapping[str, Any]) -> Tone:
    """Add a tone; `Duplicate` when its key is taken."""
    return create_entry(store, Tone, ToneInput, data, FIELDS)


def update(store: Store, key: str, data: TonePatch | Mapping[str, Any]) -> Tone:
    """Change a tone."""
    return update_entry(store, Tone, ToneInput, TonePatch, key, data, FIELDS)


def delete(store: Store, key: str) -> None:
    """Remove a tone; refused (409) while configured agents use it."""
    delete_entry(store, Tone, key, AgentConfig.tone_key, 'the agents')
