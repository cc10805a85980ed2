"""`privacy_enabled`: `Privacy` on every run of a Synapse turn, nested runs included.

`install()` registers an extender of the runs (`_agent_runs`): inside a Synapse turn whose settings
have `privacy_enabled`, each run (the turn's own, a capability's summary call, an agent a tool runs,
the memory distiller's run) gets a `PrivacyCapability` for that run only, unless it already has one
(the agent's own `Privacy()`, or one passed to the run). The agent is never changed. Outside a turn,
or with the setting off, nothing is added here; a run nested in a run that has a `Privacy` gets one
anyway (`capability.install_nested`).
"""

from __future__ import annotations

from typing import Any

from pydantic_ai import Agent

from .._agent_runs import extend
from ..store.in_turn import in_turn
from .capability import PrivacyCapability, has_privacy, running


def install() -> None:
    """Add `Privacy` to the runs of turns with `privacy_enabled` (once per process)."""
    extend(_with_privacy)


def _with_privacy(agent: Agent[Any, Any], options: dict[str, Any]) -> None:
    turn = in_turn()
    if turn is None or not turn.settings.privacy_enabled or has_privacy(agent, options):
        return
    outer = running()  # inside a run with a Privacy: its options
    added = outer.nested() if outer is not None else PrivacyCapability()
    options['capabilities'] = [*(options.get('capabilities') or ()), added]
