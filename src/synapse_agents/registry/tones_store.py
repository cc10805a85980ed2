"""Tones: a style of answer (a name, an emoji, the instructions appended to an agent's own).

Blocking: call from a thread.
"""

from __future__ import annotations

from .entries import KeyedKind
from .schemas import ToneInput, TonePatch
from .tables import AgentConfig, Tone

FIELDS = ('name', 'emoji', 'instructions')
"""What a PATCH may change."""


TONES = KeyedKind(Tone, ToneInput, TonePatch, FIELDS, AgentConfig.tone_key, 'the agents')
"""Tones: created, changed and deleted; a tone configured agents use cannot be deleted (409)."""

create = TONES.create
update = TONES.update
delete = TONES.delete
