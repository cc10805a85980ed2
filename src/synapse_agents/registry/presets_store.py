"""Presets: a model and its settings (temperature, max tokens, top p, streaming, timeout).

A preset may be a sandbox (`is_sandbox`): left out of listings, found by key, removed by the
sandbox cleanup. Blocking: call from a thread.
"""

from __future__ import annotations

from .entries import KeyedKind
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


PRESETS = KeyedKind(Preset, PresetInput, PresetPatch, FIELDS, AgentConfig.preset_key, 'the agents')
"""Presets: created, changed (null clears an optional setting) and deleted; a preset configured
agents use cannot be deleted (409)."""

create = PRESETS.create
update = PRESETS.update
delete = PRESETS.delete
