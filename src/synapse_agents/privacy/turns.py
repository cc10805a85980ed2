"""`privacy_enabled`: `Privacy` on every run of a Synapse turn, nested runs included.

`install()` registers an extender of the runs started inside a turn (`_agent_runs`): when the turn's
settings have `privacy_enabled`, each run (the turn's own, a capability's summary call, an agent a
tool runs) gets a `PrivacyCapability` for that run only, unless it already has one (the agent's own
`Privacy()`, or one passed to the run). The agent is never changed. Outside a turn, or with the
setting off, nothing is added.
"""

from __future__ import annotations

from typing import Any

from pydantic_ai import Agent
from pydantic_ai.capabilities import AbstractCapability

from .._agent_runs import extend
from ..store.in_turn import in_turn
from .capability import PrivacyCapability


def install() -> None:
    """Add `Privacy` to the runs of turns with `privacy_enabled` (once per process)."""
    extend(_with_privacy)


def _with_privacy(agent: Agent[Any, Any], options: dict[str, Any]) -> None:
    turn = in_turn()
    if turn is None or not turn.settings.privacy_enabled:
        return
    given = list(options.get('capabilities') or ())
    if any(isinstance(c, PrivacyCapability) for c in given) or _has_privacy(agent):
        return
    options['capabilities'] = [*given, PrivacyCapability()]


def _has_privacy(agent: Agent[Any, Any]) -> bool:
    """Whether the agent has a `Privacy` of its own."""
    found: list[AbstractCapability[Any]] = []
    agent.root_capability.apply(
        lambda capability: found.append(capability) if isinstance(capability, PrivacyCapability) else None
    )
    return bool(found)
